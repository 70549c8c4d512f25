/**
 * The event log over HTTP (SPEC 2.2, 4.10, 4.11; INTERFACE "Objects"): both listing modes, paging,
 * gaplessness, and that every listed event is byte for byte the stored (signed) body whose `data` is
 * the charge as the API showed it.
 */
import { chargeBody, idempotencyKey, startHarness, type ApiResponse, type Harness, type TestMerchant, PAYMENT_QUEUES } from '../support/harness';
import type { Environment } from '../../src/domain/environment';
import { issueKey } from '../../src/persistence/merchants/merchant-store';
import { writeLiveCharge } from '../support/live-charge';

let h: Harness;
let merchant: TestMerchant;
let other: TestMerchant;
const leftRunning: string[] = [];

/** What each charge of the fixture looked like through the API. */
interface Seen {
  id: string;
  metadataText: string;
  createText: string;
  /** GET text once the charge reached its final (or, for the pending one, current) state. */
  laterText: string;
}
const seen: Record<string, Seen> = {};
/** Events of `merchant` in the sandbox: 3 succeeded (2 each), 2 declined (2 each), 1 pending (1). */
const N = 3 * 2 + 2 * 2 + 1;

function create(key: string, body: Record<string, unknown>, env: Environment = 'sandbox'): Promise<ApiResponse> {
  return h.request(env, 'POST', '/v1/charges', { key, body, headers: { 'Idempotency-Key': idempotencyKey() } });
}

const list = (query: string, key = merchant.testKey, env: Environment = 'sandbox') => h.request(env, 'GET', `/v1/events${query}`, { key });

/** The raw text of the `data` array of a list response, without its brackets. */
function dataSlice(res: ApiResponse): string {
  const head = '{"object":"list","data":[';
  expect(res.text.startsWith(head)).toBe(true);
  const end = res.text.lastIndexOf('],"has_more":');
  expect(end).toBeGreaterThanOrEqual(head.length - 1);
  return res.text.slice(head.length, end);
}

/** The raw `data` member of a stored event body (it is the last member of the envelope). */
function dataOfBody(body: string): string {
  const at = body.indexOf(',"data":');
  expect(at).toBeGreaterThan(0);
  expect(body.endsWith('}')).toBe(true);
  return body.slice(at + ',"data":'.length, -1);
}

async function storedEvents(merchantId: string, env: Environment = 'sandbox') {
  const rows = await h.orm.em
    .getConnection()
    .execute<{ sequence: string; body: string; type: string; resource_id: string }[]>(
      `select sequence::text as sequence, body, type, resource_id from events where merchant_id = ? and environment = ? order by events.sequence`,
      [merchantId, env],
    );
  return rows.map((r) => ({ ...r, sequence: Number(r.sequence) }));
}

async function chargeThatSettles(name: string, metadata: Record<string, unknown>): Promise<void> {
  const created = await create(merchant.testKey, chargeBody({ metadata, reference: name }));
  expect(created.status).toBe(200);
  await h.settled(created.json.id);
  const later = await h.request('sandbox', 'GET', `/v1/charges/${created.json.id}`, { key: merchant.testKey });
  seen[name] = { id: created.json.id, metadataText: JSON.stringify(metadata), createText: created.text, laterText: later.text };
}

beforeAll(async () => {
  h = await startHarness({ queues: PAYMENT_QUEUES });
  merchant = await h.merchant({ verified: true });
  other = await h.merchant();
  const rich = (i: number) => ({ order: `A-${i}`, zeta: i, alpha: { y: true, x: [3, 1, 2] }, note: 'café ✓ "quoted"', empty: {} });
  await Promise.all([
    chargeThatSettles('s1', rich(1)),
    chargeThatSettles('s2', rich(2)),
    chargeThatSettles('s3', rich(3)),
    chargeThatSettles('d1', { sandbox_outcome: 'declined', zeta: 1, alpha: 2 }),
    chargeThatSettles('d2', { sandbox_outcome: 'declined', zeta: 1, alpha: 2 }),
    (async () => {
      const metadata = { sandbox_outcome: 'pending', b: 1, a: 2 };
      const created = await create(merchant.testKey, chargeBody({ metadata, reference: 'p1' }));
      expect(created.status).toBe(200);
      leftRunning.push(created.json.id);
      const now = await h.request('sandbox', 'GET', `/v1/charges/${created.json.id}`, { key: merchant.testKey });
      seen.p1 = { id: created.json.id, metadataText: JSON.stringify(metadata), createText: created.text, laterText: now.text };
    })(),
    // Other accounts: another merchant, and this merchant's live environment.
    (async () => {
      const c = await create(other.testKey, chargeBody({ metadata: { sandbox_outcome: 'declined' } }));
      await h.settled(c.json.id);
    })(),
    (async () => {
      // No live rail: the live charge is written as the API would (test/support/live-charge.ts).
      const c = await writeLiveCharge(h, merchant);
      await h.settled(c.id);
    })(),
  ]);
});

