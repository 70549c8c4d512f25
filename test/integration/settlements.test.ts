import type { WorkflowHandle } from '@temporalio/client';
import type { Environment } from '../../src/domain/environment';
import { SA } from '../../src/domain/search-attributes';
import type { ChargeAttention } from '../../src/domain/charge-attention';
import { settlementJson, type SettlementOutcome, type SettlementState } from '../../src/domain/settlement';
import { settlementStartSearchAttributePairs } from '../../src/domain/settlement-search-attributes';
import { SETTLEMENT_WORKFLOW_TYPE, type SettlementStart } from '../../src/domain/settlement-start';
import { issueKey } from '../../src/persistence/merchants/merchant-store';
import { listBanks } from '../../src/persistence/reference-store';
import { findSettlement } from '../../src/persistence/settlements/settlement-store';
import { describeLedgerProblems, ledgerCheck } from '../../src/services/ledger-check';
import { stuckPayments } from '../../src/services/stuck-payments';
import { newId } from '../../src/support/new-id';
import { taskQueueFor } from '../../src/temporal/task-queues';
import type { settlementWorkflow } from '../../workflows/settlement';
import { expectError } from '../support/api-errors';
import { balanceRows, fundMerchant } from '../support/fund-merchant';
import { idempotencyKey, MTN_GH, startHarness, type Harness, type TestMerchant, PAYMENT_QUEUES } from '../support/harness';
import { expectBalancesMatchPostings, ledgerRows } from '../support/ledger-rows';
import { giveSettlementAccount } from '../support/settlement-runs';
import { accept, draftCharge, succeed } from '../support/stored-charges';
import { LIVE_RAIL_UNAVAILABLE } from '../../src/domain/settlement-run';

/**
 * Settlement batches end to end, against the suite's PostgreSQL and Temporal dev server with the
 * payments worker: settlementWorkflow started as the settlement run starts it (workflow id = stl id,
 * MerchantId/Environment/Currency search attributes), the sweep (batch row, swept postings, available
 * → reserved, `settlement.created` in one transaction), the simulated payment (advance fires it), paid
 * or failed; GET /v1/settlements, /{id}, /{id}/entries on both listeners. Settlement accounts are set
 * as `merchants set` sets them (the number sealed with the suite's key; the command itself is tested
 * with the CLI, the sealing in settlement-account-sealing.test.ts).
 */

let h: Harness;
let bankCode: string;
beforeAll(async () => {
  h = await startHarness({ queues: PAYMENT_QUEUES });
  bankCode = (await listBanks(h.orm)).find((b) => b.currency === 'GHS')!.code;
});
afterAll(async () => {
  if (h) {
    const report = await ledgerCheck(h.orm);
    await h.close();
    if (!report.ok) throw new Error(describeLedgerProblems(report));
  }
});

const ACCOUNT = '0012345678901';

async function setAccount(merchant: TestMerchant, account = ACCOUNT): Promise<void> {
  await giveSettlementAccount(h, merchant.id, account, bankCode);
}

