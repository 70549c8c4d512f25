import { ALL_SCOPES } from '../../domain/scopes';
import { codesOf, codesTable, ERROR_ENVELOPE, errorSchemaOf } from './errors';
import * as events from './event-schemas';
import { EVERY_ANSWER, headerRefs, IDEMPOTENCY_KEY, RESPONSE_HEADERS, type ResponseHeader } from './headers';
import * as objects from './object-schemas';
import { OPERATIONS, type Operation } from './operations';
import { webhooksSection } from './webhooks';
import { createBodySchema } from './exact';
import { LINKS } from './links';

/** The path of the document on both API listeners (mounted before authentication, src/http/app.ts). */
export const OPENAPI_PATH = '/v1/openapi.json';

/**
 * Error statuses any operation can answer: a bad path or query, the key, scopes and environment, limits, failures;
 * 408 and 431 from the listener itself (src/http/server-limits.ts: a request too slow, headers too large or too many).
 */
export const COMMON_ERRORS = [400, 401, 403, 404, 408, 429, 431, 500, 503];

const SCHEMAS: Record<string, unknown> = {
  Charge: objects.CHARGE,
  Fee: objects.FEE,
  Payout: objects.PAYOUT,
  Refund: objects.REFUND,
  Settlement: objects.SETTLEMENT,
  SettlementEntry: objects.SETTLEMENT_ENTRY,
  Dispute: objects.DISPUTE,
  Balance: objects.BALANCE,
  BalanceTransaction: objects.BALANCE_TRANSACTION,
  Event: events.EVENT,
  EventType: events.EVENT_TYPE,
  WebhookEndpoint: events.WEBHOOK_ENDPOINT,
  DeletedWebhookEndpoint: events.DELETED_WEBHOOK_ENDPOINT,
  WebhookDelivery: events.WEBHOOK_DELIVERY,
  WebhookRecovery: events.WEBHOOK_RECOVERY,
  MomoNetwork: events.MOMO_NETWORK,
  Bank: events.BANK,
  Currency: events.CURRENCY,
  Country: events.COUNTRY,
  SandboxAdvance: events.SANDBOX_ADVANCE,
  Error: ERROR_ENVELOPE,
};

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** `List<Name>`: the list envelope of INTERFACE.md "Objects" around Name. */
function schemaRef(name: string): Record<string, unknown> {
  const item = /^List<(\w+)>$/.exec(name)?.[1];
  return item ? ref(`${item}List`) : ref(name);
}

function listSchema(item: string): Record<string, unknown> {
  return {
    type: 'object',
    required: ['object', 'data', 'has_more'],
    properties: {
      object: { const: 'list' },
      data: { type: 'array', items: ref(item) },
      has_more: { type: 'boolean' },
      next_cursor: { type: 'string', description: 'With has_more: pass it as `cursor` for the next page.' },
    },
  };
}

const jsonContent = (schema: unknown) => ({ 'application/json': { schema } });

function errorResponse(status: number): Record<string, unknown> {
  const headers: ResponseHeader[] = status === 429 || status === 503 ? [...EVERY_ANSWER, 'Retry-After'] : EVERY_ANSWER;
  return {
    description: `Error: ${codesOf(status).map((c) => `\`${c}\``).join(', ')}.`,
    headers: headerRefs(headers),
    content: jsonContent(errorSchemaOf(status)),
  };
}

/** The statuses an operation answers, success first. */
export function statusesOf(op: Operation): number[] {
  return [op.success.status, ...[...new Set([...COMMON_ERRORS, ...(op.errors ?? [])])].sort((a, b) => a - b)];
}

function operationObject(op: Operation): Record<string, unknown> {
  const idempotency = op.idempotency === 'required' ? 'IdempotencyKeyRequired' : 'IdempotencyKey';
  const parameters = [...(op.parameters ?? []), ...(op.idempotency ? [{ $ref: `#/components/parameters/${idempotency}` }] : [])];
  const successHeaders: ResponseHeader[] = op.idempotency ? [...EVERY_ANSWER, 'Idempotent-Replayed'] : EVERY_ANSWER;
  const responses: Record<string, unknown> = {
    [op.success.status]: {
      description: op.success.description,
      headers: headerRefs(successHeaders),
      content: jsonContent(schemaRef(op.success.schema)),
      ...(LINKS[op.id] ? { links: LINKS[op.id] } : {}),
    },
  };
  for (const status of statusesOf(op).slice(1)) responses[status] = { $ref: `#/components/responses/Error${status}` };
  const notes = [
    op.scope ? `Scope: \`${op.scope}\`.` : undefined,
    op.idempotency === 'required' ? 'Moves money: `Idempotency-Key` is required.' : undefined,
    op.idempotency === 'optional' ? 'With an `Idempotency-Key`, a retried request answers the first one.' : undefined,
    op.sandboxOnly ? 'Sandbox listener only: the live listener answers 404.' : undefined,
    op.notes,
  ].filter(Boolean);
  return {
    operationId: op.id,
    summary: op.summary,
    ...(notes.length ? { description: notes.join(' ') } : {}),
    tags: [op.tag],
    ...(parameters.length ? { parameters } : {}),
    ...(op.body ? { requestBody: { required: true, content: jsonContent(createBodySchema(op.id, op.body.schema)) } } : {}),
    responses,
    ...(op.scope ? { 'x-scope': op.scope } : {}),
    ...(op.sandboxOnly ? { 'x-sandbox-only': true } : {}),
    ...queryRules(op),
  };
}

