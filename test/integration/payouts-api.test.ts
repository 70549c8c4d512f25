/**
 * The payout create path, reads and lists of issue 10 through the HTTP API, against the real
 * PostgreSQL and Temporal dev server (no worker: payouts stay as the create left them, so every
 * figure is exact): one transaction writes the payout, its reservation of total_debit (available →
 * reserved) and its first event; the workflow is started with `{ payoutId }` only; a create the
 * available balance cannot cover is 422 `insufficient_balance` with nothing written, also when a
 * hundred arrive at once. The ledger check runs in afterAll (harness close).
 */
import { SA } from '../../src/domain/search-attributes';
import { issueKey, verifyMerchant } from '../../src/persistence/merchants/merchant-store';
import { setPayoutReviewThreshold } from '../../src/persistence/merchants/merchant-settings-store';
import { loadPayout, writePayoutTransition } from '../../src/persistence/payouts/payout-store';
import { stuckPayments } from '../../src/services/stuck-payments';
import { restartPayment } from '../../src/services/restart-payment';
import { startUnstartedPayouts } from '../../src/runtime/payout-start-relay';
import { newId } from '../../src/support/new-id';
import { taskQueueFor } from '../../src/temporal/task-queues';
import { expectError } from '../support/api-errors';
import { balanceRows, fundMerchant } from '../support/fund-merchant';
import { idempotencyKey, MTN_GH, startHarness, type Harness, type TestMerchant } from '../support/harness';
import { ledgerRows } from '../support/ledger-rows';
import { decodedJson } from '../support/payload-codec';

let h: Harness;
let m: TestMerchant;

beforeAll(async () => {
  h = await startHarness({ worker: false });
  m = await h.merchant();
  await fundMerchant(h, m.id, 10_000_000);
});
afterAll(() => h?.close());

const sql = <T>(query: string, params: unknown[]) => h.orm.em.getConnection().execute<T[]>(query, params);

function payoutBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    amount: 100_000,
    currency: 'GHS',
    channel: 'mobile_money',
    momo_network_id: MTN_GH,
    recipient: { identifier: '233241234567', name: 'Kofi Boateng' },
    reference: 'salary-nov',
    description: 'November salary',
    metadata: { batch: 'b1', zeta: 1, alpha: 2 },
    ...overrides,
  };
}

function post(merchant: TestMerchant, body: unknown, key = idempotencyKey(), env: 'sandbox' | 'live' = 'sandbox') {
  return h.request(env, 'POST', '/v1/payouts', { key: env === 'sandbox' ? merchant.testKey : merchant.liveKey, body, headers: { 'Idempotency-Key': key } });
}

async function fundedMerchant(amount: number): Promise<TestMerchant> {
  const merchant = await h.merchant();
  if (amount > 0) await fundMerchant(h, merchant.id, amount);
  return merchant;
}

