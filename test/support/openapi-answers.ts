import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { openApiDocument } from '../../src/http/openapi/document';

/**
 * Checks real API answers against the OpenAPI document (src/http/openapi/): the body of an answer to
 * a documented route must match the documented schema of its status, and a status the route does not
 * document fails. harness.ts `request` runs every answer through `checkAnswer` (opt out with
 * `startHarness({ checkAnswers: false })`); answers of undocumented paths (/health, unknown routes)
 * are left to the route-coverage test (test/integration/openapi.test.ts).
 */
type Doc = { paths: Record<string, Record<string, { responses: Record<string, { $ref?: string; content?: Record<string, unknown> }> }>>; components: { responses: Record<string, { content?: Record<string, unknown> }> } };

const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

let ajv: Ajv2020 | undefined;
let checked = 0;
/** How many answers `checkAnswer` has passed in this file (a test proves the harness really checks). */
export const answersChecked = (): number => checked;
const compiled = new Map<string, ValidateFunction | null>();
let routes: Array<{ template: string; pattern: RegExp }> | undefined;

function setup(): { ajv: Ajv2020; doc: Doc } {
  const doc = openApiDocument() as unknown as Doc;
  if (!ajv) {
    ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema(JSON.parse(JSON.stringify(doc)) as object, 'openapi');
    routes = Object.keys(doc.paths)
      .map((template) => ({ template, pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`) }))
      // Static paths before templates, so /v1/reference/banks is never read as a template's {id}.
      .sort((a, b) => a.template.split('{').length - b.template.split('{').length);
  }
  return { ajv, doc };
}

/** The documented path template of a request path (query removed), or undefined. */
export function documentedPath(path: string): string | undefined {
  setup();
  const bare = path.split('?')[0];
  return routes!.find((r) => r.pattern.test(bare))?.template;
}

/** The validator of the answer `status` to `method template`; null when the document has none (undocumented status). */
function validatorOf(template: string, method: string, status: number): ValidateFunction | null | undefined {
  const key = `${method} ${template} ${status}`;
  if (compiled.has(key)) return compiled.get(key);
  const { ajv: instance, doc } = setup();
  const operation = doc.paths[template]?.[method];
  if (!operation) return undefined;
  const response = operation.responses[String(status)];
  let validate: ValidateFunction | null = null;
  if (response) {
    const at = response.$ref
      ? `openapi#/${pointer('components', 'responses', response.$ref.split('/').pop()!, 'content', 'application/json', 'schema')}`
      : `openapi#/${pointer('paths', template, method, 'responses', String(status), 'content', 'application/json', 'schema')}`;
    validate = instance.compile({ $ref: at });
  }
  compiled.set(key, validate);
  return validate;
}

/** Throws an assertion error naming the route, the status and ajv's errors when the answer does not match the document. */
export function checkAnswer(method: string, path: string, status: number, json: unknown, headers: Headers): void {
  const template = documentedPath(path);
  if (!template) return;
  const validate = validatorOf(template, method.toLowerCase(), status);
  if (validate === undefined) return; // a method the path does not have: the route table's concern
  const route = `${method.toUpperCase()} ${template} (${path})`;
  if (validate === null) throw new Error(`OpenAPI: ${route} answered ${status}, a status the document does not list for it.`);
  if (!validate(json)) {
    throw new Error(`OpenAPI: ${route} answered ${status} with a body that does not match its documented schema: ${JSON.stringify(validate.errors?.slice(0, 5))}\nbody: ${JSON.stringify(json)?.slice(0, 1000)}`);
  }
  if (!headers.get('request-id')) throw new Error(`OpenAPI: ${route} answered ${status} without Request-Id.`);
  checked++;
}
