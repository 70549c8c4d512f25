import { setTimeout as delay } from 'node:timers/promises';
import { issueKey } from '../../src/persistence/merchants/merchant-store';
import { listBanks } from '../../src/persistence/reference-store';
import { encodeListCursor } from '../../src/persistence/sql-values';
import { decidePayout } from '../../src/services/decide-payout';
import { describeLedgerProblems, ledgerCheck } from '../../src/services/ledger-check';
import { runSettlements } from '../../src/services/settlement-run';
import { applyChargeTransition } from '../../src/persistence/charges/charge-store';
import { expectError } from '../support/api-errors';
import { fundMerchant } from '../support/fund-merchant';
import { chargeBody, idempotencyKey, MTN_GH, startHarness, type ApiResponse, type Harness, type TestMerchant, PAYMENT_QUEUES } from '../support/harness';
import { expectBalancesMatchPostings } from '../support/ledger-rows';
import { accept, draftCharge, succeed } from '../support/stored-charges';

/**
 * GET /v1/balance-transactions end to end, against the suite's PostgreSQL and Temporal dev server with
 * the payments worker: a merchant's day (charges collected through the API and one reversed, test
 * funding, a partial refund, payouts succeeded, reversed, failed and held for review) whose balance
 * transactions, walked two at a time, add up to GET /v1/balances, available and reserved; types,
 * sources, the payout fee split, filters, strict errors, scope and environments. Then a merchant's
 * month with settlements (paid and failed) and disputes (open, won, lost) on top. Then
 * GET /v1/balance-transactions/{id} (each of the day's items; 404 for another merchant's, the other
 * environment's, unknown and malformed ids alike) and the `currency` filter (two currencies, paged,
 * combined with the other filters).
 */

interface Item {
  id: string;
  object: string;
  type: string;
  source: string;
  balance: 'available' | 'reserved';
  amount: number;
  fee: number;
  net: number;
  currency: string;
  created_at: string;
}

let h: Harness;
let m: TestMerchant;
/** The day's resources, as the API answered them at the end. */
const day: Record<string, any> = {};

beforeAll(async () => {
  h = await startHarness({ queues: PAYMENT_QUEUES });
  m = await h.merchant();
  await merchantsDay();
});
afterAll(async () => {
  if (h) {
    const report = await ledgerCheck(h.orm);
    await h.close();
    if (!report.ok) throw new Error(describeLedgerProblems(report));
  }
});

const get = (path: string, key = m.testKey, env: 'sandbox' | 'live' = 'sandbox') => h.request(env, 'GET', path, { key });
const post = (path: string, body: unknown, key = m.testKey) => h.request('sandbox', 'POST', path, { key, body, headers: { 'Idempotency-Key': idempotencyKey() } });

function ok(res: ApiResponse): any {
  if (res.status !== 200) throw new Error(`${res.status}: ${res.text}`);
  return res.json;
}

/** Fires the workflow's sandbox timers (completion, the reversal) until it has finished, then its result. */
async function finish(id: string, key = m.testKey): Promise<{ status: string }> {
  const handle = h.temporal.client.workflow.getHandle(id);
  for (let i = 0; i < 200; i++) {
    const res = await post(`/v1/sandbox/advance/${id}`, undefined, key);
    if (res.status === 200) continue;
    // 404: a settlement batch's row is written by its workflow's first step (the sweep).
    if (res.status !== 409 && res.status !== 404) throw new Error(`advance ${id}: ${res.status} ${res.text}`);
    if ((await handle.describe()).status.name !== 'RUNNING') return handle.result();
    // A failed settlement batch's run stays open, waiting for `settlements retry`.
    if (id.startsWith('stl_') && (await handle.query<{ needsAttention: boolean }>('chargeAttention')).needsAttention) return handle.query('settlementState');
    await delay(100); // not waiting on a timer yet (beginning, or writing a step)
  }
  throw new Error(`${id} did not finish`);
}

function payoutBody(amount: number, outcome?: string): Record<string, unknown> {
  return {
    amount,
    currency: 'GHS',
    channel: 'mobile_money',
    momo_network_id: MTN_GH,
    recipient: { identifier: '233241234567', name: 'Kofi Boateng' },
    reference: `day-${amount}`,
    ...(outcome ? { metadata: { sandbox_outcome: outcome } } : {}),
  };
}