afterAll(async () => {
  for (const id of leftRunning) await h.temporal.client.workflow.getHandle(id).terminate('test finished').catch(() => undefined);
  await h?.close();
});

test('the stored log is gapless from 1 and holds created + terminal events per charge', async () => {
  const stored = await storedEvents(merchant.id);
  expect(stored.map((e) => e.sequence)).toEqual(Array.from({ length: N }, (_, i) => i + 1));
  const byCharge = (id: string) => stored.filter((e) => e.resource_id === id).map((e) => e.type);
  for (const name of ['s1', 's2', 's3']) expect(byCharge(seen[name].id)).toEqual(['transaction.created', 'transaction.succeeded']);
  for (const name of ['d1', 'd2']) expect(byCharge(seen[name].id)).toEqual(['transaction.created', 'transaction.failed']);
  expect(byCharge(seen.p1.id)).toEqual(['transaction.created']);
});

describe('after_sequence: oldest first', () => {
  test('from 0: every event, in order, each byte for byte the stored body', async () => {
    const stored = await storedEvents(merchant.id);
    const res = await list('?after_sequence=0&limit=100');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(dataSlice(res)).toBe(stored.map((e) => e.body).join(','));
    expect(res.json.has_more).toBe(false);
    expect(res.json.data.map((e: { sequence: number }) => e.sequence)).toEqual(stored.map((e) => e.sequence));
    for (const [i, event] of (res.json.data as Array<Record<string, unknown>>).entries()) {
      expect(event).toMatchObject({ object: 'event', type: stored[i].type, resource_type: 'transaction', resource_id: stored[i].resource_id, transaction_id: stored[i].resource_id });
      expect(event.id).toMatch(/^evt_/);
      expect(new Date(event.created_at as string).toISOString()).toBe(event.created_at);
    }
  });

  test('starts strictly after the given sequence and is gapless', async () => {
    const res = await list('?after_sequence=4&limit=100');
    expect(res.status).toBe(200);
    expect(res.json.data.map((e: { sequence: number }) => e.sequence)).toEqual(Array.from({ length: N - 4 }, (_, i) => i + 5));
    expect(res.json.has_more).toBe(false);
  });

  test('limit and has_more page through the whole log', async () => {
    const stored = await storedEvents(merchant.id);
    const walked: number[] = [];
    let after = 0;
    let pages = 0;
    for (;;) {
      const res = await list(`?after_sequence=${after}&limit=3`);
      expect(res.status).toBe(200);
      const seqs: number[] = res.json.data.map((e: { sequence: number }) => e.sequence);
      expect(dataSlice(res)).toBe(stored.filter((e) => seqs.includes(e.sequence)).map((e) => e.body).join(','));
      walked.push(...seqs);
      pages += 1;
      if (!res.json.has_more) {
        expect(seqs.length).toBeLessThanOrEqual(3);
        break;
      }
      expect(seqs).toHaveLength(3);
      after = seqs[seqs.length - 1];
      expect(pages).toBeLessThan(20);
    }
    expect(pages).toBe(Math.ceil(N / 3));
    expect(walked).toEqual(Array.from({ length: N }, (_, i) => i + 1));
  });

  test('after the last sequence: empty, no more', async () => {
    const res = await list(`?after_sequence=${N}`);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ object: 'list', data: [], has_more: false });
  });

  test('an exact page boundary reports has_more correctly', async () => {
    const res = await list(`?after_sequence=${N - 2}&limit=2`);
    expect(res.json.data.map((e: { sequence: number }) => e.sequence)).toEqual([N - 1, N]);
    expect(res.json.has_more).toBe(false);
    const before = await list(`?after_sequence=${N - 3}&limit=2`);
    expect(before.json.has_more).toBe(true);
  });
});