/**
 * Rules across query parameters that JSON Schema cannot state per parameter, for clients and fuzzers
 * (scripts/schemathesis_hooks.py reads them): `x-exclusive-parameters`, sets of which at most one
 * may be sent; `x-ordered-parameters`, pairs whose first must be earlier than the second.
 */
function queryRules(op: Operation): Record<string, unknown> {
  const names = new Set((op.parameters ?? []).map((p) => p.name));
  return {
    ...(names.has('after_sequence') && names.has('cursor') ? { 'x-exclusive-parameters': [['after_sequence', 'cursor']] } : {}),
    ...(names.has('created_after') && names.has('created_before') ? { 'x-ordered-parameters': [['created_after', 'created_before']] } : {}),
  };
}

function paths(): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const op of OPERATIONS) (out[op.path] ??= {})[op.method] = operationObject(op);
  out[OPENAPI_PATH] = {
    get: {
      operationId: 'getOpenApiDocument',
      summary: 'This document',
      description: 'No API key needed. Generated at start from the schemas the API validates requests with.',
      tags: ['Meta'],
      security: [],
      responses: {
        200: { description: 'The OpenAPI 3.1 document.', headers: headerRefs(EVERY_ANSWER), content: jsonContent({ type: 'object', required: ['openapi'] }) },
        429: { $ref: '#/components/responses/Error429' },
        500: { $ref: '#/components/responses/Error500' },
      },
    },
  };
  return out;
}

const DESCRIPTION = `Payments API. Two listeners: sandbox keys (\`svc_test_…\`) on the sandbox listener, live keys (\`svc_live_…\`) on the live one; the listener decides the environment.

Every answer carries \`Request-Id\` and \`RateLimit-Limit\`, \`RateLimit-Remaining\`, \`RateLimit-Reset\`; a 429 or 503 also \`Retry-After\`. Every POST that creates money movement requires an \`Idempotency-Key\`; a repeat answers the first answer with \`Idempotent-Replayed: true\`.

Errors share one envelope (\`components.schemas.Error\`):

${codesTable()}

Scopes: ${ALL_SCOPES.map((s) => `\`${s}\``).join(', ')}.`;

let built: Record<string, unknown> | undefined;

/** The document, built once per process from the request validators and the response schemas. */
export function openApiDocument(): Record<string, unknown> {
  built ??= {
    openapi: '3.1.0',
    info: { title: 'Payment engine API', version: '1', description: DESCRIPTION },
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    servers: [
      { url: 'http://{host}:{port}', description: 'Sandbox listener (PORT)', variables: { host: { default: '127.0.0.1' }, port: { default: '3000' } } },
      { url: 'http://{host}:{port}', description: 'Live listener (LIVE_PORT)', variables: { host: { default: '127.0.0.1' }, port: { default: '3001' } } },
    ],
    security: [{ bearerAuth: [] }],
    tags: ['Charges', 'Refunds', 'Payouts', 'Disputes', 'Settlements', 'Balances', 'Events', 'Webhooks', 'Reference', 'Sandbox', 'Meta'].map((name) => ({ name })),
    paths: paths(),
    webhooks: webhooksSection(),
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', description: 'The secret API key: `Authorization: Bearer svc_test_…` (sandbox) or `svc_live_…` (live).' } },
      schemas: {
        ...SCHEMAS,
        ...Object.fromEntries(OPERATIONS.map((op) => /^List<(\w+)>$/.exec(op.success.schema)?.[1]).filter((n): n is string => !!n).map((n) => [`${n}List`, listSchema(n)])),
      },
      parameters: { IdempotencyKey: IDEMPOTENCY_KEY, IdempotencyKeyRequired: { ...IDEMPOTENCY_KEY, required: true } },
      headers: Object.fromEntries(Object.entries(RESPONSE_HEADERS).map(([name, header]) => [name, { ...header }])),
      responses: Object.fromEntries(allErrorStatuses().map((status) => [`Error${status}`, errorResponse(status)])),
    },
  };
  return built;
}

function allErrorStatuses(): number[] {
  // 405 answers a method a path does not have (middleware/method-not-allowed.ts): no operation of the document.
  return [...new Set([...COMMON_ERRORS, ...OPERATIONS.flatMap((op) => op.errors ?? []), 405])].sort((a, b) => a - b);
}
