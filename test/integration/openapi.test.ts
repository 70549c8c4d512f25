import { createBodySchema } from '../../src/http/openapi/exact';
import { v1Routers } from '../../src/http/app';
import type { Environment } from '../../src/domain/environment';
import { ERROR_STATUS } from '../../src/domain/errors';
import { EVENT_TYPES } from '../../src/domain/event-types';
import { OPENAPI_PATH } from '../../src/http/openapi/document';
import { OPERATIONS } from '../../src/http/openapi/operations';
import { validateCreateCharge } from '../../src/http/schemas/create-charge';
import { validateCreatePayout } from '../../src/http/schemas/create-payout';
import { validateCreateRefund } from '../../src/http/schemas/create-refund';
import { validateDisputeEvidence } from '../../src/http/schemas/dispute-evidence';
import { validateListEvents } from '../../src/http/schemas/list-events';
import { validateOpenDispute } from '../../src/http/schemas/open-dispute';
import { validateCreateEndpoint, validateListQuery, validateUpdateEndpoint } from '../../src/http/schemas/webhook-endpoints';
import { INSTANT_PATTERN } from '../../src/services/list-filters';
import type { Resolver } from '../../src/webhooks/url-policy';
import { answersChecked, checkAnswer } from '../support/openapi-answers';
import { idempotencyKey, startHarness, type Harness, type TestMerchant } from '../support/harness';

/**
 * GET /v1/openapi.json (issue 21, "OpenAPI"): valid OpenAPI 3.1 on both listeners without a key, the
 * routes of `v1Routers` and the document's paths equal both ways, the request schemas the very ajv
 * ones, every header and error documented. Every answer of this file (and of every suite using the
 * harness) is checked against the document by test/support/openapi-answers.ts.
 */

type Doc = {
  openapi: string;
  paths: Record<string, Record<string, any>>;
  webhooks: Record<string, any>;
  components: Record<string, Record<string, any>>;
};

const resolve: Resolver = async () => ['93.184.215.14'];
let h: Harness;
let merchant: TestMerchant;
let doc: Doc;

beforeAll(async () => {
  h = await startHarness({ worker: false, resolve });
  merchant = await h.merchant({ verified: true });
  const res = await h.request('sandbox', 'GET', OPENAPI_PATH);
  expect(res.status).toBe(200);
  doc = res.json as Doc;
});
afterAll(() => h?.close());

const ENVS: Environment[] = ['sandbox', 'live'];
const METHODS = ['get', 'post', 'patch', 'delete', 'put'];

/** `METHOD /path/{id}` of every route a listener's v1Routers serve. */
function routesOf(environment: Environment): Set<string> {
  const out = new Set<string>();
  for (const router of v1Routers(h.deps, { environment, bodyLimitBytes: 64 * 1024 })) {
    for (const layer of router.stack) {
      const path = String(layer.path).replace(/:([A-Za-z_]+)/g, '{$1}');
      for (const method of layer.methods) if (method !== 'HEAD') out.add(`${method} ${path}`);
    }
  }
  return out;
}

function documented(filter: (op: any) => boolean = () => true): Set<string> {
  const out = new Set<string>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) if (METHODS.includes(method) && filter(op)) out.add(`${method.toUpperCase()} ${path}`);
  }
  return out;
}

const operations = () => Object.values(doc.paths).flatMap((item) => Object.entries(item).filter(([m]) => METHODS.includes(m)).map(([, op]) => op));

test.each(ENVS)('%s: GET /v1/openapi.json answers without a key, as JSON, with the headers of every /v1 answer', async (env) => {
  const res = await h.request(env, 'GET', OPENAPI_PATH);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.headers.get('request-id')).toMatch(/^req_/);
  expect(res.headers.get('cache-control')).toBe('no-store');
  expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  for (const name of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset']) expect(res.headers.get(name)).toMatch(/^\d+$/);
  expect(res.json).toEqual(doc);
  // With a key of either environment, the same document.
  expect((await h.request(env, 'GET', OPENAPI_PATH, { key: env === 'sandbox' ? merchant.testKey : merchant.liveKey })).json).toEqual(doc);
});