/** Starts a batch as the settlement run does (src/domain/settlement-start.ts). */
async function startBatch(
  merchant: TestMerchant,
  options: { environment?: Environment; currency?: string; outcome?: 'failed' | null } = {},
): Promise<WorkflowHandle<typeof settlementWorkflow>> {
  const start: SettlementStart = {
    settlementId: newId('settlement'),
    merchantId: merchant.id,
    environment: options.environment ?? 'sandbox',
    currency: options.currency ?? 'GHS',
    outcome: options.outcome ?? null,
    runId: 'run_integration',
  };
  return h.temporal.client.workflow.start<typeof settlementWorkflow>(SETTLEMENT_WORKFLOW_TYPE, {
    workflowId: start.settlementId,
    taskQueue: taskQueueFor(h.taskQueue, start.environment),
    args: [start],
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
    typedSearchAttributes: settlementStartSearchAttributePairs(start),
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Bounded retries until `check` holds (a running workflow's state, or visibility, which follows a moment later). */
async function until<T>(what: string, look: () => Promise<T>, done: (value: T) => boolean, attempts = 150): Promise<T> {
  for (let i = 0; ; i++) {
    const value = await look();
    if (done(value)) return value;
    if (i >= attempts) throw new Error(`timed out waiting until ${what}`);
    await sleep(100);
  }
}

/** The batch has swept and waits on its payment timer. */
const waitingToPay = (handle: WorkflowHandle) => until(`${handle.workflowId} waits on its payment`, () => handle.query<unknown>('nextTimer'), (t) => t !== null);

/** A failed batch's run stays open, waiting for `settlements retry` (NeedsAttention): its state once it waits. */
async function waitingForRetry(handle: WorkflowHandle): Promise<SettlementState> {
  await until(`${handle.workflowId} waits for a retry`, () => handle.query<ChargeAttention>('chargeAttention'), (a) => a.needsAttention);
  return (await handle.query<SettlementState | undefined>('settlementState'))!;
}

const get = (merchant: TestMerchant, path: string, env: Environment = 'sandbox', key?: string) =>
  h.request(env, 'GET', path, { key: key ?? (env === 'sandbox' ? merchant.testKey : merchant.liveKey) });

const advance = (merchant: TestMerchant, id: string, key = merchant.testKey) => h.request('sandbox', 'POST', `/v1/sandbox/advance/${id}`, { key });

async function eventsOf(merchant: TestMerchant, env: Environment = 'sandbox'): Promise<{ type: string; resource_id: string; data: Record<string, unknown> }[]> {
  return (await get(merchant, '/v1/events?after_sequence=0&limit=100', env)).json.data;
}

async function balance(merchant: TestMerchant, env: Environment = 'sandbox') {
  const json = (await get(merchant, '/v1/balances', env)).json;
  const of = (list: { currency: string; amount: number }[]) => list.find((b) => b.currency === 'GHS')?.amount ?? 0;
  return { available: of(json.available), reserved: of(json.reserved) };
}

/** Every entry of a batch, walking the pages `limit` at a time. */
async function allEntries(merchant: TestMerchant, id: string, limit: number, env: Environment = 'sandbox') {
  const out: { transfer_id: string; kind: string; source: string; amount: number; created_at: string }[] = [];
  let cursor: string | undefined;
  for (;;) {
    const res = await get(merchant, `/v1/settlements/${id}/entries?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`, env);
    expect(res.status).toBe(200);
    out.push(...res.json.data);
    if (!res.json.has_more) return out;
    cursor = res.json.next_cursor;
  }
}

async function payoutOf(merchant: TestMerchant, amount: number): Promise<{ id: string; total_debit: number }> {
  const res = await h.request('sandbox', 'POST', '/v1/payouts', {
    key: merchant.testKey,
    headers: { 'Idempotency-Key': idempotencyKey() },
    body: { amount, currency: 'GHS', channel: 'mobile_money', momo_network_id: MTN_GH, recipient: { identifier: '233241234567', name: 'Kofi Boateng' }, reference: 'before-settlement' },
  });
  expect(res.status).toBe(200);
  await h.temporal.client.workflow.getHandle(res.json.id).result();
  return res.json;
}

describe('a batch paid', () => {
  test('sweep: pending with the whole available balance in transit (reserved); advance pays it; the entries are the swept postings', async () => {
    const merchant = await h.merchant();
    await setAccount(merchant);
    const charge = await accept(h.orm, draftCharge(merchant.id, 20_000));
    await succeed(h.orm, charge.id);
    await fundMerchant(h, merchant.id, 50_000);
    const payout = await payoutOf(merchant, 10_000);
    const amount = charge.merchantAmount + 50_000 - payout.total_debit;
    expect(await balance(merchant)).toEqual({ available: amount, reserved: 0 });

    const handle = await startBatch(merchant);
    const id = handle.workflowId;
    await waitingToPay(handle);
    // While pending: nothing available, the batch in transit shows in reserved.
    expect(await balance(merchant)).toEqual({ available: 0, reserved: amount });
    const pending = await get(merchant, `/v1/settlements/${id}`);
    expect(pending.status).toBe(200);
    expect(pending.json).toEqual({
      id,
      object: 'settlement',
      status: 'pending',
      amount,
      currency: 'GHS',
      entry_count: 3,
      period_end: expect.any(String),
      destination: { bank_code: bankCode, account_masked: '*********8901' },
      paid_at: null,
      livemode: false,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      metadata: {},
    });
    expect(pending.text).not.toContain(ACCOUNT);
    expect(pending.json.period_end).toBe(pending.json.created_at);

    const fired = await advance(merchant, id);
    expect(fired.status).toBe(200);
    expect(fired.json).toEqual({ id, fired: "sandbox payment: the settlement reaches the merchant's bank account", status: 'paid' });
    expect(await handle.result()).toMatchObject({ kind: 'batch', id, status: 'paid', amount, failureClass: null });

    const paid = await get(merchant, `/v1/settlements/${id}`);
    expect(paid.json).toMatchObject({ status: 'paid', paid_at: expect.any(String) });
    expect(paid.json).not.toHaveProperty('failure_class');
    expect(paid.text).toBe(settlementJson((await findSettlement(h.orm, { merchantId: merchant.id, environment: 'sandbox' }, id))!));
    expect(await balance(merchant)).toEqual({ available: 0, reserved: 0 });
    expect(await balanceRows(h, merchant.id)).toMatchObject({ merchant_available: 0, merchant_reserved: 0, settlement_clearing: amount });

    // The swept postings: the charge's capture, the funding, the payout's reservation (negative),
    // each once, adding up to the batch amount; the sweep itself is not one of them.
    const entries = await allEntries(merchant, id, 1);
    expect(entries).toEqual(
      expect.arrayContaining([
        { object: 'settlement_entry', transfer_id: `${charge.id}:capture`, kind: 'capture', source: charge.id, amount: charge.merchantAmount, created_at: expect.any(String) },
        expect.objectContaining({ kind: 'capture', source: expect.stringMatching(/^fund_/), amount: 50_000 }),
        expect.objectContaining({ transfer_id: `${payout.id}:reserve`, kind: 'payout_reserve', source: payout.id, amount: -payout.total_debit }),
      ]),
    );
    expect(entries).toHaveLength(pending.json.entry_count);
    expect(new Set(entries.map((e) => e.transfer_id)).size).toBe(entries.length);
    expect(entries.reduce((sum, e) => sum + e.amount, 0)).toBe(amount);

    const events = (await eventsOf(merchant)).filter((e) => e.resource_id === id);
    expect(events.map((e) => e.type)).toEqual(['settlement.created', 'settlement.paid']);
    expect(events[0].data).toEqual(pending.json);
    expect(events[1].data).toEqual(paid.json);

    const sa = (await handle.describe()).typedSearchAttributes;
    expect([sa.get(SA.PaymentStatus), sa.get(SA.Amount), sa.get(SA.NeedsAttention), sa.get(SA.MerchantId), sa.get(SA.Environment), sa.get(SA.Currency)]).toEqual([
      'paid',
      amount,
      false,
      merchant.id,
      'sandbox',
      'GHS',
    ]);
    const ledger = (await ledgerRows(h, merchant.id)).filter((r) => r.resource_id === id);
    expect(ledger.map((r) => [r.transfer_id, r.account, Number(r.amount), r.n])).toEqual([
      [`${id}:post`, 'merchant_reserved', -amount, '1'],
      [`${id}:post`, 'settlement_clearing', amount, '1'],
      [`${id}:sweep`, 'merchant_available', -amount, '1'],
      [`${id}:sweep`, 'merchant_reserved', amount, '1'],
    ]);
    await expectBalancesMatchPostings(h.orm, merchant.id);
  });
});

describe('a batch failed', () => {
  test('outcome failed: the money returns to available, NeedsAttention with the reason (payments stuck lists it); the next batch sweeps it again, once', async () => {
    const merchant = await h.merchant();
    await setAccount(merchant);
    await fundMerchant(h, merchant.id, 30_000);
    const handle = await startBatch(merchant, { outcome: 'failed' });
    const id = handle.workflowId;
    await waitingToPay(handle);
    expect(await balance(merchant)).toEqual({ available: 0, reserved: 30_000 });
    const fired = await advance(merchant, id);
    expect(fired.json).toEqual({ id, fired: 'sandbox payment: the bank refuses the settlement (outcome failed)', status: 'failed' });
    expect(await waitingForRetry(handle)).toMatchObject({ status: 'failed', failureClass: 'declined', amount: 30_000 });

    expect(await balance(merchant)).toEqual({ available: 30_000, reserved: 0 });
    const failed = await get(merchant, `/v1/settlements/${id}`);
    expect(failed.json).toMatchObject({ id, status: 'failed', failure_class: 'declined', paid_at: null, amount: 30_000 });
    const events = (await eventsOf(merchant)).filter((e) => e.resource_id === id);
    expect(events.map((e) => e.type)).toEqual(['settlement.created', 'settlement.failed']);
    expect(events[1].data).toEqual(failed.json);

    const sa = (await handle.describe()).typedSearchAttributes;
    expect([sa.get(SA.PaymentStatus), sa.get(SA.FailureClass), sa.get(SA.NeedsAttention)]).toEqual(['failed', 'declined', true]);
    const stuck = await until(
      'payments stuck lists the failed batch',
      async () => (await stuckPayments({ orm: h.orm, client: h.temporal.client, namespace: 'default', uiBaseUrl: 'http://127.0.0.1:8233', environment: 'sandbox', query: `MerchantId = '${merchant.id}'` })).data,
      (data) => data.some((p) => p.id === id),
    );
    const listed = stuck.find((p) => p.id === id)!;
    // Its run is open, waiting for `settlements retry` (test/integration/settlement-retry.test.ts).
    expect(listed).toMatchObject({ id, environment: 'sandbox', status: 'failed', needs_attention: true, workflow: 'needs_attention' });
    expect(listed.reason).toContain(`settlement ${id} failed (declined): 30000 GHS returned to available`);
    expect(listed.reason).toContain(`settlements retry ${id} --reason TEXT`);
    expect(listed.reason).not.toContain(ACCOUNT);

    // The money is back in available: the next batch (a settlement run's) settles it, its entries are the release.
    const again = await startBatch(merchant);
    await waitingToPay(again);
    expect(await advance(merchant, again.workflowId)).toMatchObject({ status: 200, json: { status: 'paid' } });
    expect(await again.result()).toMatchObject({ status: 'paid', amount: 30_000 });
    expect(await allEntries(merchant, again.workflowId, 10)).toEqual([
      { object: 'settlement_entry', transfer_id: `${id}:release`, kind: 'settlement_release', source: id, amount: 30_000, created_at: expect.any(String) },
    ]);
    expect(await balanceRows(h, merchant.id)).toMatchObject({ merchant_available: 0, merchant_reserved: 0, settlement_clearing: 30_000 });
    await expectBalancesMatchPostings(h.orm, merchant.id);
  });
});

describe('two batches never sweep the same money', () => {
  test('a second batch for the same balance right after the first (still in transit) moves nothing', async () => {
    const merchant = await h.merchant();
    await setAccount(merchant);
    await fundMerchant(h, merchant.id, 8_000);
    const first = await startBatch(merchant);
    await waitingToPay(first);
    const second = await startBatch(merchant);
    expect(await second.result()).toEqual({ kind: 'nothing', reason: 'no positive available balance' });
    expect((await get(merchant, `/v1/settlements/${second.workflowId}`)).status).toBe(404);
    await advance(merchant, first.workflowId);
    expect(await first.result()).toMatchObject({ status: 'paid', amount: 8_000 });
    expect(await balanceRows(h, merchant.id)).toMatchObject({ merchant_available: 0, merchant_reserved: 0, settlement_clearing: 8_000 });
  });

  test('five batches started at once for one balance: exactly one sweeps it, the others find nothing', async () => {
    const merchant = await h.merchant();
    await setAccount(merchant);
    await fundMerchant(h, merchant.id, 6_000);
    await fundMerchant(h, merchant.id, 4_000);
    const handles = await Promise.all(Array.from({ length: 5 }, () => startBatch(merchant)));
    const swept = await until(
      'one batch swept',
      async () => (await get(merchant, '/v1/settlements')).json.data as { id: string }[],
      (data) => data.length === 1,
    );
    await waitingToPay(h.temporal.client.workflow.getHandle(swept[0].id));
    await advance(merchant, swept[0].id);
    const results: SettlementOutcome[] = await Promise.all(handles.map((handle) => handle.result()));
    expect(results.filter((r) => r.kind === 'batch')).toEqual([expect.objectContaining({ id: swept[0].id, status: 'paid', amount: 10_000, entryCount: 2 })]);
    expect(results.filter((r) => r.kind === 'nothing')).toHaveLength(4);
    const marked = await h.orm.em
      .getConnection()
      .execute<{ n: number }[]>(`select count(*)::int as n from settlement_entries se join settlements s on s.id = se.settlement_id where s.merchant_id = ?`, [merchant.id]);
    expect(marked[0].n).toBe(3); // two fundings and the sweep's own posting
    expect(await balanceRows(h, merchant.id)).toMatchObject({ merchant_available: 0, merchant_reserved: 0, settlement_clearing: 10_000 });
  });

  test('a merchant without a settlement account: nothing is swept, nothing written', async () => {
    const merchant = await h.merchant();
    await fundMerchant(h, merchant.id, 5_000);
    const handle = await startBatch(merchant);
    expect(await handle.result()).toEqual({ kind: 'nothing', reason: 'no settlement account' });
    expect((await get(merchant, '/v1/settlements')).json.data).toEqual([]);
    expect(await balanceRows(h, merchant.id)).toMatchObject({ merchant_available: 5_000, merchant_reserved: 0 });
  });
});

describe('sandbox and live, two merchants', () => {
  test('each batch holds exactly its own money; each listener sees only its environment\'s batches', async () => {
    const merchants = [await h.merchant({ verified: true }), await h.merchant({ verified: true })];
    const funds: Record<string, number> = {};
    for (const [i, merchant] of merchants.entries()) {
      await setAccount(merchant, `00${i}1122334455`);
      for (const environment of ['sandbox', 'live'] as const) {
        const amount = 1_000 * (i + 1) + (environment === 'live' ? 500 : 0);
        await fundMerchant(h, merchant.id, amount, 'GHS', environment);
        funds[`${merchant.id}/${environment}`] = amount;
      }
    }
    const batches = await Promise.all(merchants.flatMap((merchant) => (['sandbox', 'live'] as const).map(async (environment) => ({ merchant, environment, handle: await startBatch(merchant, { environment }) }))));
    for (const b of batches.filter((x) => x.environment === 'sandbox')) {
      await waitingToPay(b.handle);
      await advance(b.merchant, b.handle.workflowId);
    }
    for (const { merchant, environment, handle } of batches) {
      // No live rail here (issue 20): a live batch, however started, sweeps nothing (the run's skip
      // rule): no settlement.created and settlement.failed for money that never moved.
      if (environment === 'live') {
        expect(await handle.result()).toEqual({ kind: 'nothing', reason: LIVE_RAIL_UNAVAILABLE });
        continue;
      }
      const result = await handle.result();
      const own = funds[`${merchant.id}/${environment}`];
      expect(result).toMatchObject({ kind: 'batch', merchantId: merchant.id, environment, amount: own, entryCount: 1, status: 'paid' });
      const entries = await allEntries(merchant, handle.workflowId, 100, environment);
      expect(entries.map((e) => e.amount)).toEqual([own]);
      const rows = await h.orm.em
        .getConnection()
        .execute<{ merchant_id: string; environment: string }[]>(`select distinct merchant_id, environment from ledger_entries where transfer_id = ?`, [entries[0].transfer_id]);
      expect(rows).toEqual([{ merchant_id: merchant.id, environment }]);

      // The other listener, and the other merchant, do not see it.
      const other = 'live';
      expectError(await get(merchant, `/v1/settlements/${handle.workflowId}`, other), 404, 'not_found', 'id');
      expectError(await get(merchant, `/v1/settlements/${handle.workflowId}/entries`, other), 404, 'not_found', 'id');
      const stranger = merchants.find((m) => m !== merchant)!;
      expectError(await get(stranger, `/v1/settlements/${handle.workflowId}`, environment), 404, 'not_found', 'id');
      expect((await get(merchant, `/v1/settlements/${handle.workflowId}`, environment)).json).toMatchObject({ livemode: false });
    }
    for (const merchant of merchants) {
      for (const environment of ['sandbox', 'live'] as const) {
        const list = (await get(merchant, '/v1/settlements', environment)).json.data as { id: string }[];
        expect(list.map((s) => s.id)).toEqual(batches.filter((b) => b.merchant === merchant && b.environment === environment && environment === 'sandbox').map((b) => b.handle.workflowId));
      }
      expect(await balanceRows(h, merchant.id, 'GHS', 'live')).toMatchObject({ merchant_available: funds[`${merchant.id}/live`], merchant_reserved: 0 });
      expect(await balanceRows(h, merchant.id, 'GHS', 'sandbox')).toMatchObject({ merchant_available: 0, merchant_reserved: 0, settlement_clearing: funds[`${merchant.id}/sandbox`] });
      const live = (await eventsOf(merchant, 'live')).filter((e) => e.type.startsWith('settlement.'));
      expect(live.map((e) => e.type)).toEqual([]);
    }
  });
});

describe('endpoints and errors', () => {
  let merchant: TestMerchant;
  const ids: string[] = [];
  beforeAll(async () => {
    merchant = await h.merchant();
    await setAccount(merchant);
    // Three batches: paid, failed, paid (the failed one's money settles in the third).
    for (const outcome of [null, 'failed', null] as const) {
      await fundMerchant(h, merchant.id, 2_000);
      await fundMerchant(h, merchant.id, 3_000);
      const handle = await startBatch(merchant, { outcome });
      await waitingToPay(handle);
      await advance(merchant, handle.workflowId);
      await (outcome === 'failed' ? waitingForRetry(handle) : handle.result());
      ids.push(handle.workflowId);
    }
  });

  test('the list: newest first, limit and cursor, status and created_* filters', async () => {
    const all = await get(merchant, '/v1/settlements');
    expect(all.status).toBe(200);
    expect(all.json).toMatchObject({ object: 'list', has_more: false });
    expect(all.json.data.map((s: { id: string }) => s.id)).toEqual([...ids].reverse());
    expect(all.json.data.map((s: { status: string }) => s.status)).toEqual(['paid', 'failed', 'paid']);
    expect(all.json.data.map((s: { amount: number }) => s.amount)).toEqual([10_000, 5_000, 5_000]);

    const first = await get(merchant, '/v1/settlements?limit=2');
    expect(first.json).toMatchObject({ has_more: true, next_cursor: expect.any(String) });
    const rest = await get(merchant, `/v1/settlements?limit=2&cursor=${first.json.next_cursor}`);
    expect([...first.json.data, ...rest.json.data].map((s: { id: string }) => s.id)).toEqual([...ids].reverse());
    expect(rest.json.has_more).toBe(false);

    expect((await get(merchant, '/v1/settlements?status=failed')).json.data.map((s: { id: string }) => s.id)).toEqual([ids[1]]);
    const created = all.json.data.find((s: { id: string }) => s.id === ids[1]).created_at as string;
    expect((await get(merchant, `/v1/settlements?created_after=${created}`)).json.data.map((s: { id: string }) => s.id)).toEqual([ids[2]]);
    expect((await get(merchant, `/v1/settlements?created_before=${created}`)).json.data.map((s: { id: string }) => s.id)).toEqual([ids[0]]);
  });

  test('entries: walkable one at a time, newest first, adding up to the amount', async () => {
    const third = await allEntries(merchant, ids[2], 1);
    expect(third.map((e) => e.kind).sort()).toEqual(['capture', 'capture', 'settlement_release']);
    expect(third.reduce((sum, e) => sum + e.amount, 0)).toBe(10_000);
    const times = third.map((e) => e.created_at);
    expect([...times].sort().reverse()).toEqual(times);
    const page = await get(merchant, `/v1/settlements/${ids[2]}/entries?limit=2`);
    expect(page.json).toMatchObject({ object: 'list', has_more: true, next_cursor: expect.any(String) });
    expect(page.json.data).toHaveLength(2);
  });

  test('errors: bad filters and cursors (400), unknown or malformed ids (404), a key without settlements:read (403)', async () => {
    expectError(await get(merchant, '/v1/settlements?status=settled'), 400, 'invalid_request', 'status');
    expectError(await get(merchant, '/v1/settlements?limit=0'), 400, 'invalid_request', 'limit');
    expectError(await get(merchant, '/v1/settlements?cursor=nonsense'), 400, 'invalid_request', 'cursor');
    expectError(await get(merchant, '/v1/settlements?channel=bank'), 400, 'invalid_request', 'channel');
    expectError(await get(merchant, '/v1/settlements?created_after=yesterday'), 400, 'invalid_request', 'created_after');
    // Another list's cursor is refused.
    const payoutCursor = Buffer.from(`2026-01-01T00:00:00.000Z|po_${'a'.repeat(24)}`).toString('base64url');
    expectError(await get(merchant, `/v1/settlements?cursor=${payoutCursor}`), 400, 'invalid_request', 'cursor');

    expectError(await get(merchant, `/v1/settlements/${ids[0]}/entries?cursor=nonsense`), 400, 'invalid_request', 'cursor');
    expectError(await get(merchant, `/v1/settlements/${ids[0]}/entries?limit=101`), 400, 'invalid_request', 'limit');
    expectError(await get(merchant, `/v1/settlements/${ids[0]}/entries?status=paid`), 400, 'invalid_request', 'status');
    const settlementCursor = Buffer.from(`2026-01-01T00:00:00.000Z|${ids[0]}`).toString('base64url');
    expectError(await get(merchant, `/v1/settlements/${ids[0]}/entries?cursor=${settlementCursor}`), 400, 'invalid_request', 'cursor');

    expectError(await get(merchant, `/v1/settlements/${newId('settlement')}`), 404, 'not_found', 'id');
    expectError(await get(merchant, '/v1/settlements/stl_nope'), 404, 'not_found', 'id');
    expectError(await get(merchant, `/v1/settlements/${newId('settlement')}/entries`), 404, 'not_found', 'id');
    expectError(await get(merchant, `/v1/settlements/${newId('payout')}`), 404, 'not_found', 'id');

    const narrow = await issueKey(h.orm, merchant.id, 'sandbox', ['charges:read', 'balances:read']);
    for (const path of ['/v1/settlements', `/v1/settlements/${ids[0]}`, `/v1/settlements/${ids[0]}/entries`]) {
      expectError(await get(merchant, path, 'sandbox', narrow.secret), 403, 'insufficient_scope');
    }
    expectError(await advance(merchant, ids[0], narrow.secret), 403, 'insufficient_scope');
    const reader = await issueKey(h.orm, merchant.id, 'sandbox', ['settlements:read']);
    expect((await get(merchant, `/v1/settlements/${ids[0]}`, 'sandbox', reader.secret)).status).toBe(200);
    // A finished batch waits on nothing.
    expectError(await advance(merchant, ids[0], reader.secret), 409, 'nothing_to_advance', 'id');
    expectError(await h.request('sandbox', 'GET', '/v1/settlements'), 401, 'invalid_api_key');
  });
});
