/**
 * What the document says beyond the ajv schemas, so that it says exactly what the API accepts (issue
 * 32, schemathesis): rules the routes apply around the schemas (validate.ts `check`'s control
 * characters and metadata limits, the reference lists of create-charge.ts and create-payout.ts, the
 * payout fee's 2^53 bound), written as JSON Schema. The ajv schemas are left as they are: these are
 * additions to the document only, each checked against the API by scripts/schemathesis.sh.
 */
import { computePayoutFee } from '../../domain/payout';
import { METADATA_LIMITS } from '../metadata-limits';
import { REFERENCE_CURRENCIES, REFERENCE_MOMO_NETWORKS, REFERENCE_BANKS } from './reference-data';

/** No C0 control character other than tab and newline (src/domain/control-characters.ts). */
const FREE = '[^\\u0000-\\u0008\\u000B-\\u001F]';
export const CONTROL_FREE = `^${FREE}*$`;
/** JavaScript's `\s` spelled out, so that every regex engine reads `\S` as the API does. */
const SPACE = '\\t\\n\\u000B\\f\\r \\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000\\uFEFF';
/** Control-free with at least one character that is not white space (the schemas' `\S`). */
export const CONTROL_FREE_NOT_BLANK = `^${FREE}*[^${SPACE}\\u0000-\\u0008\\u000E-\\u001F]${FREE}*$`;

type Schema = Record<string, unknown>;

/** A string schema with the control-character rule: anchored patterns of their own already exclude controls. */
function textRule(schema: Schema): Schema {
  // `type: ['string', 'null']` too (an endpoint's `description` on PATCH): a pattern binds strings only.
  const isString = schema.type === 'string' || (Array.isArray(schema.type) && schema.type.includes('string'));
  if (!isString || 'enum' in schema || 'const' in schema || 'format' in schema) return schema;
  const pattern = schema.pattern as string | undefined;
  if (pattern === undefined) return { ...schema, pattern: CONTROL_FREE };
  if (pattern === '\\S') return { ...schema, pattern: CONTROL_FREE_NOT_BLANK };
  return schema;
}

/** `metadata` (src/http/metadata-limits.ts): at most 5 levels, keys of at most 40, strings of at most 500 characters, 50 entries a level. */
export function metadataSchema(): Schema {
  const { keys, keyLength, valueLength, depth } = METADATA_LIMITS;
  const scalar = [{ type: 'string', maxLength: valueLength, pattern: CONTROL_FREE }, { type: 'number' }, { type: 'boolean' }, { type: 'null' }];
  let inner: Schema[] = scalar;
  for (let level = depth; level >= 2; level--) {
    inner = [...scalar, { type: 'array', maxItems: keys, items: { anyOf: inner } }, { type: 'object', maxProperties: keys, propertyNames: { maxLength: keyLength, pattern: CONTROL_FREE }, additionalProperties: { anyOf: inner } }];
  }
  return {
    type: 'object',
    maxProperties: keys,
    propertyNames: { maxLength: keyLength, pattern: CONTROL_FREE },
    additionalProperties: { anyOf: inner },
    description: `At most ${keys} keys in all (nested keys and array items count too), keys of at most ${keyLength} and string values of at most ${valueLength} characters, at most ${depth} levels of objects and arrays.`,
    // The total over every level, which JSON Schema cannot count (scripts/schemathesis_hooks.py reads it).
    'x-max-entries': keys,
  };
}

/** Deep copy of a body schema with the text and metadata rules. */
export function documentSchema(schema: unknown, key?: string): unknown {
  if (Array.isArray(schema)) return schema.map((s) => documentSchema(s));
  if (schema === null || typeof schema !== 'object') return schema;
  if (key === 'metadata') return metadataSchema();
  const out: Schema = {};
  for (const [k, v] of Object.entries(schema as Schema)) {
    if (k === 'properties' && v && typeof v === 'object') out[k] = Object.fromEntries(Object.entries(v as Schema).map(([name, s]) => [name, documentSchema(s, name)]));
    else out[k] = documentSchema(v);
  }
  return textRule(out);
}

/** A pattern matching `text` in any letter case (momo_network_id is looked up lower-cased). */
function anyCase(text: string): string {
  return [...text].map((c) => (/[a-z]/i.test(c) ? `[${c.toLowerCase()}${c.toUpperCase()}]` : c.replace(/[-]/g, '\\-'))).join('');
}

export const CURRENCY_ENUM = REFERENCE_CURRENCIES.map((c) => c.code);

/**
 * The reference rules of a create (create-charge.ts, create-payout.ts): `currency` one of the
 * reference currencies; mobile money: a known network and its currency; bank (payouts): a known bank
 * and its currency.
 */
function referenceRules(channelBank: boolean): Schema[] {
  const networks = {
    if: { properties: { channel: { const: 'mobile_money' } }, required: ['channel'] },
    then: {
      oneOf: REFERENCE_MOMO_NETWORKS.map((n) => ({ properties: { momo_network_id: { pattern: `^${anyCase(n.id)}$` }, currency: { const: n.currency } }, required: ['momo_network_id'] })),
    },
  };
  const banks = {
    if: { properties: { channel: { const: 'bank' } }, required: ['channel'] },
    then: { oneOf: REFERENCE_BANKS.map((b) => ({ properties: { bank_code: { const: b.code }, currency: { const: b.currency } }, required: ['bank_code'] })) },
  };
  return channelBank ? [networks, banks] : [networks];
}

/** The largest payout amount whose amount plus fee stays below 2^53 (create-payout.ts), per channel. */
export function maxPayoutAmount(channel: 'mobile_money' | 'bank'): number {
  let lo = 1;
  let hi = Number.MAX_SAFE_INTEGER;
  while (lo < hi) {
    const mid = lo + Math.ceil((hi - lo) / 2);
    if (computePayoutFee(mid, channel).totalDebit <= Number.MAX_SAFE_INTEGER) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** The document's schema of a create body: the ajv schema with the rules above. */
export function createBodySchema(opId: string, schema: unknown): unknown {
  const doc = documentSchema(schema) as Schema;
  const properties = doc.properties as Record<string, Schema> | undefined;
  if (properties?.currency) properties.currency = { type: 'string', enum: CURRENCY_ENUM, description: 'ISO 4217, one of GET /v1/reference/currencies.' };
  if (opId === 'createCharge') doc.allOf = [...((doc.allOf as Schema[]) ?? []), ...referenceRules(false)];
  if (opId === 'createPayout') {
    doc.allOf = [
      ...((doc.allOf as Schema[]) ?? []),
      ...referenceRules(true),
      ...(['mobile_money', 'bank'] as const).map((channel) => ({ if: { properties: { channel: { const: channel } }, required: ['channel'] }, then: { properties: { amount: { maximum: maxPayoutAmount(channel) } } } })),
    ];
  }
  if (opId === 'updateWebhookEndpoint') doc.minProperties = 1;
  if (properties?.url) {
    properties.url = { ...properties.url, format: 'uri', pattern: '^https://[^/?#@\\s]+([/?#][^\\s]*)?$', description: 'https, no user name or password; the host must be a public internet address or resolve only to public addresses (else 400 `invalid_webhook_url`).', 'x-public-host': true };
  }
  return doc;
}