async function merchantsDay(): Promise<void> {
  // Two charges collected through the API (their workflows), one stored charge reversed, test funding.
  const charges = [ok(await post('/v1/charges', chargeBody({ amount: 300_000 }))), ok(await post('/v1/charges', chargeBody({ amount: 120_000 })))];
  for (const c of charges) expect((await finish(c.id)).status).toBe('succeeded');
  const reversed = await accept(h.orm, draftCharge(m.id, 20_000));
  await succeed(h.orm, reversed.id);
  await applyChargeTransition(h.orm, { chargeId: reversed.id, to: 'reversed', failureClass: null, at: new Date().toISOString() });
  await fundMerchant(h, m.id, 50_000);

  const refund = ok(await post('/v1/refunds', { charge: charges[0].id, amount: 40_000 }));
  expect((await finish(refund.id)).status).toBe('succeeded');

  const paid = ok(await post('/v1/payouts', payoutBody(100_000)));
  const reversedPayout = ok(await post('/v1/payouts', payoutBody(50_000, 'reverse')));
  const failed = ok(await post('/v1/payouts', payoutBody(10_000, 'declined')));
  const held = ok(await post('/v1/payouts', payoutBody(20_000, 'held_for_review')));
  expect((await finish(paid.id)).status).toBe('succeeded');
  expect((await finish(reversedPayout.id)).status).toBe('reversed');
  expect((await finish(failed.id)).status).toBe('failed');
  expect(held.status).toBe('held_for_review');

  const charge = async (id: string) => ok(await get(`/v1/charges/${id}`));
  const payout = async (id: string) => ok(await get(`/v1/payouts/${id}`));
  Object.assign(day, {
    charges: await Promise.all(charges.map((c) => charge(c.id))),
    reversed: await charge(reversed.id),
    refund: ok(await get(`/v1/refunds/${refund.id}`)),
    paid: await payout(paid.id),
    reversedPayout: await payout(reversedPayout.id),
    failed: await payout(failed.id),
    held: await payout(held.id),
  });
}

/** Every item, walked with `limit` (and the query), checking each page's envelope. */
async function walk(query = '', limit = 2, key = m.testKey, env: 'sandbox' | 'live' = 'sandbox'): Promise<{ items: Item[]; pages: number }> {
  const items: Item[] = [];
  let cursor: string | undefined;
  for (let pages = 1; pages < 500; pages++) {
    const body = ok(await get(`/v1/balance-transactions?limit=${limit}${query}${cursor ? `&cursor=${cursor}` : ''}`, key, env));
    expect(body.object).toBe('list');
    expect(body.data.length).toBeLessThanOrEqual(limit);
    items.push(...body.data);
    if (!body.has_more) {
      expect(body).not.toHaveProperty('next_cursor');
      return { items, pages };
    }
    expect(body.data.length).toBe(limit);
    cursor = body.next_cursor;
  }
  throw new Error('the list did not end');
}

/** The nets per balance of GHS, and the balances as GET /v1/balances shows them. */
async function reconcile(items: Item[], key = m.testKey, env: 'sandbox' | 'live' = 'sandbox') {
  const balances = ok(await get('/v1/balances', key, env));
  const figure = (list: { currency: string; amount: number }[]) => list.find((b) => b.currency === 'GHS')?.amount ?? 0;
  const sum = (balance: string) => items.filter((i) => i.balance === balance && i.currency === 'GHS').reduce((s, i) => s + i.net, 0);
  return { nets: { available: sum('available'), reserved: sum('reserved') }, balances: { available: figure(balances.available), reserved: figure(balances.reserved) } };
}

const summary = (items: Item[]) => items.map((i) => `${i.type} ${i.balance} ${i.amount} ${i.fee} ${i.net}`).sort();