describe('create', () => {
  test('a mobile money payout: the object, one transaction (row, reservation, payout.initiated), and one workflow start with { payoutId }', async () => {
    const merchant = await fundedMerchant(1_000_000);
    const key = idempotencyKey();
    const res = await post(merchant, payoutBody(), key);
    expect(res.status).toBe(200);
    const id: string = res.json.id;
    expect(id).toMatch(/^po_[0-9A-Za-z]{24}$/);
    // 1.00 % on mobile money, tax 15 % of the fee; total_debit = amount + fee.
    expect(res.json).toEqual({
      id,
      object: 'payout',
      status: 'pending',
      amount: 100_000,
      currency: 'GHS',
      channel: 'mobile_money',
      momo_network_id: MTN_GH,
      recipient: { masked: '********4567', name: 'Kofi Boateng' },
      your_reference: 'salary-nov',
      reference: expect.stringMatching(/^PO-[0-9A-Z]{16}$/),
      description: 'November salary',
      fee: { platform: 1000, tax: 150, bearer: 'merchant' },
      total_debit: 101_150,
      livemode: false,
      rail: 'sandbox',
      created_at: expect.any(String),
      updated_at: res.json.created_at,
      metadata: { batch: 'b1', zeta: 1, alpha: 2 },
    });
    // Metadata kept as sent (key order), and the full identifier stored nowhere.
    expect(res.text).toContain('"metadata":{"batch":"b1","zeta":1,"alpha":2}');
    expect(JSON.stringify(await sql(`select * from payouts where id = ?`, [id]))).not.toContain('233241234567');

    const [stored] = await sql<{ xmin: string; response_body: string }>(`select xmin::text, response_body from idempotency_keys where merchant_id = ? and key = ?`, [merchant.id, key]);
    expect(stored.response_body).toBe(res.text);
    const written = await sql<{ what: string; xmin: string }>(
      `select 'ledger' as what, xmin::text from ledger_entries where resource_id = ?
       union all select 'balance', xmin::text from account_balances where merchant_id = ? and account in ('merchant_available', 'merchant_reserved')
       union all select 'event', xmin::text from events where resource_id = ?
       union all select 'counter', xmin::text from event_counters where merchant_id = ?`,
      [id, merchant.id, id, merchant.id],
    );
    expect(written.filter((w) => w.xmin !== stored.xmin)).toEqual([]);
    expect(new Set(written.map((w) => w.what))).toEqual(new Set(['ledger', 'balance', 'event', 'counter']));

    const ledger = (await ledgerRows(h, merchant.id)).filter((r) => r.resource_id === id);
    expect(ledger.map((r) => [r.transfer_id, r.kind, r.account, r.amount, r.n])).toEqual([
      [`${id}:reserve`, 'payout_reserve', 'merchant_available', '-101150', '1'],
      [`${id}:reserve`, 'payout_reserve', 'merchant_reserved', '101150', '1'],
    ]);
    expect(await balanceRows(h, merchant.id)).toMatchObject({ merchant_available: 1_000_000 - 101_150, merchant_reserved: 101_150 });

    const events = await sql<{ type: string; body: string }>(`select type, body from events where resource_id = ?`, [id]);
    expect(events.map((e) => e.type)).toEqual(['payout.initiated']);
    expect(JSON.parse(events[0].body)).toMatchObject({ type: 'payout.initiated', resource_type: 'payout', resource_id: id });
    expect(events[0].body.endsWith(`"data":${res.text}}`)).toBe(true);

    const handle = h.temporal.client.workflow.getHandle(id);
    const started = (await handle.fetchHistory()).events![0].workflowExecutionStartedEventAttributes!;
    expect(started.workflowType?.name).toBe('payoutWorkflow');
    expect(started.input!.payloads).toHaveLength(1);
    expect(await decodedJson(started.input!.payloads![0])).toEqual({ payoutId: id });
    const description = await handle.describe();
    expect(description.taskQueue).toBe(taskQueueFor(h.taskQueue, 'sandbox'));
    const attributes = description.typedSearchAttributes;
    expect({
      status: attributes.get(SA.PaymentStatus),
      merchant: attributes.get(SA.MerchantId),
      env: attributes.get(SA.Environment),
      channel: attributes.get(SA.Channel),
      currency: attributes.get(SA.Currency),
      amount: attributes.get(SA.Amount),
      attention: attributes.get(SA.NeedsAttention),
    }).toEqual({ status: 'pending', merchant: merchant.id, env: 'sandbox', channel: 'mobile_money', currency: 'GHS', amount: 100_000, attention: false });
    expect(await sql(`select workflow_started_at is not null as started from payouts where id = ?`, [id])).toEqual([{ started: true }]);
  });

  test('a bank payout: bank_code, 0.50 % with a floor of 100 minor units', async () => {
    const merchant = await fundedMerchant(100_000);
    const small = await post(merchant, payoutBody({ channel: 'bank', momo_network_id: undefined, bank_code: 'GCB', amount: 5_000, recipient: { identifier: '1234567890', name: 'Ama Ltd' } }));
    expect(small.status).toBe(200);
    expect(small.json).toMatchObject({ channel: 'bank', bank_code: 'GCB', fee: { platform: 100, tax: 15 }, total_debit: 5_115, recipient: { masked: '******7890' } });
    expect(small.json).not.toHaveProperty('momo_network_id');
    const large = await post(merchant, payoutBody({ channel: 'bank', momo_network_id: undefined, bank_code: 'GCB', amount: 50_001 }));
    expect(large.json).toMatchObject({ fee: { platform: 250, tax: 38 }, total_debit: 50_289 });
    expect(await balanceRows(h, merchant.id)).toMatchObject({ merchant_available: 100_000 - 5_115 - 50_289, merchant_reserved: 5_115 + 50_289 });
  });

  test('review: at or above the merchant threshold, or the sandbox outcome held_for_review, the payout is created held_for_review (payout.held_for_review), funds reserved', async () => {
    const merchant = await fundedMerchant(100_000_000);
    expect(await setPayoutReviewThreshold(h.orm, merchant.id, 50_000)).toEqual({ id: merchant.id, object: 'merchant', payout_review_threshold: 50_000 });
    const below = await post(merchant, payoutBody({ amount: 49_999 }));
    const at = await post(merchant, payoutBody({ amount: 50_000 }));
    const flagged = await post(merchant, payoutBody({ amount: 1_000, metadata: { sandbox_outcome: 'held_for_review' } }));
    expect([below.json.status, at.json.status, flagged.json.status]).toEqual(['pending', 'held_for_review', 'held_for_review']);
    const types = await sql<{ resource_id: string; type: string }>(`select resource_id, type from events where merchant_id = ? and resource_type = 'payout'`, [merchant.id]);
    expect(Object.fromEntries(types.map((t) => [t.resource_id, t.type]))).toEqual({
      [below.json.id]: 'payout.initiated',
      [at.json.id]: 'payout.held_for_review',
      [flagged.json.id]: 'payout.held_for_review',
    });
    expect((await loadPayout(h.orm, at.json.id))).toMatchObject({ requiresReview: true, sandboxOutcome: null });
    expect((await loadPayout(h.orm, flagged.json.id))).toMatchObject({ requiresReview: true, sandboxOutcome: 'held_for_review' });
    const description = await h.temporal.client.workflow.getHandle(at.json.id).describe();
    expect(description.typedSearchAttributes.get(SA.PaymentStatus)).toBe('held_for_review');
    // The default threshold is 5,000,000 minor units.
    const other = await fundedMerchant(20_000_000);
    expect((await post(other, payoutBody({ amount: 4_999_999 }))).json.status).toBe('pending');
    expect((await post(other, payoutBody({ amount: 5_000_000 }))).json.status).toBe('held_for_review');
  });
});

