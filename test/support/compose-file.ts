import fs from 'node:fs';
import path from 'node:path';
import Ajv, { type ErrorObject } from 'ajv';
import draft07 from 'ajv/dist/refs/json-schema-draft-07.json';
import { parseDocument } from 'yaml';
import { interpolateDocument, type ComposeEnv } from './compose-interpolate';

/**
 * A Compose file read as Compose reads it, with nothing beyond Node: YAML with `<<` merge keys
 * (anchors and aliases resolved, duplicate keys rejected), variables interpolated, then validated
 * against the Compose Specification's JSON schema (vendored in ./compose-spec, see its README).
 */
export const COMPOSE_SCHEMA_FILE = path.join(__dirname, 'compose-spec', 'compose-spec.json');

let validator: ReturnType<Ajv['compile']> | undefined;

function composeValidator(): ReturnType<Ajv['compile']> {
  if (validator) return validator;
  // strictTypes/strictTuples off: the upstream schema relies on draft-07 leniency (e.g.
  // additionalProperties without "type": "object"); unknown keywords are still refused.
  const ajv = new Ajv({ allErrors: true, strict: true, strictTypes: false, strictTuples: false });
  const schema = JSON.parse(fs.readFileSync(COMPOSE_SCHEMA_FILE, 'utf8')) as { $schema?: string };
  // The schema names draft-07 as https://json-schema.org/draft-07/schema; Ajv knows it under http://…#.
  if (schema.$schema && schema.$schema !== draft07.$id) ajv.addMetaSchema({ ...draft07, $id: schema.$schema });
  validator = ajv.compile(schema);
  return validator;
}

export class ComposeFileError extends Error {
  override name = 'ComposeFileError';
}

function formatErrors(errors: ErrorObject[]): string {
  return errors.map((e) => `${e.instancePath || '/'} ${e.message ?? e.keyword}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`).join('; ');
}

/** Parses, interpolates (with `env` only, so results do not depend on the machine) and validates. */
export function loadComposeFile(text: string, env: ComposeEnv = {}): Record<string, unknown> {
  const doc = parseDocument(text, { merge: true, uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length) throw new ComposeFileError(`YAML: ${doc.errors.map((e) => e.message).join('; ')}`);
  const parsed = interpolateDocument(doc.toJS({ maxAliasCount: 100 }), env);
  const validate = composeValidator();
  if (!validate(parsed)) throw new ComposeFileError(`not a valid Compose file: ${formatErrors(validate.errors ?? [])}`);
  return parsed as Record<string, unknown>;
}