describe('newest first with a cursor', () => {
  test('default page is the 10 newest, with a cursor', async () => {
    const res = await list('');
    expect(res.status).toBe(200);
    expect(res.json.data.map((e: { sequence: number }) => e.sequence)).toEqual(Array.from({ length: 10 }, (_, i) => N - i));
    expect(res.json.has_more).toBe(true);
    expect(typeof res.json.next_cursor).toBe('string');
  });

  test('next_cursor pages cover every event exactly once, newest first, byte for byte', async () => {
    const stored = await storedEvents(merchant.id);
    const bySequence = new Map(stored.map((e) => [e.sequence, e.body]));
    const walked: number[] = [];
    let cursor: string | undefined;
    for (let pages = 0; ; pages++) {
      expect(pages).toBeLessThan(20);
      const res = await list(`?limit=4${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status).toBe(200);
      const seqs: number[] = res.json.data.map((e: { sequence: number }) => e.sequence);
      expect(dataSlice(res)).toBe(seqs.map((s) => bySequence.get(s)).join(','));
      walked.push(...seqs);
      if (!res.json.has_more) {
        expect(res.json.next_cursor).toBeUndefined();
        break;
      }
      expect(seqs).toHaveLength(4);
      cursor = res.json.next_cursor;
      expect(typeof cursor).toBe('string');
    }
    expect(walked).toEqual(Array.from({ length: N }, (_, i) => N - i));
  });

  test('the two modes cannot be combined; bad limits and cursors are refused', async () => {
    const first = await list('?limit=2');
    const both = await list(`?after_sequence=0&cursor=${first.json.next_cursor}`);
    expect(both.status).toBe(400);
    expect(both.json.error.code).toBe('invalid_request');
    for (const q of ['?limit=0', '?limit=101', '?after_sequence=-1', '?after_sequence=abc', '?cursor=not-a-cursor']) {
      const res = await list(q);
      expect([q, res.status]).toEqual([q, 400]);
      expect(res.json.error.code).toBe('invalid_request');
    }
  });
});

describe('type: only events of the given types', () => {
  const seqs = (res: ApiResponse): number[] => res.json.data.map((e: { sequence: number }) => e.sequence);
  const ofTypes = async (...types: string[]) => (await storedEvents(merchant.id)).filter((e) => types.includes(e.type));

  /** Every page of `query` oldest first (after_sequence) or newest first (cursor), with the pages' sizes. */
  async function walk(query: string, mode: 'after_sequence' | 'cursor'): Promise<{ walked: number[]; sizes: number[]; texts: string[] }> {
    const walked: number[] = [];
    const sizes: number[] = [];
    const texts: string[] = [];
    let position = mode === 'after_sequence' ? '&after_sequence=0' : '';
    for (let pages = 0; ; pages++) {
      expect(pages).toBeLessThan(20);
      const res = await list(`?${query}${position}`);
      expect(res.status).toBe(200);
      walked.push(...seqs(res));
      sizes.push(seqs(res).length);
      texts.push(dataSlice(res));
      if (!res.json.has_more) {
        expect(res.json.next_cursor).toBeUndefined();
        return { walked, sizes, texts };
      }
      position = mode === 'after_sequence' ? `&after_sequence=${walked[walked.length - 1]}` : `&cursor=${res.json.next_cursor}`;
    }
  }

  test('oldest first: one type, paged by after_sequence across pages, each event byte for byte', async () => {
    const created = await ofTypes('transaction.created');
    expect(created).toHaveLength(6);
    const { walked, sizes, texts } = await walk('type=transaction.created&limit=4', 'after_sequence');
    expect(walked).toEqual(created.map((e) => e.sequence));
    expect(sizes).toEqual([4, 2]);
    expect(texts.join(',')).toBe(created.map((e) => e.body).join(','));
  });

  test('newest first: two types, paged by next_cursor across pages', async () => {
    const terminal = await ofTypes('transaction.succeeded', 'transaction.failed');
    expect(terminal).toHaveLength(5);
    const { walked, sizes, texts } = await walk('type=transaction.succeeded&type=transaction.failed&limit=2', 'cursor');
    expect(walked).toEqual(terminal.map((e) => e.sequence).reverse());
    expect(sizes).toEqual([2, 2, 1]);
    expect(texts.join(',')).toBe([...terminal].reverse().map((e) => e.body).join(','));
    // The two types oldest first, in one page: the order of the log, the types interleaved.
    const both = await list('?after_sequence=0&type=transaction.failed&type=transaction.succeeded&limit=100');
    expect(seqs(both)).toEqual(terminal.map((e) => e.sequence));
  });

  test('with limit: the first page of a filtered walk has `limit` events and says there are more', async () => {
    const succeeded = await ofTypes('transaction.succeeded');
    const newest = await list('?type=transaction.succeeded&limit=1');
    expect(seqs(newest)).toEqual([succeeded[2].sequence]);
    expect(newest.json.has_more).toBe(true);
    expect(typeof newest.json.next_cursor).toBe('string');
    const oldest = await list('?after_sequence=0&type=transaction.succeeded&limit=2');
    expect(seqs(oldest)).toEqual([succeeded[0].sequence, succeeded[1].sequence]);
    expect(oldest.json.has_more).toBe(true);
    // A page that ends on the type's last event: no more, though later events of other types exist.
    const last = await list(`?after_sequence=${succeeded[1].sequence}&type=transaction.succeeded&limit=1`);
    expect(seqs(last)).toEqual([succeeded[2].sequence]);
    expect(last.json.has_more).toBe(false);
  });

  test('a type with no events: an empty page in both walks; another merchant\'s and the live events stay out', async () => {
    expect((await list('?after_sequence=0&type=payout.succeeded')).json).toEqual({ object: 'list', data: [], has_more: false });
    expect((await list('?type=refund.succeeded&type=payout.failed')).json).toEqual({ object: 'list', data: [], has_more: false });
    const others = await list('?after_sequence=0&type=transaction.failed', other.testKey);
    expect(others.json.data.map((e: { sequence: number; type: string }) => [e.sequence, e.type])).toEqual([[2, 'transaction.failed']]);
    const live = await list('?type=transaction.created', merchant.liveKey, 'live');
    expect(live.json.data.map((e: { sequence: number; type: string }) => [e.sequence, e.type])).toEqual([[1, 'transaction.created']]);
  });

  test.each([
    ['an unknown type', '?type=transaction.paid'],
    ['an unknown type among known ones', '?type=transaction.created&type=nope'],
    ['a comma-separated list (not read)', '?type=transaction.created,transaction.failed'],
    ['an empty type', '?type='],
    ['a type given twice', '?type=transaction.created&type=transaction.created'],
    ['an unknown type, oldest first', '?after_sequence=0&type=Transaction.Created'],
    ['a control character', '?type=transaction.created%00'],
  ])('%s: 400 invalid_request on type, and the log is unchanged', async (_name, query) => {
    const before = await storedEvents(merchant.id);
    const res = await list(query);
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_request', param: 'type' });
    expect(res.json.error.request_id).toMatch(/^req_/);
    expect(await storedEvents(merchant.id)).toEqual(before);
  });

  test('the messages say what a type is and how to send several', async () => {
    const unknown = await list('?type=transaction.created,transaction.failed');
    expect(unknown.json.error.message).toBe(
      'type must be an event type of GET /v1/event-types; for several, repeat the parameter (type=transaction.succeeded&type=refund.succeeded): a comma-separated list is not read.',
    );
    expect((await list('?type=transaction.created&type=transaction.created')).json.error.message).toBe('type names transaction.created twice: give each event type once.');
  });
});

describe('event data', () => {
  async function eventFor(chargeId: string, type: string) {
    const event = (await storedEvents(merchant.id)).find((e) => e.resource_id === chargeId && e.type === type);
    expect(event).toBeDefined();
    return event!;
  }

  test('transaction.created data is the create response, byte for byte', async () => {
    // Charges that stay in flight after create (immediate failures are covered in outcomes.test.ts).
    for (const name of ['s1', 's2', 's3', 'p1']) {
      const event = await eventFor(seen[name].id, 'transaction.created');
      expect([name, dataOfBody(event.body)]).toEqual([name, seen[name].createText]);
    }
  });

  test('the terminal event data is the charge as GET returned it afterwards', async () => {
    for (const name of ['s1', 's2', 's3']) expect(dataOfBody((await eventFor(seen[name].id, 'transaction.succeeded')).body)).toBe(seen[name].laterText);
    for (const name of ['d1', 'd2']) expect(dataOfBody((await eventFor(seen[name].id, 'transaction.failed')).body)).toBe(seen[name].laterText);
  });

  test('an in-flight charge’s created event matches what GET shows now', async () => {
    expect(dataOfBody((await eventFor(seen.p1.id, 'transaction.created')).body)).toBe(seen.p1.laterText);
    expect(JSON.parse(seen.p1.laterText).status).toBe('awaiting_action');
  });

  test('merchant metadata comes back unchanged, key order included, in every event', async () => {
    const stored = await storedEvents(merchant.id);
    for (const s of Object.values(seen)) {
      const events = stored.filter((e) => e.resource_id === s.id);
      expect(events.length).toBeGreaterThan(0);
      for (const e of events) expect(e.body).toContain(`"metadata":${s.metadataText}}`);
    }
  });

  test('metadata with integer-like keys keeps the merchant’s key order', async () => {
    const m = await h.merchant();
    const rawMetadata = '{"zeta":"first","10":"ten","alpha":{"2":"two","b":"bee"}}';
    const rawBody = JSON.stringify(chargeBody({ metadata: {} })).replace('"metadata":{}', `"metadata":${rawMetadata}`);
    const created = await h.request('sandbox', 'POST', '/v1/charges', { key: m.testKey, rawBody, headers: { 'Idempotency-Key': idempotencyKey() } });
    expect(created.status).toBe(200);
    await h.settled(created.json.id);
    const fetched = await h.request('sandbox', 'GET', `/v1/charges/${created.json.id}`, { key: m.testKey });
    const stored = await storedEvents(m.id);
    expect(stored).toHaveLength(2);
    expect(created.text).toContain(`"metadata":${rawMetadata}`);
    expect(fetched.text).toContain(`"metadata":${rawMetadata}`);
    for (const e of stored) expect(e.body).toContain(`"metadata":${rawMetadata}`);
  });
});

describe('isolation', () => {
  test('another merchant and the live environment have their own sequences', async () => {
    const others = await list('?after_sequence=0', other.testKey);
    expect(others.json.data.map((e: { sequence: number; type: string }) => [e.sequence, e.type])).toEqual([
      [1, 'transaction.created'],
      [2, 'transaction.failed'],
    ]);
    const live = await list('?after_sequence=0', merchant.liveKey, 'live');
    expect(live.json.data.map((e: { sequence: number; type: string }) => [e.sequence, e.type])).toEqual([
      [1, 'transaction.created'],
      [2, 'transaction.failed'], // no live rail: partner_unavailable
    ]);
    const mine = new Set((await storedEvents(merchant.id)).map((e) => e.resource_id));
    for (const e of [...others.json.data, ...live.json.data]) expect(mine.has(e.resource_id)).toBe(false);
  });

  test('a key without events:read is refused', async () => {
    const narrow = await issueKey(h.orm, merchant.id, 'sandbox', ['charges:read']);
    const res = await list('?after_sequence=0', narrow.secret);
    expect(res.status).toBe(403);
    expect(res.json.error.code).toBe('insufficient_scope');
  });
});

test('GET /v1/event-types lists every SPEC 6.5 type with a description', async () => {
  const SPEC_TYPES = [
    'transaction.created',
    'transaction.succeeded',
    'transaction.failed',
    'transaction.expired',
    'transaction.reversed',
    'refund.succeeded',
    'refund.failed',
    'payout.initiated',
    'payout.succeeded',
    'payout.failed',
    'payout.reversed',
    'payout.held_for_review',
    'settlement.created',
    'settlement.paid',
    'settlement.failed',
    'dispute.opened',
    'dispute.evidence_required',
    'dispute.won',
    'dispute.lost',
  ];
  const res = await h.request('sandbox', 'GET', '/v1/event-types', { key: merchant.testKey });
  expect(res.status).toBe(200);
  expect(res.json.object).toBe('list');
  expect(res.json.has_more).toBe(false);
  const types = res.json.data.map((t: { type: string }) => t.type);
  expect(new Set(types).size).toBe(types.length);
  for (const type of SPEC_TYPES) expect(types).toContain(type);
  for (const t of res.json.data) {
    expect(typeof t.description).toBe('string');
    expect(t.description.trim().length).toBeGreaterThan(0);
  }
  const live = await h.request('live', 'GET', '/v1/event-types', { key: merchant.liveKey });
  expect(live.json.data).toEqual(res.json.data);
});