describe('refusals', () => {
  const invalid: [string, Record<string, unknown>, string][] = [
    ['amount missing', { amount: undefined }, 'amount'],
    ['amount zero', { amount: 0 }, 'amount'],
    ['amount fractional', { amount: 10.5 }, 'amount'],
    ['amount a string', { amount: '100' }, 'amount'],
    ['amount beyond 2^53', { amount: 2 ** 53 }, 'amount'],
    ['amount plus fee beyond 2^53', { amount: Number.MAX_SAFE_INTEGER - 10 }, 'amount'],
    ['currency lower case', { currency: 'ghs' }, 'currency'],
    ['currency unknown', { currency: 'XXX' }, 'currency'],
    ['currency not the network’s', { currency: 'KES' }, 'currency'],
    ['channel card', { channel: 'card' }, 'channel'],
    ['channel missing', { channel: undefined }, 'channel'],
    ['mobile money without network', { momo_network_id: undefined }, 'momo_network_id'],
    ['network not a uuid', { momo_network_id: 'mtn' }, 'momo_network_id'],
    ['network unknown', { momo_network_id: '3f9c2b1e-8a4d-4c6e-9b7a-1d2e3f4a5bff' }, 'momo_network_id'],
    ['mobile money with a bank code', { bank_code: 'GCB' }, 'bank_code'],
    ['bank without bank code', { channel: 'bank', momo_network_id: undefined }, 'bank_code'],
    ['bank with a network', { channel: 'bank', bank_code: 'GCB' }, 'momo_network_id'],
    ['bank code unknown', { channel: 'bank', momo_network_id: undefined, bank_code: 'NOPE' }, 'bank_code'],
    ['bank code malformed', { channel: 'bank', momo_network_id: undefined, bank_code: 'gcb bank' }, 'bank_code'],
    ['bank in another currency', { channel: 'bank', momo_network_id: undefined, bank_code: 'KCB' }, 'currency'],
    ['recipient missing', { recipient: undefined }, 'recipient'],
    ['recipient name missing', { recipient: { identifier: '233241234567' } }, 'recipient.name'],
    ['recipient name blank', { recipient: { identifier: '233241234567', name: '   ' } }, 'recipient.name'],
    ['recipient identifier too short', { recipient: { identifier: '12', name: 'K' } }, 'recipient.identifier'],
    ['recipient identifier with symbols', { recipient: { identifier: '2332<script>', name: 'K' } }, 'recipient.identifier'],
    ['recipient unknown field', { recipient: { identifier: '233241234567', name: 'K', email: 'k@x' } }, 'recipient.email'],
    ['reference missing', { reference: undefined }, 'reference'],
    ['reference empty', { reference: '' }, 'reference'],
    ['reference too long', { reference: 'r'.repeat(101) }, 'reference'],
    ['description too long', { description: 'd'.repeat(501) }, 'description'],
    ['description with a control character', { description: 'a\u0000b' }, 'description'],
    ['metadata not an object', { metadata: 'x' }, 'metadata'],
    ['metadata with too many keys', { metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])) }, 'metadata'],
    ['unknown field', { fee_bearer: 'customer' }, 'fee_bearer'],
  ];

  test.each(invalid)('%s: 400 invalid_request naming the parameter, nothing written', async (_name, overrides, param) => {
    const before = await sql<{ n: string }>(`select count(*)::text as n from payouts where merchant_id = ?`, [m.id]);
    const key = idempotencyKey();
    const res = await post(m, payoutBody(overrides), key);
    expectError(res, 400, 'invalid_request', param);
    expect(await sql(`select count(*)::text as n from payouts where merchant_id = ?`, [m.id])).toEqual(before);
    expect(await sql(`select key from idempotency_keys where merchant_id = ? and key = ?`, [m.id, key])).toEqual([]);
  });

  test('no Idempotency-Key: 400 idempotency_key_required; not JSON: 400', async () => {
    expectError(await h.request('sandbox', 'POST', '/v1/payouts', { key: m.testKey, body: payoutBody() }), 400, 'idempotency_key_required');
    const res = await h.request('sandbox', 'POST', '/v1/payouts', { key: m.testKey, rawBody: '{"amount":', headers: { 'Idempotency-Key': idempotencyKey() } });
    expect(res.status).toBe(400);
  });

  test('insufficient_balance: 422, nothing written (not even the key), the same key works once the balance covers it', async () => {
    const merchant = await fundedMerchant(101_149);
    const key = idempotencyKey();
    const refused = await post(merchant, payoutBody(), key);
    expectError(refused, 422, 'insufficient_balance', 'amount');
    expect(await sql(`select id from payouts where merchant_id = ?`, [merchant.id])).toEqual([]);
    expect(await sql(`select key from idempotency_keys where merchant_id = ?`, [merchant.id])).toEqual([]);
    expect(await sql(`select id from events where merchant_id = ?`, [merchant.id])).toEqual([]);
    expect(await balanceRows(h, merchant.id)).toMatchObject({ merchant_available: 101_149, merchant_reserved: 0 });
    // A merchant with no balance at all in the currency.
    expectError(await post(await fundedMerchant(0), payoutBody()), 422, 'insufficient_balance', 'amount');

    await fundMerchant(h, merchant.id, 1);
    const accepted = await post(merchant, payoutBody(), key);
    expect(accepted.status).toBe(200);
    expect(await balanceRows(h, merchant.id)).toMatchObject({ merchant_available: 0, merchant_reserved: 101_150 });
  });

  test('idempotency: the same key and body replays the stored answer (one payout); another body is 422 idempotency_key_reused', async () => {
    const merchant = await fundedMerchant(1_000_000);
    const key = idempotencyKey();
    const first = await post(merchant, payoutBody(), key);
    const again = await post(merchant, payoutBody(), key);
    expect(again.status).toBe(200);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expectError(await post(merchant, payoutBody({ amount: 5 }), key), 422, 'idempotency_key_reused');
    expect(await sql(`select id from payouts where merchant_id = ?`, [merchant.id])).toEqual([{ id: first.json.id }]);
    expect(await balanceRows(h, merchant.id)).toMatchObject({ merchant_reserved: 101_150 });
  });

  test('live: 503 live_unavailable (verified merchant), nothing written', async () => {
    const merchant = await h.merchant();
    await verifyMerchant(h.orm, merchant.id);
    const key = idempotencyKey();
    expectError(await post(merchant, payoutBody(), key, 'live'), 503, 'live_unavailable');
    expect(await sql(`select key from idempotency_keys where merchant_id = ?`, [merchant.id])).toEqual([]);
    expect(await sql(`select id from payouts where merchant_id = ?`, [merchant.id])).toEqual([]);
    // Reads work on live: an empty list.
    const list = await h.request('live', 'GET', '/v1/payouts', { key: merchant.liveKey });
    expect(list.json).toEqual({ object: 'list', data: [], has_more: false });
  });

  test('scopes: payouts:write to create, payouts:read to read', async () => {
    const readOnly = await issueKey(h.orm, m.id, 'sandbox', ['payouts:read']);
    const writeOnly = await issueKey(h.orm, m.id, 'sandbox', ['payouts:write']);
    const create = await h.request('sandbox', 'POST', '/v1/payouts', { key: readOnly.secret, body: payoutBody(), headers: { 'Idempotency-Key': idempotencyKey() } });
    expectError(create, 403, 'insufficient_scope');
    expectError(await h.request('sandbox', 'GET', '/v1/payouts', { key: writeOnly.secret }), 403, 'insufficient_scope');
    expect((await h.request('sandbox', 'GET', '/v1/payouts', { key: readOnly.secret })).status).toBe(200);
  });
});

