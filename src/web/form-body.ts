import type { Context } from 'koa';
import { hasControlCharacter } from '../domain/control-characters';
import { FORBIDDEN_KEYS } from '../support/forbidden-keys';

/** The largest form body read: a portal form (an endpoint's URL up to 2048 characters, its description, every event type ticked) fits well inside. */
const LIMIT_BYTES = 16 * 1024;
/** The most fields a form may carry: the largest portal form (every event type ticked, every scope) has well under 100. */
export const MAX_FORM_FIELDS = 256;

/**
 * A form body the web port refuses (issue 32, "Hostile bodies"): answered with `status` and a plain
 * page saying `message` by the web app (src/web/app.ts), before anything is looked up or written.
 */
export class WebInputError extends Error {
  constructor(
    readonly status: 400 | 408 | 413,
    message: string,
  ) {
    super(message);
  }
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A form's fields where a field given twice cannot be read as one: `get` of a name sent more than
 * once throws (400), so a form never acts on whichever of two values came first. Fields that are
 * lists (`getAll`: scopes, event types, filters) may repeat.
 */
export class FormFields extends URLSearchParams {
  override get(name: string): string | null {
    const all = this.getAll(name);
    if (all.length > 1) throw new WebInputError(400, `The form field "${name.slice(0, 40)}" was sent more than once.`);
    return all[0] ?? null;
  }
}

function decodePart(part: string): string {
  try {
    return decodeURIComponent(part.replace(/\+/g, ' '));
  } catch {
    throw new WebInputError(400, 'The form is not valid: a field is not percent-encoded UTF-8.');
  }
}

/**
 * The fields of a small urlencoded form (checkout's and the portal's); null for any other content
 * type (answered 403 by the callers). No body-parser: these are the only forms on the port. Refused
 * with a WebInputError: a body over 16 KiB (413), one that breaks off (the client went away or the
 * server's request timeout closed it), bytes or percent-escapes that are not UTF-8, more than
 * MAX_FORM_FIELDS fields, a field named `__proto__` or `constructor`, or a name or value with a control
 * character (U+0000–U+001F other than tab and newline, the API's rule: src/domain/control-characters.ts) (400).
 */
export async function formFields(ctx: Context): Promise<FormFields | null> {
  if (!ctx.is('application/x-www-form-urlencoded')) return null;
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of ctx.req) {
      size += (chunk as Buffer).length;
      if (size > LIMIT_BYTES) throw new WebInputError(413, `The form is larger than ${LIMIT_BYTES} bytes.`);
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    if (error instanceof WebInputError) throw error;
    throw new WebInputError(400, 'The form could not be read.');
  }
  let text: string;
  try {
    text = UTF8.decode(Buffer.concat(chunks));
  } catch {
    throw new WebInputError(400, 'The form is not valid UTF-8.');
  }
  const fields = new FormFields();
  const pairs = text.split('&').filter((pair) => pair !== '');
  if (pairs.length > MAX_FORM_FIELDS) throw new WebInputError(400, `The form has more than ${MAX_FORM_FIELDS} fields.`);
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    const name = decodePart(eq < 0 ? pair : pair.slice(0, eq));
    if (hasControlCharacter(name)) throw new WebInputError(400, 'The form is not valid: a field name contains a control character.');
    if (FORBIDDEN_KEYS.has(name)) throw new WebInputError(400, `The form field name "${name}" is not allowed.`);
    const value = eq < 0 ? '' : decodePart(pair.slice(eq + 1));
    // NUL cannot be stored in PostgreSQL text at all, and no portal or checkout field takes a control character (the API's rule).
    if (hasControlCharacter(value)) throw new WebInputError(400, `The form field "${name.slice(0, 40)}" must not contain control characters (U+0000–U+001F other than tab and newline).`);
    fields.append(name, value);
  }
  return fields;
}