describe("a merchant's day", () => {
  test('walked two at a time: every item once, newest first, net = amount - fee; the nets add up to available and reserved', async () => {
    const { items, pages } = await walk();
    const single = ok(await get('/v1/balance-transactions?limit=100'));
    expect(single.has_more).toBe(false);
    expect(items).toEqual(single.data);
    expect(pages).toBe(Math.ceil(items.length / 2));
    // One at a time: every item is a cursor anchor once, ties (one transfer's postings, a split payout post) included.
    expect((await walk('', 1)).items).toEqual(items);
    expect(new Set(items.map((i) => i.id)).size).toBe(items.length);
    for (let i = 1; i < items.length; i++) expect(items[i - 1].created_at >= items[i].created_at).toBe(true);
    for (const i of items) {
      expect(Object.keys(i)).toEqual(['id', 'object', 'type', 'source', 'balance', 'amount', 'fee', 'net', 'currency', 'created_at']);
      expect(i).toMatchObject({ object: 'balance_transaction', currency: 'GHS' });
      expect(i.net).toBe(i.amount - i.fee);
    }
    // The held payout keeps its total_debit reserved: both balances are exercised.
    const { nets, balances } = await reconcile(items);
    expect(balances.reserved).toBe(day.held.total_debit);
    expect(nets).toEqual(balances);
    await expectBalancesMatchPostings(h.orm, m.id);
  });

  test('types, sources and amounts: the charge fee, the payout fee split off, the refund, reversals', async () => {
    const { items } = await walk('', 100);
    const of = (source: string) => summary(items.filter((i) => i.source === source));
    for (const c of day.charges) {
      const fee = c.fee.platform + c.fee.tax;
      expect(c.amount - fee).toBe(c.merchant_amount);
      expect(of(c.id)).toEqual([`charge available ${c.amount} ${fee} ${c.merchant_amount}`]);
    }
    const r = day.reversed;
    const rFee = r.fee.platform + r.fee.tax;
    expect(of(r.id)).toEqual([`charge available ${r.amount} ${rFee} ${r.merchant_amount}`, `charge available -${r.amount} -${rFee} -${r.merchant_amount}`].sort());
    const funding = items.filter((i) => i.source.startsWith('fund_'));
    expect(summary(funding)).toEqual(['charge available 50000 0 50000']);
    expect(of(day.refund.id)).toEqual(['refund available -40000 0 -40000', 'refund reserved -40000 0 -40000', 'refund reserved 40000 0 40000'].sort());

    const payoutItems = (p: any) => {
      const fee = p.fee.platform + p.fee.tax;
      return [`payout available -${p.total_debit} 0 -${p.total_debit}`, `payout reserved ${p.total_debit} 0 ${p.total_debit}`, `payout reserved -${p.amount} 0 -${p.amount}`, `fee reserved -${fee} 0 -${fee}`];
    };
    expect(day.paid.fee.platform + day.paid.fee.tax).toBeGreaterThan(0);
    expect(of(day.paid.id)).toEqual(payoutItems(day.paid).sort());
    expect(of(day.reversedPayout.id)).toEqual([...payoutItems(day.reversedPayout), `payout_reversal available ${day.reversedPayout.amount} 0 ${day.reversedPayout.amount}`].sort());
    const f = day.failed;
    expect(of(f.id)).toEqual([`payout available -${f.total_debit} 0 -${f.total_debit}`, `payout reserved ${f.total_debit} 0 ${f.total_debit}`, `payout available ${f.total_debit} 0 ${f.total_debit}`, `payout reserved -${f.total_debit} 0 -${f.total_debit}`].sort());
    expect(of(day.held.id)).toEqual([`payout available -${day.held.total_debit} 0 -${day.held.total_debit}`, `payout reserved ${day.held.total_debit} 0 ${day.held.total_debit}`].sort());

    const known = [...day.charges.map((c: any) => c.id), r.id, day.refund.id, day.paid.id, day.reversedPayout.id, f.id, day.held.id, ...funding.map((i) => i.source)];
    expect(items.filter((i) => !known.includes(i.source))).toEqual([]);
    // Ids are deterministic: the posting (and part) they show.
    const fee = items.find((i) => i.source === day.paid.id && i.type === 'fee')!;
    expect(fee.id).toBe(`bt_${day.paid.id}:post:reserved:fee`);
    expect(items.find((i) => i.source === day.charges[0].id)!.id).toBe(`bt_${day.charges[0].id}:capture:available`);
  });

  test('filters: type, source, created_after / created_before, alone and together, walked two at a time', async () => {
    const { items: all } = await walk('', 100);
    const mid = all[Math.floor(all.length / 2)].created_at;
    const cases: [string, (i: Item) => boolean][] = [
      ['&type=fee', (i) => i.type === 'fee'],
      ['&type=payout', (i) => i.type === 'payout'],
      ['&type=payout_reversal', (i) => i.type === 'payout_reversal'],
      ['&type=refund', (i) => i.type === 'refund'],
      ['&type=charge', (i) => i.type === 'charge'],
      ['&type=settlement', () => false],
      [`&source=${day.paid.id}`, (i) => i.source === day.paid.id],
      [`&source=${day.reversed.id}`, (i) => i.source === day.reversed.id],
      [`&source=${day.paid.id}&type=fee`, (i) => i.source === day.paid.id && i.type === 'fee'],
      [`&created_after=${mid}`, (i) => i.created_at > mid],
      [`&created_before=${mid}`, (i) => i.created_at < mid],
      [`&type=payout&created_before=${mid}`, (i) => i.type === 'payout' && i.created_at < mid],
    ];
    for (const [query, keep] of cases) {
      const { items } = await walk(query);
      expect({ query, ids: items.map((i) => i.id) }).toEqual({ query, ids: all.filter(keep).map((i) => i.id) });
    }
    expect((await walk('&type=fee')).items).toHaveLength(2);
    expect((await walk(`&source=${day.paid.id}`, 1)).pages).toBe(4);
    // Another merchant's source shows nothing.
    const other = await h.merchant();
    expect(ok(await get(`/v1/balance-transactions?source=${day.paid.id}`, other.testKey)).data).toEqual([]);
  });

  test('a held payout rejected: its reservation is released, and the items still add up', async () => {
    const rejected = JSON.parse(await decidePayout(h.orm, h.temporal, day.held.id, 'reject', 'unknown recipient', 30_000, 'test:balance-transactions'));
    expect(rejected.status).toBe('failed');
    await h.temporal.client.workflow.getHandle(day.held.id).result();
    const { items } = await walk();
    const { nets, balances } = await reconcile(items);
    expect(balances.reserved).toBe(0);
    expect(nets).toEqual(balances);
    expect(summary(items.filter((i) => i.source === day.held.id))).toHaveLength(4);
  });
});