test('the document is valid OpenAPI 3.1 (@seriousme/openapi-schema-validator)', async () => {
  const { Validator } = await import('@seriousme/openapi-schema-validator');
  const validator = new Validator();
  const result = await validator.validate(structuredClone(doc) as never);
  expect(result).toEqual({ valid: true });
  expect(validator.version).toBe('3.1');
  expect(doc.openapi).toMatch(/^3\.1\./);
  // The validator does refuse a broken document (a parameter without its `in`).
  const broken = structuredClone(doc);
  delete broken.paths['/v1/charges/{id}'].get.parameters[0].in;
  expect((await new Validator().validate(broken as never)).valid).toBe(false);
});

test('every route of v1Routers (both listeners) is documented, and every documented operation is a route', () => {
  const sandbox = routesOf('sandbox');
  const live = routesOf('live');
  expect(sandbox.size).toBeGreaterThan(30);
  const served = new Set([...sandbox, ...live, `GET ${OPENAPI_PATH}`]);
  const inDocument = documented();
  expect([...served].filter((r) => !inDocument.has(r)).sort()).toEqual([]); // routes without a document
  expect([...inDocument].filter((r) => !served.has(r)).sort()).toEqual([]); // documents without a route
  // Sandbox-only operations are exactly the routes the live listener does not serve.
  const sandboxOnly = [...sandbox].filter((r) => !live.has(r)).sort();
  expect(sandboxOnly.length).toBeGreaterThan(0);
  expect([...documented((op) => op['x-sandbox-only'] === true)].sort()).toEqual(sandboxOnly);
  expect([...live].filter((r) => !sandbox.has(r))).toEqual([]);
});

test('request bodies and query schemas are the very objects ajv validates with', () => {
  const bodyOf = (method: string, path: string) => doc.paths[path][method].requestBody.content['application/json'].schema;
  // The document's body is the validator's schema with the rules the routes add around it (exact.ts).
  expect(bodyOf('post', '/v1/charges')).toEqual(createBodySchema('createCharge', validateCreateCharge.schema));
  expect(bodyOf('post', '/v1/payouts')).toEqual(createBodySchema('createPayout', validateCreatePayout.schema));
  expect(bodyOf('post', '/v1/refunds')).toEqual(createBodySchema('createRefund', validateCreateRefund.schema));
  expect(bodyOf('post', '/v1/disputes/{id}/evidence')).toEqual(createBodySchema('submitDisputeEvidence', validateDisputeEvidence.schema));
  expect(bodyOf('post', '/v1/sandbox/charges/{id}/disputes')).toEqual(createBodySchema('sandboxOpenDispute', validateOpenDispute.schema));
  expect(bodyOf('post', '/v1/webhook-endpoints')).toEqual(createBodySchema('createWebhookEndpoint', validateCreateEndpoint.schema));
  expect(bodyOf('patch', '/v1/webhook-endpoints/{id}')).toEqual(createBodySchema('updateWebhookEndpoint', validateUpdateEndpoint.schema));
  for (const op of OPERATIONS.filter((o) => o.body)) expect(bodyOf(op.method, op.path)).toEqual(createBodySchema(op.id, op.body!.schema));
  const withBody = documented((op) => op.requestBody !== undefined);
  expect([...withBody].sort()).toEqual(OPERATIONS.filter((o) => o.body).map((o) => `${o.method.toUpperCase()} ${o.path}`).sort());

  const queryOf = (method: string, path: string) =>
    Object.fromEntries(doc.paths[path][method].parameters.filter((p: any) => p.in === 'query').map((p: any) => [p.name, p.schema]));
  // The validators' query schemas, the opaque cursor marked as such (scripts/schemathesis_hooks.py).
  const opaque = (properties: any) => ({ ...properties, cursor: { ...properties.cursor, 'x-opaque-token': true } });
  expect(queryOf('get', '/v1/events')).toEqual(opaque((validateListEvents.schema as any).properties));
  expect(queryOf('get', '/v1/webhook-endpoints/{id}/deliveries')).toEqual(opaque((validateListQuery.schema as any).properties));
  // A request schema changed at run time would show: the document is built from the same objects.
  expect(OPERATIONS.find((o) => o.id === 'createCharge')!.body).toBe(validateCreateCharge);
});