describe('read and list', () => {
  test('GET /v1/payouts/{id}: the stored object; another merchant’s or a malformed id is 404', async () => {
    const created = await post(m, payoutBody({ reference: 'get-one' }));
    const got = await h.request('sandbox', 'GET', `/v1/payouts/${created.json.id}`, { key: m.testKey });
    expect(got.status).toBe(200);
    expect(got.text).toBe(created.text);
    const stranger = await h.merchant();
    expectError(await h.request('sandbox', 'GET', `/v1/payouts/${created.json.id}`, { key: stranger.testKey }), 404, 'not_found', 'id');
    expectError(await h.request('live', 'GET', `/v1/payouts/${created.json.id}`, { key: m.liveKey }), 404, 'not_found', 'id');
    expectError(await h.request('sandbox', 'GET', `/v1/payouts/po_nope`, { key: m.testKey }), 404, 'not_found', 'id');
    expectError(await h.request('sandbox', 'GET', `/v1/payouts/${newId('payout')}`, { key: m.testKey }), 404, 'not_found', 'id');
  });

  test('GET /v1/payouts: newest first, cursor pages, and the filters status, channel, reference, created_after, created_before', async () => {
    const merchant = await fundedMerchant(100_000_000);
    await setPayoutReviewThreshold(h.orm, merchant.id, 1_000_000);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await post(merchant, payoutBody({ amount: 1_000 + i, reference: `r${i % 2}` }))).json.id);
    const bank = await post(merchant, payoutBody({ channel: 'bank', momo_network_id: undefined, bank_code: 'GCB', reference: 'bank-1' }));
    const held = await post(merchant, payoutBody({ amount: 2_000_000, reference: 'big' }));
    ids.push(bank.json.id, held.json.id);
    const newestFirst = [...ids].reverse();

    const list = (query: string) => h.request('sandbox', 'GET', `/v1/payouts${query}`, { key: merchant.testKey });
    const all = await list('?limit=100');
    expect(all.json.data.map((p: { id: string }) => p.id)).toEqual(newestFirst);
    expect(all.json.has_more).toBe(false);
    expect(all.text).toContain('"metadata":{"batch":"b1","zeta":1,"alpha":2}');

    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await list(`?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      seen.push(...page.json.data.map((p: { id: string }) => p.id));
      cursor = page.json.next_cursor;
      expect(page.json.has_more).toBe(cursor !== undefined);
    } while (cursor);
    expect(seen).toEqual(newestFirst);

    const idsOf = async (query: string) => (await list(query)).json.data.map((p: { id: string }) => p.id);
    expect(await idsOf('?status=held_for_review')).toEqual([held.json.id]);
    expect(await idsOf('?status=pending&limit=100')).toEqual(newestFirst.slice(1));
    expect(await idsOf('?channel=bank')).toEqual([bank.json.id]);
    expect(await idsOf('?reference=r1')).toEqual([ids[3], ids[1]]);
    const middle = (await loadPayout(h.orm, ids[2]))!.createdAt;
    expect(await idsOf(`?created_after=${encodeURIComponent(middle)}&limit=100`)).toEqual(newestFirst.slice(0, 4));
    expect(await idsOf(`?created_before=${encodeURIComponent(middle)}`)).toEqual([ids[1], ids[0]]);
    expect(await idsOf('?status=succeeded')).toEqual([]);

    for (const [query, param] of [
      ['?status=paid', 'status'],
      ['?channel=card', 'channel'],
      ['?created_after=yesterday', 'created_after'],
      ['?created_before=2026-02-30', 'created_before'],
      ['?limit=0', 'limit'],
      ['?limit=101', 'limit'],
      ['?cursor=bm9wZQ', 'cursor'],
      ['?charge=txn_x', 'charge'],
      ['?status=pending&status=failed', 'status'],
    ] as const) {
      expectError(await list(query), 400, 'invalid_request', param);
    }
  });
});

describe('concurrency', () => {
  test('100 parallel payouts against one balance never overdraw it: exactly the affordable ones are accepted', async () => {
    // Room for 37 payouts of total_debit 10,115 (amount 10,000 + 100 + 15), and a little more.
    const totalDebit = 10_115;
    const funded = 37 * totalDebit + 5_000;
    const merchant = await fundedMerchant(funded);
    const results = await Promise.all(Array.from({ length: 100 }, (_, i) => post(merchant, payoutBody({ amount: 10_000, reference: `p${i}` }))));
    const accepted = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status !== 200);
    for (const r of refused) expectError(r, 422, 'insufficient_balance', 'amount');
    expect(accepted).toHaveLength(37);
    expect(refused).toHaveLength(63);
    expect(new Set(accepted.map((r) => r.json.id)).size).toBe(37);
    const balances = await balanceRows(h, merchant.id);
    expect(balances).toMatchObject({ merchant_available: funded - 37 * totalDebit, merchant_reserved: 37 * totalDebit });
    expect(balances.merchant_available).toBeGreaterThanOrEqual(0);
    const [{ n, reserved }] = await sql<{ n: string; reserved: string }>(
      `select count(*)::text as n, coalesce(sum(total_debit), 0)::text as reserved from payouts where merchant_id = ?`,
      [merchant.id],
    );
    expect([Number(n), Number(reserved)]).toEqual([37, 37 * totalDebit]);
    expect(Number(reserved)).toBeLessThanOrEqual(funded);
    // One event per accepted payout, sequences gapless.
    const seqs = await sql<{ sequence: string }>(`select sequence::text from events where merchant_id = ? and environment = 'sandbox' order by events.sequence`, [merchant.id]);
    expect(seqs.map((s) => Number(s.sequence))).toEqual(Array.from({ length: 37 }, (_, i) => i + 1));
  });
});

describe('state changes (the payout workflow’s store)', () => {
  test('post on success, release on failure, reversal after success (fee kept); idempotent; refused transitions write nothing', async () => {
    const merchant = await fundedMerchant(1_000_000);
    await setPayoutReviewThreshold(h.orm, merchant.id, 500_000);
    const ok = (await post(merchant, payoutBody())).json; // 101,150
    const bad = (await post(merchant, payoutBody({ amount: 20_000 }))).json; // 20,230
    const held = (await post(merchant, payoutBody({ amount: 600_000 }))).json; // 606,900
    const rejected = (await post(merchant, payoutBody({ amount: 1_000, metadata: { sandbox_outcome: 'held_for_review' } }))).json; // 1,012 (fee 10, tax 1.5 rounded half up)
    expect(await balanceRows(h, merchant.id)).toMatchObject({ merchant_available: 1_000_000 - 101_150 - 20_230 - 606_900 - 1_012, merchant_reserved: 729_292 });

    const at = '2026-11-24T10:00:00.000Z';
    const succeeded = await writePayoutTransition(h.orm, ok.id, { to: 'succeeded', at });
    expect(succeeded).toMatchObject({ status: 'succeeded', updatedAt: at });
    expect(await writePayoutTransition(h.orm, ok.id, { to: 'succeeded', at: '2030-01-01T00:00:00.000Z' })).toEqual(succeeded);
    await expect(writePayoutTransition(h.orm, ok.id, { to: 'failed', failureClass: 'declined' })).rejects.toMatchObject({ name: 'PayoutTransitionRefusedError' });
    await expect(writePayoutTransition(h.orm, newId('payout'), { to: 'failed' })).rejects.toMatchObject({ name: 'PayoutNotFoundError' });

    const failed = await writePayoutTransition(h.orm, bad.id, { to: 'failed', failureClass: 'invalid_recipient', at });
    expect(failed).toMatchObject({ status: 'failed', failureClass: 'invalid_recipient' });

    const decidedAt = '2026-11-24T09:00:00.000Z';
    const approved = await writePayoutTransition(h.orm, held.id, { to: 'pending', review: { decision: 'approved', reason: 'known supplier', decidedBy: 'ops-ama', decidedAt }, at });
    expect(approved).toMatchObject({ status: 'pending', reviewDecision: 'approved', reviewReason: 'known supplier', reviewDecidedBy: 'ops-ama', reviewDecidedAt: decidedAt });
    await writePayoutTransition(h.orm, held.id, { to: 'succeeded', at });
    // A retried approval after the payout moved on writes nothing (it already made that transition).
    expect((await writePayoutTransition(h.orm, held.id, { to: 'pending', review: { decision: 'approved', reason: 'x', decidedBy: 'y', decidedAt } })).status).toBe('succeeded');
    await writePayoutTransition(h.orm, rejected.id, { to: 'failed', failureClass: 'declined', review: { decision: 'rejected', reason: 'unknown recipient', decidedBy: 'ops-kojo', decidedAt }, at });
    const reversed = await writePayoutTransition(h.orm, ok.id, { to: 'reversed', at });
    expect(reversed).toMatchObject({ status: 'reversed', reversedAt: at });

    // By hand: 1,000,000 - every reservation + released (bad, rejected) + reversed amount (ok, fee kept).
    const expectedAvailable = 1_000_000 - 101_150 - 20_230 - 606_900 - 1_012 + 20_230 + 1_012 + 100_000;
    expect(await balanceRows(h, merchant.id)).toMatchObject({
      merchant_available: expectedAvailable,
      merchant_reserved: 0,
      payout_clearing: 600_000,
      platform_fee: 1_000 + 6_000,
      tax: 150 + 900,
    });

    const events = await sql<{ resource_id: string; type: string; body: string }>(`select resource_id, type, body from events where merchant_id = ? order by sequence`, [merchant.id]);
    const typesOf = (id: string) => events.filter((e) => e.resource_id === id).map((e) => e.type);
    expect(typesOf(ok.id)).toEqual(['payout.initiated', 'payout.succeeded', 'payout.reversed']);
    expect(typesOf(bad.id)).toEqual(['payout.initiated', 'payout.failed']);
    expect(typesOf(held.id)).toEqual(['payout.held_for_review', 'payout.initiated', 'payout.succeeded']);
    expect(typesOf(rejected.id)).toEqual(['payout.held_for_review', 'payout.failed']);
    const rejectedData = JSON.parse(events.filter((e) => e.resource_id === rejected.id)[1].body).data;
    expect(rejectedData).toMatchObject({ status: 'failed', failure_class: 'declined', review: { decision: 'rejected', reason: 'unknown recipient', decided_at: decidedAt } });
    expect(rejectedData.review).not.toHaveProperty('decided_by');
    const got = await h.request('sandbox', 'GET', `/v1/payouts/${ok.id}`, { key: merchant.testKey });
    expect(got.json).toMatchObject({ status: 'reversed', updated_at: at });
    expect(got.json).not.toHaveProperty('failure_class');

    const transfers = (await ledgerRows(h, merchant.id)).filter((r) => r.resource_id === ok.id);
    expect([...new Set(transfers.map((r) => r.transfer_id))].sort()).toEqual([`${ok.id}:post`, `${ok.id}:reserve`, `${ok.id}:reversal`]);
    for (const r of transfers) expect(r.n).toBe('1');
  });
});

describe('start relay', () => {
  test('a payout whose start was never confirmed is started by the relay, once', async () => {
    const merchant = await fundedMerchant(1_000_000);
    const created = (await post(merchant, payoutBody())).json;
    // Pretend the API crashed between its commit and the start: no workflow, not confirmed.
    await h.temporal.client.workflow.getHandle(created.id).terminate('test: simulate a lost start');
    await sql(`update payouts set workflow_started_at = null where id = ?`, [created.id]);
    // A terminated run is a closed workflow under the id: the relay finds it already started and confirms it.
    expect(await startUnstartedPayouts({ orm: h.orm, client: h.temporal.client, taskQueue: h.taskQueue, log: h.deps.log, unstartedAfterSeconds: 0 })).toBeGreaterThanOrEqual(1);
    expect(await sql(`select workflow_started_at is not null as started from payouts where id = ?`, [created.id])).toEqual([{ started: true }]);

    // A payout row with no workflow at all (written, start never sent): the relay starts it with { payoutId }.
    const lost = (await post(merchant, payoutBody({ reference: 'lost' }))).json;
    const lostId = newId('payout');
    await sql(
      `insert into payouts select ?, merchant_id, environment, status, amount, currency, channel, momo_network_id, bank_code, recipient_masked, recipient_name,
         your_reference, 'PO-' || substr(md5(random()::text), 1, 16), description, metadata_json, fee_platform, fee_tax, total_debit, failure_class, sandbox_outcome,
         requires_review, review_decision, review_reason, review_decided_by, review_decided_at, reversed_at, null, created_at, updated_at from payouts where id = ?`,
      [lostId, lost.id],
    );
    await startUnstartedPayouts({ orm: h.orm, client: h.temporal.client, taskQueue: h.taskQueue, log: h.deps.log, unstartedAfterSeconds: 0 });
    const started = (await h.temporal.client.workflow.getHandle(lostId).fetchHistory()).events![0].workflowExecutionStartedEventAttributes!;
    expect(await decodedJson(started.input!.payloads![0])).toEqual({ payoutId: lostId });
    expect(await sql(`select workflow_started_at is not null as started from payouts where id = ?`, [lostId])).toEqual([{ started: true }]);
    // The copied row has no reservation of its own: remove it so the ledger stays the ledger.
    await h.temporal.client.workflow.getHandle(lostId).terminate('test cleanup');
    await sql(`delete from payouts where id = ?`, [lostId]);
    // Still pending with its reservation, and its workflow closed: nothing would finish it. `payments
    // stuck` lists it, and an operator restarts it through the audited path: a new run under the same
    // id finishes it (review finding 2 of issue 18). This file runs without a worker: start one now.
    const stuck = await stuckPayments({ orm: h.orm, client: h.temporal.client, namespace: 'default', uiBaseUrl: 'http://ui', graceMs: 0, query: `WorkflowId = '${created.id}'` });
    expect(stuck.data.find((p) => p.id === created.id)).toMatchObject({ type: 'payout', status: 'pending', workflow: 'closed', reason: expect.stringMatching(/^payout still pending, but its workflow is closed \(TERMINATED\).*payments restart/) });
    await expect(restartPayment(h.orm, h.temporal, h.taskQueue, created.id, { operator: '', reason: 'x' })).rejects.toThrow(/"operator" must be|operator/);
    await h.startWorker();
    const restarted = await restartPayment(h.orm, h.temporal, h.taskQueue, created.id, { operator: 'ops:test', reason: 'terminated by mistake' });
    expect(restarted).toMatchObject({ id: created.id, status: 'pending', previous_workflow: 'TERMINATED', restarted: true });
    expect(await h.temporal.client.workflow.getHandle(created.id).result()).toMatchObject({ status: 'succeeded' });
    await expect(restartPayment(h.orm, h.temporal, h.taskQueue, created.id, { operator: 'ops:test', reason: 'again' })).rejects.toThrow(/is succeeded: it is finished/);
    const [audit] = await sql(`select action, operator, reason, state_before from operator_audit where payment_id = ?`, [created.id]);
    expect(audit).toMatchObject({ action: 'payout.restart', operator: 'ops:test', reason: 'terminated by mistake', state_before: { status: 'pending', workflow: 'TERMINATED' } });

  });
});