describe('errors, scope and environments', () => {
  const list = (query: string, key = m.testKey) => get(`/v1/balance-transactions${query}`, key);

  test('a bad limit, cursor or filter is 400 invalid_request naming it, before any query', async () => {
    const first = ok(await list('?limit=1'));
    const bt = first.data[0] as Item;
    const cases: [string, string][] = [
      ['?limit=0', 'limit'],
      ['?limit=101', 'limit'],
      ['?limit=abc', 'limit'],
      ['?limit=1&limit=2', 'limit'],
      ['?cursor=garbage', 'cursor'],
      [`?cursor=${first.next_cursor}x`, 'cursor'],
      // Another list's cursor (a charge id), a bad timestamp, an id of no posting shape.
      [`?cursor=${encodeListCursor({ createdAt: bt.created_at, id: day.charges[0].id })}`, 'cursor'],
      [`?cursor=${encodeListCursor({ createdAt: '2026-13-01T00:00:00.000Z', id: bt.id })}`, 'cursor'],
      [`?cursor=${encodeListCursor({ createdAt: bt.created_at, id: `${bt.id}:fee:fee` })}`, 'cursor'],
      [`?cursor=${encodeListCursor({ createdAt: bt.created_at, id: "bt_txn_x' or 1=1:capture:available" })}`, 'cursor'],
      ['?type=transfer', 'type'],
      ['?type=', 'type'],
      ['?type=fee%00', 'type'],
      ['?source=mer_000000000000000000000000', 'source'],
      ['?source=txn_short', 'source'],
      ['?source=fund_000000000000000000000000', 'source'],
      ['?created_after=yesterday', 'created_after'],
      ['?created_before=2026-02-30', 'created_before'],
      ['?created_after=2026-01-02&created_before=2026-01-01', 'created_before'],
      ['?status=succeeded', 'status'],
      // currency: ISO 4217, three upper-case letters, one of GET /v1/reference/currencies, once.
      ['?currency=ghs', 'currency'],
      ['?currency=GH', 'currency'],
      ['?currency=GHSS', 'currency'],
      ['?currency=', 'currency'],
      ['?currency=GH%C3%89', 'currency'],
      ['?currency=GHS%00', 'currency'],
      ['?currency=XYZ', 'currency'],
      ['?currency=GHS&currency=NGN', 'currency'],
    ];
    for (const [query, param] of cases) expectError(await list(query), 400, 'invalid_request', param);
    // The cursor as handed out works.
    expect(ok(await list(`?limit=1&cursor=${first.next_cursor}`)).data[0].id).not.toBe(bt.id);
  });

  test('scope balances:read: a key without it is 403 insufficient_scope; a key with only it reads the list', async () => {
    const narrow = await issueKey(h.orm, m.id, 'sandbox', ['charges:read']);
    expectError(await list('', narrow.secret), 403, 'insufficient_scope');
    const balancesOnly = await issueKey(h.orm, m.id, 'sandbox', ['balances:read']);
    expect(ok(await list('?limit=3', balancesOnly.secret)).data).toHaveLength(3);
    expectError(await list('', 'svc_test_wrong'), 401, 'invalid_api_key');
  });

  test('live sees live postings only, and the sandbox none of them; the test key is refused on live', async () => {
    const live = () => get('/v1/balance-transactions', m.liveKey, 'live');
    expect(ok(await live())).toEqual({ object: 'list', data: [], has_more: false });
    const sandboxBefore = (await walk('', 100)).items;
    await fundMerchant(h, m.id, 7_000, 'GHS', 'live');
    const liveItems = ok(await live()).data as Item[];
    expect(summary(liveItems)).toEqual(['charge available 7000 0 7000']);
    expect((await reconcile(liveItems, m.liveKey, 'live')).nets).toEqual({ available: 7_000, reserved: 0 });
    expect((await walk('', 100)).items).toEqual(sandboxBefore);
    expectError(await get('/v1/balance-transactions', m.testKey, 'live'), 403, 'environment_mismatch');
  });
});

