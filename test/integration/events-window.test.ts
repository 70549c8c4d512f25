/**
 * Issue 34: the event log stays walkable for its window (SPEC 8: 90 days; EVENTS_WALK_WINDOW), and a
 * walk whose position is behind it is answered 410 `events_expired` in the error envelope (checked
 * against the OpenAPI document by the harness), never a page that silently skips events. Events are
 * never deleted; their ages are set in PostgreSQL (created_at).
 */
import type { Caller } from '../../src/services/context';
import { startHarness, type ApiResponse, type Harness } from '../support/harness';
import { answersChecked, checkAnswer } from '../support/openapi-answers';
import { emitEvent, sandboxCaller } from '../support/webhook-fixtures';

let h: Harness;
beforeAll(async () => {
  // The fixture's events carry a made-up `data` (webhook-fixtures.ts emitEvent), which the document's
  // Event schema would refuse: every error answer is checked against the document here instead (get).
  h = await startHarness({ worker: false, checkAnswers: false });
});
afterAll(() => h?.close());

/** A merchant with `total` events, the first `old` of them created 100 days ago. */
async function merchantWithEvents(total: number, old: number): Promise<{ caller: Caller; key: string }> {
  const m = await sandboxCaller(h.orm);
  for (let i = 0; i < total; i++) await emitEvent(h.orm, m.caller);
  await h.orm.em
    .getConnection()
    .execute(`update events set created_at = now() - interval '100 days' where merchant_id = ? and environment = 'sandbox' and sequence <= ?`, [m.caller.merchantId, old]);
  return m;
}

const sequences = (res: ApiResponse) => (res.json.data as Array<{ sequence: number }>).map((e) => e.sequence);
/** GET /v1/events; an error answer is checked against the OpenAPI document (status listed, envelope, code). */
async function get(key: string, query: string): Promise<ApiResponse> {
  const res = await h.request('sandbox', 'GET', `/v1/events${query}`, { key });
  if (res.status >= 400) {
    const before = answersChecked();
    checkAnswer('GET', `/v1/events${query}`, res.status, res.json, res.headers);
    expect(answersChecked()).toBe(before + 1);
  }
  return res;
}

test('after_sequence before the window: 410 events_expired naming where to go on; from there the walk is whole', async () => {
  const { key } = await merchantWithEvents(10, 6);
  for (const after of [0, 3, 5]) {
    const res = await get(key, `?after_sequence=${after}`);
    expect(res.status).toBe(410);
    expect(res.json.error).toMatchObject({ type: 'invalid_request_error', code: 'events_expired', param: 'after_sequence' });
    expect(res.json.error.message).toBe(`after_sequence ${after} is before the walkable window (90 days): the events after it are older than that; go on with after_sequence=6.`);
    expect(res.json.error.request_id).toMatch(/^req_/);
  }
  const resumed = await get(key, '?after_sequence=6&limit=100');
  expect(resumed.status).toBe(200);
  expect(sequences(resumed)).toEqual([7, 8, 9, 10]);
  // Caught up: nothing after it, nothing refused.
  const caughtUp = await get(key, '?after_sequence=10');
  expect(caughtUp.status).toBe(200);
  expect(sequences(caughtUp)).toEqual([]);
});

test('newest first: the first page is always answered, a page that begins inside the window whole; a cursor behind it is 410', async () => {
  const { key } = await merchantWithEvents(10, 6);
  const first = await get(key, '?limit=3');
  expect(first.status).toBe(200);
  expect(sequences(first)).toEqual([10, 9, 8]);
  // Begins at 7 (inside the window): answered whole, 6 and 5 included.
  const second = await get(key, `?limit=3&cursor=${first.json.next_cursor}`);
  expect(second.status).toBe(200);
  expect(sequences(second)).toEqual([7, 6, 5]);
  expect(second.json.has_more).toBe(true);
  const third = await get(key, `?limit=3&cursor=${second.json.next_cursor}`);
  expect(third.status).toBe(410);
  expect(third.json.error).toMatchObject({ code: 'events_expired', param: 'cursor' });
  expect(third.json.error.message).toMatch(/older than the walkable window \(90 days\): the newest-first walk ends here/);
});

test('every event older than the window: the walk from 0 is refused with the way on, the newest page still answered', async () => {
  const { key } = await merchantWithEvents(3, 3);
  const res = await get(key, '?after_sequence=0');
  expect(res.status).toBe(410);
  expect(res.json.error.message).toMatch(/no event after it is inside the window yet: walk on from the newest \(GET \/v1\/events without after_sequence\)/);
  const newest = await get(key, '');
  expect(newest.status).toBe(200);
  expect(sequences(newest)).toEqual([3, 2, 1]);
});

test('a walk by type: judged by its own next event; the after_sequence to go on from is the log\'s, and from it the filtered walk is whole', async () => {
  // 1–10 alternate created (odd) and succeeded (even); 1–6 are 100 days old; 11 (new) is a refund's.
  const m = await sandboxCaller(h.orm);
  for (let i = 1; i <= 10; i++) await emitEvent(h.orm, m.caller, i % 2 ? 'transaction.created' : 'transaction.succeeded');
  await emitEvent(h.orm, m.caller, 'refund.succeeded');
  await h.orm.em.getConnection().execute(`update events set created_at = now() - interval '100 days' where merchant_id = ? and environment = 'sandbox' and sequence <= 6`, [m.caller.merchantId]);
  const refused = await get(m.key, '?after_sequence=0&type=transaction.succeeded');
  expect(refused.status).toBe(410);
  expect(refused.json.error).toMatchObject({ code: 'events_expired', param: 'after_sequence' });
  // The message keeps the walk's filter: going on unfiltered would be another walk.
  expect(refused.json.error.message).toBe('after_sequence 0 is before the walkable window (90 days): the events after it are older than that; go on with after_sequence=6 and the same type parameter (type=transaction.succeeded).');
  const resumed = await get(m.key, '?after_sequence=6&type=transaction.succeeded&limit=100');
  expect(sequences(resumed)).toEqual([8, 10]);
  expect(sequences(await get(m.key, '?after_sequence=6&type=transaction.created'))).toEqual([7, 9]);
  // The position is behind the window, but the walk's next event (the first refund.succeeded) is inside it: answered.
  const refunds = await get(m.key, '?after_sequence=0&type=refund.succeeded');
  expect(refunds.status).toBe(200);
  expect(sequences(refunds)).toEqual([11]);
  // Newest first: the first page always; the page that would begin at 6 (old) is refused.
  const first = await get(m.key, '?type=transaction.succeeded&limit=2');
  expect(sequences(first)).toEqual([10, 8]);
  const next = await get(m.key, `?type=transaction.succeeded&limit=2&cursor=${first.json.next_cursor}`);
  expect(next.status).toBe(410);
  expect(next.json.error).toMatchObject({ code: 'events_expired', param: 'cursor' });
});

test('the OpenAPI document lists 410 events_expired for GET /v1/events and says what the window is', async () => {
  const doc = (await h.request('sandbox', 'GET', '/v1/openapi.json')).json;
  const op = doc.paths['/v1/events'].get;
  expect(op.responses['410']).toEqual({ $ref: '#/components/responses/Error410' });
  expect(doc.components.responses.Error410.content['application/json'].schema.allOf[1].properties.error.properties.code.enum).toEqual(['events_expired']);
  expect(op.description).toMatch(/EVENTS_WALK_WINDOW, default and at least 90 days.*410 `events_expired`/);
});