test('the event-type filters are repeated array parameters of exactly the known types; the deliveries\' time range is the charge list\'s', () => {
  const parameterOf = (method: string, path: string, name: string) => doc.paths[path][method].parameters.find((p: any) => p.name === name);
  const types = EVENT_TYPES.map((t) => t.type);
  const arrayOfTypes = { type: 'array', minItems: 1, maxItems: types.length, uniqueItems: true, items: { type: 'string', enum: types } };
  for (const [path, name] of [['/v1/events', 'type'], ['/v1/webhook-endpoints/{id}/deliveries', 'event_type']]) {
    const parameter = parameterOf('get', path, name);
    expect(parameter).toMatchObject({ name, in: 'query', style: 'form', explode: true, schema: arrayOfTypes });
    expect(parameter.description).toContain(`${name}=transaction.succeeded&${name}=refund.succeeded`);
    expect(parameter.description).toMatch(/comma-separated list is not read/);
  }
  // Only array parameters are `form`/`explode`; every other query parameter is one value.
  for (const op of operations()) {
    for (const p of (op.parameters ?? []).filter((p: any) => p.in === 'query')) expect([op.operationId, p.name, p.explode === true]).toEqual([op.operationId, p.name, p.schema.type === 'array']);
  }
  const deliveries = doc.paths['/v1/webhook-endpoints/{id}/deliveries'].get;
  for (const name of ['created_after', 'created_before']) {
    expect(parameterOf('get', '/v1/webhook-endpoints/{id}/deliveries', name).schema).toEqual({ type: 'string', pattern: INSTANT_PATTERN });
    expect(parameterOf('get', '/v1/charges', name).schema).toEqual({ type: 'string', pattern: INSTANT_PATTERN });
  }
  expect(deliveries['x-ordered-parameters']).toEqual([['created_after', 'created_before']]);
  expect(deliveries.parameters.map((p: any) => p.name)).toEqual(['id', 'limit', 'cursor', 'status', 'event_type', 'created_after', 'created_before']);
  // The endpoint list takes none of the deliveries' filters.
  expect(doc.paths['/v1/webhook-endpoints'].get.parameters.map((p: any) => p.name)).toEqual(['limit', 'cursor']);
  expect(doc.paths['/v1/events'].get.parameters.map((p: any) => p.name)).toEqual(['after_sequence', 'cursor', 'limit', 'type']);
  expect(doc.paths['/v1/events'].get.description).toMatch(/With `type`, each walk answers only the events of those types/);
});

test('filtered lists: the answers, 200 and 400, match the document', async () => {
  const key = merchant.testKey;
  const checkedBefore = answersChecked();
  const created = await h.request('sandbox', 'POST', '/v1/webhook-endpoints', { key, body: { url: 'https://hooks.example.com/openapi-filters' } });
  expect(created.status).toBe(201);
  const deliveries = `/v1/webhook-endpoints/${created.json.id}/deliveries`;
  for (const path of [
    '/v1/events?type=transaction.created&type=refund.succeeded',
    '/v1/events?after_sequence=0&type=payout.failed&limit=5',
    `${deliveries}?event_type=transaction.succeeded&event_type=transaction.failed&created_after=2026-01-01&created_before=2026-12-31T23:59:59.999999%2B14:00`,
  ]) {
    expect([path, (await h.request('sandbox', 'GET', path, { key })).status]).toEqual([path, 200]);
  }
  for (const [path, param] of [
    ['/v1/events?type=transaction.created,refund.succeeded', 'type'],
    [`${deliveries}?event_type=nope`, 'event_type'],
    [`${deliveries}?created_after=2026-02-29`, 'created_after'],
    ['/v1/webhook-endpoints?event_type=transaction.created', 'event_type'],
  ]) {
    const res = await h.request('sandbox', 'GET', path, { key });
    expect([path, res.status, res.json.error.param]).toEqual([path, 400, param]);
  }
  expect(answersChecked() - checkedBefore).toBe(8);
});