describe("a merchant's month: settlements and disputes too", () => {
  test('charges, a refund, a payout, a settlement paid and one failed, disputes open, won and lost: the items add up to both balances', async () => {
    const mm = await h.merchant();
    const bank = (await listBanks(h.orm)).find((b) => b.currency === 'GHS')!.code;
    await h.orm.em.getConnection().execute(`update merchants set settlement_bank_code = ?, settlement_account_number = ? where id = ?`, [bank, '0012345678901', mm.id]);
    const send = (path: string, body: unknown) => post(path, body, mm.testKey);
    const collect = async (amount: number) => {
      const charge = ok(await send('/v1/charges', chargeBody({ amount })));
      expect((await finish(charge.id, mm.testKey)).status).toBe('succeeded');
      return ok(await get(`/v1/charges/${charge.id}`, mm.testKey));
    };
    const settle = async (outcome: 'failed' | null) => {
      const run = await runSettlements({ orm: h.orm, client: h.temporal.client, taskQueue: h.taskQueue }, { merchantId: mm.id, environment: 'sandbox', outcome });
      expect(run.batches).toHaveLength(1);
      const id = run.batches[0].id;
      await finish(id, mm.testKey);
      return ok(await get(`/v1/settlements/${id}`, mm.testKey));
    };

    const [a, b] = [await collect(400_000), await collect(200_000)];
    const refund = ok(await send('/v1/refunds', { charge: a.id, amount: 50_000 }));
    expect((await finish(refund.id, mm.testKey)).status).toBe('succeeded');
    const payout = ok(await send('/v1/payouts', payoutBody(100_000)));
    expect((await finish(payout.id, mm.testKey)).status).toBe('succeeded');
    const paid = await settle(null);
    expect(paid.status).toBe('paid');
    const c = await collect(150_000);
    const failed = await settle('failed');
    expect(failed.status).toBe('failed');

    const open = ok(await send(`/v1/sandbox/charges/${b.id}/disputes`, { amount: 60_000 }));
    const lost = ok(await send(`/v1/sandbox/charges/${c.id}/disputes`, {}));
    const won = ok(await send(`/v1/sandbox/charges/${a.id}/disputes`, { amount: 100_000 }));
    ok(await send(`/v1/disputes/${lost.id}/evidence`, { text: 'losing_evidence attached' }));
    ok(await send(`/v1/disputes/${won.id}/evidence`, { text: 'signed delivery receipt' }));
    const ended = (id: string) => h.temporal.client.workflow.getHandle(id).result() as Promise<{ status: string }>;
    expect((await ended(lost.id)).status).toBe('lost');
    expect((await ended(won.id)).status).toBe('won');

    const { items } = await walk('', 3, mm.testKey);
    for (const i of items) expect(i.net).toBe(i.amount - i.fee);
    const { nets, balances } = await reconcile(items, mm.testKey);
    expect(balances.reserved).toBe(60_000); // the open dispute
    expect(nets).toEqual(balances);
    await expectBalancesMatchPostings(h.orm, mm.id);

    const of = (source: string) => summary(items.filter((i) => i.source === source));
    expect(of(paid.id)).toEqual([`settlement available -${paid.amount} 0 -${paid.amount}`, `settlement reserved ${paid.amount} 0 ${paid.amount}`, `settlement reserved -${paid.amount} 0 -${paid.amount}`].sort());
    expect(of(failed.id)).toEqual(
      [`settlement available -${failed.amount} 0 -${failed.amount}`, `settlement reserved ${failed.amount} 0 ${failed.amount}`, `settlement reserved -${failed.amount} 0 -${failed.amount}`, `settlement available ${failed.amount} 0 ${failed.amount}`].sort(),
    );
    expect(of(open.id)).toEqual(['dispute available -60000 0 -60000', 'dispute reserved 60000 0 60000']);
    expect(of(won.id)).toEqual(['dispute available -100000 0 -100000', 'dispute available 100000 0 100000', 'dispute reserved -100000 0 -100000', 'dispute reserved 100000 0 100000']);
    expect(of(lost.id)).toEqual([`dispute available -${c.amount} 0 -${c.amount}`, `dispute reserved -${c.amount} 0 -${c.amount}`, `dispute reserved ${c.amount} 0 ${c.amount}`].sort());
    expect(new Set(items.map((i) => i.type))).toEqual(new Set(['charge', 'refund', 'payout', 'fee', 'settlement', 'dispute']));
    expect((await walk('&type=settlement', 2, mm.testKey)).items).toHaveLength(7);
    expect((await walk('&type=dispute', 2, mm.testKey)).items).toHaveLength(9);
    expect((await walk(`&source=${won.id}`, 1, mm.testKey)).items.map((i) => i.id).sort()).toEqual(
      [`bt_${won.id}:hold:available`, `bt_${won.id}:hold:reserved`, `bt_${won.id}:release:available`, `bt_${won.id}:release:reserved`].sort(),
    );
  });
});

describe('GET /v1/balance-transactions/{id}', () => {
  const one = (id: string, key = m.testKey, env: 'sandbox' | 'live' = 'sandbox') => get(`/v1/balance-transactions/${id}`, key, env);
  /** What an id that is not one of the caller's items gets: everything but the request id. */
  const answer = (res: ApiResponse) => {
    expectError(res, 404, 'not_found', 'id');
    const { request_id: _, ...rest } = res.json.error;
    return rest;
  };

  test("every item of the day, fetched by its id, is the list's item, byte for byte: charges, a reversal, funding, the refund, payouts, the fee split, a payout reversal", async () => {
    const list = await get('/v1/balance-transactions?limit=100');
    const items = ok(list).data as Item[];
    expect(new Set(items.map((i) => i.type))).toEqual(new Set(['charge', 'refund', 'payout', 'fee', 'payout_reversal']));
    for (const item of items) {
      const res = await one(item.id);
      expect({ id: item.id, body: ok(res) }).toEqual({ id: item.id, body: item });
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(list.text).toContain(res.text);
    }
    // The payout post's reserved posting, as its two items.
    expect(ok(await one(`bt_${day.paid.id}:post:reserved`))).toMatchObject({ type: 'payout', amount: -day.paid.amount, fee: 0, net: -day.paid.amount });
    const fee = day.paid.fee.platform + day.paid.fee.tax;
    expect(ok(await one(`bt_${day.paid.id}:post:reserved:fee`))).toMatchObject({ type: 'fee', source: day.paid.id, balance: 'reserved', amount: -fee, fee: 0, net: -fee });
    // A client that encodes the path segment (`:` as %3A) gets the same item.
    const capture = `bt_${day.charges[0].id}:capture:available`;
    expect(ok(await one(encodeURIComponent(capture)))).toEqual(ok(await one(capture)));
  });

  test('scope balances:read: a key with only it reads an item; a key without it is 403', async () => {
    const id = `bt_${day.charges[0].id}:capture:available`;
    expect(ok(await one(id, (await issueKey(h.orm, m.id, 'sandbox', ['balances:read'])).secret)).id).toBe(id);
    expectError(await one(id, (await issueKey(h.orm, m.id, 'sandbox', ['charges:read'])).secret), 403, 'insufficient_scope');
  });

  test("another merchant's id and the other environment's are 404 not_found, exactly like an unknown one", async () => {
    const unknown = answer(await one(`bt_txn_${'0'.repeat(24)}:capture:available`));
    const other = await h.merchant();
    for (const id of [`bt_${day.charges[0].id}:capture:available`, `bt_${day.paid.id}:post:reserved:fee`, `bt_${day.refund.id}:post:reserved`]) {
      expect(ok(await one(id)).id).toBe(id);
      expect(answer(await one(id, other.testKey))).toEqual(unknown);
    }
    // A merchant with a posting in each environment: each key sees its own environment's only.
    const both = await h.merchant();
    await fundMerchant(h, both.id, 1_000);
    await fundMerchant(h, both.id, 2_000, 'GHS', 'live');
    const [sandboxItem] = ok(await get('/v1/balance-transactions', both.testKey)).data as Item[];
    const [liveItem] = ok(await get('/v1/balance-transactions', both.liveKey, 'live')).data as Item[];
    expect([sandboxItem.amount, liveItem.amount]).toEqual([1_000, 2_000]);
    expect(ok(await one(sandboxItem.id, both.testKey))).toEqual(sandboxItem);
    expect(ok(await one(liveItem.id, both.liveKey, 'live'))).toEqual(liveItem);
    expect(answer(await one(liveItem.id, both.testKey))).toEqual(unknown);
    expect(answer(await one(sandboxItem.id, both.liveKey, 'live'))).toEqual(unknown);
    expectError(await one(sandboxItem.id, both.testKey, 'live'), 403, 'environment_mismatch');
  });

  test('ids of no posting and malformed ids are 404 exactly like an unknown one; a control character in the path is 400', async () => {
    const unknown = answer(await one(`bt_txn_${'0'.repeat(24)}:capture:available`));
    const txn = day.charges[0].id;
    const noPosting = [
      `bt_${txn}:capture:reserved`, // a charge capture posts on available only
      `bt_${txn}:capture:available:fee`, // only a payout post's reserved posting has a fee item
      `bt_${txn}:refund:available`,
      `bt_${day.held.id}:post:reserved`, // never posted
      `bt_${day.paid.id}:reserve:reserved:fee`,
    ];
    for (const id of noPosting) expect({ id, answer: answer(await one(id)) }).toEqual({ id, answer: unknown });
    const malformed = [
      'bt_',
      'x',
      txn,
      `bt_${txn}`,
      `bt_${txn}:capture`,
      `bt_${txn}:capture:pending`,
      `bt_${txn}:capture:available:fee:fee`,
      `bt_${txn}:capture:available:`,
      `BT_${txn}:capture:available`,
      `bt_txn_short:capture:available`,
      `bt_${txn}x:capture:available`,
      `bt_${txn}:capture:available%27`,
      "bt_txn_x'%20or%201=1:capture:available",
      `bt_${txn}%2F..%2F:capture:available`,
      `bt_${txn}:${'x'.repeat(4000)}:available`,
      '%ZZ',
      '%C0%AF',
      '%E2%80%AE',
    ];
    for (const id of malformed) expect({ id, answer: answer(await one(id)) }).toEqual({ id, answer: unknown });
    expectError(await one(`bt_${txn}:capture:available%00`), 400, 'invalid_request');
  });
});