test('headers: Request-Id and RateLimit-* on every answer, Retry-After on 429 and 503, Idempotency-Key on money creates', () => {
  const refOf = (response: any) => (response.$ref ? doc.components.responses[response.$ref.split('/').pop()] : response);
  for (const op of operations()) {
    for (const [status, response] of Object.entries(op.responses)) {
      const headers = Object.keys(refOf(response).headers ?? {});
      expect({ op: op.operationId, status, headers }).toEqual({ op: op.operationId, status, headers: expect.arrayContaining(['Request-Id', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']) });
      if (status === '429' || status === '503') expect(headers).toContain('Retry-After');
    }
  }
  const idempotent = (name: string) => documented((op) => (op.parameters ?? []).some((p: any) => p.$ref === `#/components/parameters/${name}`));
  expect([...idempotent('IdempotencyKeyRequired')].sort()).toEqual(['POST /v1/charges', 'POST /v1/payouts', 'POST /v1/refunds', 'POST /v1/sandbox/charges/{id}/disputes']);
  expect([...idempotent('IdempotencyKey')].sort()).toEqual(['POST /v1/webhook-deliveries/{id}/replay', 'POST /v1/webhook-endpoints/{id}/recover']);
  expect(doc.components.parameters.IdempotencyKeyRequired).toMatchObject({ name: 'Idempotency-Key', in: 'header', required: true });
  expect(Object.keys(doc.paths['/v1/charges'].post.responses[200].headers)).toContain('Idempotent-Replayed');
  expect(doc.components.parameters.IdempotencyKey).toMatchObject({ name: 'Idempotency-Key', in: 'header' });
  expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
});

test('errors: every code of the table is documented with its status, in the one envelope', () => {
  const documentedCodes = new Map<string, number>();
  for (const [name, response] of Object.entries(doc.components.responses)) {
    const status = Number(name.replace('Error', ''));
    const schema = response.content['application/json'].schema;
    expect(schema.allOf[0]).toEqual({ $ref: '#/components/schemas/Error' });
    for (const code of schema.allOf[1].properties.error.properties.code.enum) documentedCodes.set(code, status);
  }
  expect(Object.fromEntries(documentedCodes)).toEqual(ERROR_STATUS);
  expect(doc.components.schemas.Error.properties.error.required).toEqual(expect.arrayContaining(['type', 'code', 'message', 'request_id']));
  expect(Object.keys(doc.paths['/v1/charges'].post.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '403', '404', '409', '413', '422', '429', '500', '503', '504']));
});

test('webhooks: one delivery per event type, with the signature headers the engine sends', () => {
  expect(Object.keys(doc.webhooks).sort()).toEqual(EVENT_TYPES.map((t) => t.type).sort());
  for (const [type, item] of Object.entries(doc.webhooks)) {
    const names = item.post.parameters.map((p: any) => p.name);
    expect(names).toEqual(expect.arrayContaining(['X-Service-Signature', 'X-Service-Timestamp', 'X-Service-Event-Id', 'X-Service-Event-Type', 'X-Service-Delivery-Id', 'X-Service-Sequence', 'X-Service-Attempt']));
    expect(item.post.requestBody.content['application/json'].schema.allOf[1].properties.type).toEqual({ const: type });
  }
});

test('real answers of many routes, successes and errors, match the documented schemas', async () => {
  const key = merchant.testKey;
  const seen = new Set<string>();
  const checkedBefore = answersChecked();
  const call = async (method: string, path: string, opts: { body?: unknown; headers?: Record<string, string>; key?: string | null } = {}) => {
    const res = await h.request('sandbox', method, path, { key: opts.key === null ? undefined : (opts.key ?? key), body: opts.body, headers: opts.headers });
    seen.add(`${method} ${res.status}`);
    return res; // h.request has checked it against the document
  };
  for (const path of ['/v1/charges', '/v1/payouts', '/v1/refunds', '/v1/disputes', '/v1/settlements', '/v1/balances', '/v1/balance-transactions', '/v1/events', '/v1/event-types', '/v1/webhook-endpoints']) {
    expect((await call('GET', path)).status).toBe(200);
  }
  for (const name of ['momo-networks', 'banks', 'currencies', 'countries']) expect((await call('GET', `/v1/reference/${name}`)).status).toBe(200);
  expect((await call('GET', '/v1/events?after_sequence=0&limit=5')).status).toBe(200);
  expect((await call('GET', '/v1/charges?status=nope')).status).toBe(400);
  expect((await call('GET', '/v1/charges/txn_000000000000000000000000')).status).toBe(404);
  expect((await call('GET', '/v1/balances', { key: null })).status).toBe(401);
  expect((await call('POST', '/v1/charges', { body: { amount: 1 } })).status).toBe(400);
  expect((await call('POST', '/v1/charges', { body: { amount: 1 }, headers: { 'Idempotency-Key': idempotencyKey() } })).status).toBe(400);
  expect((await call('POST', '/v1/sandbox/advance/txn_000000000000000000000000')).status).toBe(404);

  const created = await call('POST', '/v1/webhook-endpoints', { body: { url: 'https://hooks.example.com/openapi', subscribed_events: ['transaction.succeeded'] } });
  expect(created.status).toBe(201);
  const id = created.json.id as string;
  expect((await call('GET', `/v1/webhook-endpoints/${id}`)).status).toBe(200);
  expect((await call('PATCH', `/v1/webhook-endpoints/${id}`, { body: { description: 'documented' } })).status).toBe(200);
  expect((await call('POST', `/v1/webhook-endpoints/${id}/rotate-secret`)).status).toBe(200);
  expect((await call('GET', `/v1/webhook-endpoints/${id}/deliveries?status=failed`)).status).toBe(200);
  expect((await call('DELETE', `/v1/webhook-endpoints/${id}`)).status).toBe(200);
  // Each of those answers went through the harness's check (test/support/openapi-answers.ts).
  expect(answersChecked() - checkedBefore).toBe(27);
  expect([...seen]).toEqual(expect.arrayContaining(['GET 200', 'GET 400', 'GET 404', 'GET 401', 'POST 400', 'POST 201', 'PATCH 200', 'DELETE 200']));
});

test('the answer check fails on a body or a status the document does not allow, naming the route', () => {
  const headers = new Headers({ 'request-id': 'req_x' });
  expect(() => checkAnswer('GET', '/v1/balances', 200, { object: 'balance', livemode: false, available: [], pending: [], reserved: [] }, headers)).not.toThrow();
  expect(() => checkAnswer('GET', '/v1/balances', 200, { object: 'balance', available: 'none' }, headers)).toThrow(/GET \/v1\/balances .*200.*livemode|GET \/v1\/balances .*200/);
  expect(() => checkAnswer('GET', '/v1/charges/txn_1', 200, { object: 'charge' }, headers)).toThrow(/GET \/v1\/charges\/\{id\}/);
  expect(() => checkAnswer('GET', '/v1/balances', 418, {}, headers)).toThrow(/418, a status the document does not list/);
  expect(() => checkAnswer('POST', '/v1/charges', 404, { error: { type: 'invalid_request_error', code: 'insufficient_balance', message: 'x', request_id: 'req_x' } }, headers)).toThrow(/POST \/v1\/charges/);
});

test('a known path asked with a method it does not have: 405 method_not_allowed with Allow; OPTIONS 204 with Allow; an unknown path 404', async () => {
  const ask = (method: string, path: string) => fetch(h.urls.sandbox + path, { method, headers: { authorization: `Bearer ${merchant.testKey}` } });
  for (const method of ['PUT', 'DELETE', 'PATCH']) {
    const res = await ask(method, '/v1/balances');
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')?.split(', ').sort()).toEqual(['GET', 'HEAD']);
    const body = (await res.json()) as { error: { code: string; message: string; request_id: string } };
    expect(body.error).toMatchObject({ code: 'method_not_allowed', request_id: res.headers.get('request-id') });
    expect(body.error.message).toContain('GET');
  }
  const charges = await ask('PUT', '/v1/charges');
  expect(charges.status).toBe(405);
  expect(charges.headers.get('allow')?.split(', ')).toEqual(expect.arrayContaining(['GET', 'POST']));
  const options = await ask('OPTIONS', '/v1/charges');
  expect(options.status).toBe(204);
  expect(options.headers.get('allow')?.split(', ')).toEqual(expect.arrayContaining(['GET', 'POST']));
  expect((await ask('PUT', '/v1/no-such-thing')).status).toBe(404);
  expect(doc.components.responses.Error405).toBeDefined();
});

test('text fields say the control-character rule the API applies, nullable ones too (schemathesis found PATCH description without it)', async () => {
  const patch = doc.paths['/v1/webhook-endpoints/{id}'].patch.requestBody.content['application/json'].schema;
  const description = patch.properties.description;
  expect(description.type).toEqual(['string', 'null']);
  const pattern = new RegExp(description.pattern, 'u');
  expect(pattern.test('a\rb')).toBe(false);
  expect(pattern.test('line one\nline two\ttabbed')).toBe(true);
  const created = await h.request('sandbox', 'POST', '/v1/webhook-endpoints', { key: merchant.testKey, body: { url: 'https://hooks.example.com/ctl', subscribed_events: ['transaction.succeeded'] } });
  expect(created.status).toBe(201);
  const refused = await h.request('sandbox', 'PATCH', `/v1/webhook-endpoints/${created.json.id}`, { key: merchant.testKey, body: { description: 'a\rb' } });
  expect(refused.status).toBe(400);
});