describe('the currency filter', () => {
  test('two currencies walked one and two at a time: each its own items, the cursor keeps the filter, and combined with the others', async () => {
    const c = await h.merchant();
    // Interleaved, so every page of one currency skips the other's postings.
    for (const [amount, currency] of [[1_000, 'GHS'], [2_000, 'NGN'], [3_000, 'GHS'], [4_000, 'NGN'], [5_000, 'NGN'], [600_000, 'GHS'], [7_000, 'NGN']] as const) {
      await fundMerchant(h, c.id, amount, currency);
    }
    const payout = ok(await post('/v1/payouts', payoutBody(100_000), c.testKey));
    expect((await finish(payout.id, c.testKey)).status).toBe('succeeded');
    await fundMerchant(h, c.id, 8_000, 'NGN');

    const { items: all } = await walk('', 100, c.testKey);
    for (const currency of ['GHS', 'NGN']) {
      const mine = all.filter((i) => i.currency === currency);
      for (const limit of [1, 2]) {
        const { items, pages } = await walk(`&currency=${currency}`, limit, c.testKey);
        expect({ currency, limit, ids: items.map((i) => i.id) }).toEqual({ currency, limit, ids: mine.map((i) => i.id) });
        expect(pages).toBe(Math.ceil(mine.length / limit));
      }
      // The nets of one currency add up to its balances.
      const balances = ok(await get('/v1/balances', c.testKey));
      for (const balance of ['available', 'reserved'] as const) {
        const figure = (balances[balance] as { currency: string; amount: number }[]).find((b) => b.currency === currency)?.amount ?? 0;
        expect({ currency, balance, net: mine.filter((i) => i.balance === balance).reduce((s, i) => s + i.net, 0) }).toEqual({ currency, balance, net: figure });
      }
    }
    expect(all.filter((i) => i.currency === 'NGN')).toHaveLength(5);
    expect(all.filter((i) => i.currency === 'GHS')).toHaveLength(3 + 4);

    // A next_cursor from a filtered page, with the filter again: the rest of that currency only.
    const first = ok(await get('/v1/balance-transactions?limit=1&currency=NGN', c.testKey));
    const rest = ok(await get(`/v1/balance-transactions?limit=100&currency=NGN&cursor=${first.next_cursor}`, c.testKey));
    expect([...first.data, ...rest.data].map((i: Item) => i.id)).toEqual(all.filter((i) => i.currency === 'NGN').map((i) => i.id));

    const mid = all[Math.floor(all.length / 2)].created_at;
    const cases: [string, (i: Item) => boolean][] = [
      ['&currency=GHS&type=charge', (i) => i.currency === 'GHS' && i.type === 'charge'],
      ['&currency=GHS&type=fee', (i) => i.currency === 'GHS' && i.type === 'fee'],
      ['&currency=NGN&type=payout', () => false],
      [`&currency=GHS&source=${payout.id}`, (i) => i.source === payout.id],
      [`&currency=NGN&source=${payout.id}`, () => false],
      [`&currency=NGN&created_after=${mid}`, (i) => i.currency === 'NGN' && i.created_at > mid],
      [`&currency=GHS&created_before=${mid}&type=charge`, (i) => i.currency === 'GHS' && i.created_at < mid && i.type === 'charge'],
      ['&currency=USD', () => false],
    ];
    for (const [query, keep] of cases) {
      const { items } = await walk(query, 1, c.testKey);
      expect({ query, ids: items.map((i) => i.id) }).toEqual({ query, ids: all.filter(keep).map((i) => i.id) });
    }
    expect((await walk(`&currency=GHS&source=${payout.id}`, 1, c.testKey)).items).toHaveLength(4);
  });

  test("the day's merchant: GHS is everything, NGN nothing", async () => {
    const { items: all } = await walk('', 100);
    expect((await walk('&currency=GHS', 3)).items).toEqual(all);
    expect(ok(await get('/v1/balance-transactions?currency=NGN'))).toEqual({ object: 'list', data: [], has_more: false });
  });
});
