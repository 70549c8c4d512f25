/**
 * `settlements retry ID --reason TEXT` (INTERFACE "Admin command line, continued"), run as a child
 * process against the suite's PostgreSQL and Temporal with the payments worker of this file: a failed
 * batch's workflow stays open with NeedsAttention (`payments stuck` lists it) until the retry, which
 * starts a new batch for the same balance, clears NeedsAttention and ends the failed batch's workflow
 * with `retried_as`. One JSON object on stdout; refusals exit 1 with a message on stderr.
 */
import { WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import type { ChargeAttention } from '../../src/domain/charge-attention';
import type { Environment } from '../../src/domain/environment';
import { SA } from '../../src/domain/search-attributes';
import type { SettlementState } from '../../src/domain/settlement';
import type { RetriedSettlement } from '../../src/domain/settlement-retry';
import { LIVE_RAIL_UNAVAILABLE } from '../../src/domain/settlement-run';
import { settlementStartSearchAttributePairs } from '../../src/domain/settlement-search-attributes';
import { SETTLEMENT_WORKFLOW_TYPE, type SettlementStart } from '../../src/domain/settlement-start';
import { taskQueueFor } from '../../src/temporal/task-queues';
import { retrySettlementUpdate } from '../../workflows/settlement-retry-messages';
import { stuckPayments, type StuckPayment } from '../../src/services/stuck-payments';
import { newId } from '../../src/support/new-id';
import { AUDIT_FLAGS, ok, refused } from '../support/cli-results';
import { closeWithLedgerCheck } from '../support/close-with-ledger-check';
import { balanceRows, fundMerchant } from '../support/fund-merchant';
import { startHarness, type Harness, type TestMerchant, PAYMENT_QUEUES } from '../support/harness';
import { expectBalancesMatchPostings } from '../support/ledger-rows';
import { runCli, type CliResult } from '../support/run-cli';
import { batchRows, giveSettlementAccount } from '../support/settlement-runs';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ queues: PAYMENT_QUEUES });
});
afterAll(() => closeWithLedgerCheck(h));

const cli = (...args: string[]): Promise<CliResult> => runCli(h.taskQueue, ...args);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Bounded retries until `done` holds (a running workflow's state, or visibility, which follows a moment later). */
async function until<T>(what: string, look: () => Promise<T>, done: (value: T) => boolean, attempts = 150): Promise<T> {
  for (let i = 0; ; i++) {
    const value = await look();
    if (done(value)) return value;
    if (i >= attempts) throw new Error(`timed out waiting until ${what}`);
    await sleep(100);
  }
}

const handleOf = (id: string) => h.temporal.client.workflow.getHandle(id);
const advance = (merchant: TestMerchant, id: string) => h.request('sandbox', 'POST', `/v1/sandbox/advance/${id}`, { key: merchant.testKey });

/** A sandbox batch swept and waiting on its payment timer: fire it now. */
async function advanced(merchant: TestMerchant, handle: WorkflowHandle): Promise<void> {
  await until(`${handle.workflowId} waits on its payment`, () => handle.query<unknown>('nextTimer'), (t) => t !== null);
  expect((await advance(merchant, handle.workflowId)).status).toBe(200);
}

/** A failed batch's run stays open, waiting for `settlements retry`: its state once it waits. */
async function waitingForRetry(handle: WorkflowHandle): Promise<SettlementState> {
  await until(`${handle.workflowId} waits for a retry`, () => handle.query<ChargeAttention>('chargeAttention'), (a) => a.needsAttention);
  return (await handle.query<SettlementState | undefined>('settlementState'))!;
}

/** `settlements run --merchant` for one environment: the one batch it started. */
async function runOne(merchant: TestMerchant, environment: Environment, outcome?: 'failed'): Promise<WorkflowHandle> {
  const run = ok(await cli('settlements', 'run', '--merchant', merchant.id, '--env', environment === 'sandbox' ? 'test' : 'live', ...(outcome ? ['--outcome', outcome] : []), ...AUDIT_FLAGS));
  expect(run.batches).toHaveLength(1);
  return handleOf(run.batches[0].id);
}

/**
 * A live batch started directly, as a run starts one (workflow id = settlement id, its search
 * attributes, the live queue): runs skip live balances while no live rail exists, but live batches
 * started before that, and retries of them, still run.
 */
async function startLiveBatch(merchant: TestMerchant): Promise<WorkflowHandle> {
  const start: SettlementStart = { settlementId: newId('settlement'), merchantId: merchant.id, environment: 'live', currency: 'GHS', outcome: null, runId: 'run_before_the_skip' };
  return h.temporal.client.workflow.start(SETTLEMENT_WORKFLOW_TYPE, {
    workflowId: start.settlementId,
    taskQueue: taskQueueFor(h.taskQueue, 'live'),
    args: [start],
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
    typedSearchAttributes: settlementStartSearchAttributePairs(start),
  });
}

/** A sandbox batch that failed (`--outcome failed`, its payment advanced) and waits for an operator. */
async function failedBatch(merchant: TestMerchant): Promise<WorkflowHandle> {
  const handle = await runOne(merchant, 'sandbox', 'failed');
  await advanced(merchant, handle);
  expect(await waitingForRetry(handle)).toMatchObject({ status: 'failed', failureClass: 'declined' });
  return handle;
}

/**
 * The NeedsAttention list as `payments stuck --env test --query "MerchantId = '…'"` computes it (visibility
 * follows the workflow a moment later). Scoped to the merchant: the dev server is shared by every test
 * file, and an unscoped listing queries other files' runs, whose workers may be gone (a deadline each).
 */
const stuckNow = async (merchantId: string, environment: Environment = 'sandbox') =>
  (await stuckPayments({ orm: h.orm, client: h.temporal.client, namespace: 'default', uiBaseUrl: 'http://127.0.0.1:8233', environment, query: `MerchantId = '${merchantId}'` })).data;
const listedIn = (id: string) => (data: StuckPayment[]) => data.some((p) => p.id === id);

describe('settlements retry', () => {
  test('a failed batch waits (payments stuck lists it); the retry starts a new batch that is paid; the old one no longer needs attention; the ledger balances', async () => {
    const merchant = await h.merchant();
    await giveSettlementAccount(h, merchant.id);
    await fundMerchant(h, merchant.id, 30_000);
    const failed = await failedBatch(merchant);
    const id = failed.workflowId;
    expect((await failed.describe()).status.name).toBe('RUNNING');
    expect(await balanceRows(h, merchant.id)).toMatchObject({ merchant_available: 30_000, merchant_reserved: 0 });

    await until('payments stuck lists the failed batch', () => stuckNow(merchant.id), listedIn(id));
    const stuck = ok(await cli('payments', 'stuck', '--env', 'test', '--query', `MerchantId = '${merchant.id}'`)).data as StuckPayment[];
    const listed = stuck.find((p) => p.id === id)!;
    expect(listed).toMatchObject({ id, type: 'settlement', environment: 'sandbox', status: 'failed', needs_attention: true, workflow: 'needs_attention' });
    expect(listed.reason).toContain(`settlement ${id} failed (declined): 30000 GHS returned to available`);
    expect(listed.reason).toContain(`settlements retry ${id} --reason TEXT`);

    refused(await cli('settlements', 'retry', id), /--reason is required/);
    refused(await cli('settlements', 'retry', id, '--reason', '   '), /--reason is required/);

    const answer = ok(await cli('settlements', 'retry', id, '--reason', 'bank account corrected'));
    const newBatch = answer.retried_as as string;
    expect(answer).toEqual({
      id,
      status: 'failed',
      retried_as: expect.stringMatching(/^stl_[0-9A-Za-z]{24}$/),
      reason: 'bank account corrected',
      retried_by: expect.stringMatching(/^cli/),
      // The sweep has run (the command waits for it); paid comes about 3 s later, or on advance.
      new_batch: { id: newBatch, status: expect.stringMatching(/^(pending|paid)$/), amount: 30_000, currency: 'GHS' },
    });
    expect(newBatch).not.toBe(id);

    // The failed batch's workflow has ended, recording the retry; it no longer needs attention.
    const result = (await failed.result()) as RetriedSettlement;
    expect(result).toMatchObject({ kind: 'batch', id, status: 'failed', amount: 30_000, retried_as: newBatch, retry: { reason: 'bank account corrected', by: answer.retried_by } });
    expect((await failed.describe()).typedSearchAttributes.get(SA.NeedsAttention)).toBe(false);
    expect(await failed.query<ChargeAttention>('chargeAttention')).toMatchObject({ needsAttention: false, operatorRetries: 1 });

    // The new batch: same balance, swept the released money, paid.
    const next = handleOf(newBatch);
    const sa = (await next.describe()).typedSearchAttributes;
    expect([sa.get(SA.MerchantId), sa.get(SA.Environment), sa.get(SA.Currency)]).toEqual([merchant.id, 'sandbox', 'GHS']);
    if (answer.new_batch.status === 'pending') await advanced(merchant, next);
    expect(await next.result()).toMatchObject({ kind: 'batch', id: newBatch, status: 'paid', amount: 30_000 });
    const entries = (await h.request('sandbox', 'GET', `/v1/settlements/${newBatch}/entries`, { key: merchant.testKey })).json.data;
    expect(entries).toEqual([expect.objectContaining({ transfer_id: `${id}:release`, kind: 'settlement_release', source: id, amount: 30_000 })]);
    expect((await batchRows(h, merchant.id)).map((r) => [r.id, r.status, r.amount])).toEqual([
      [id, 'failed', 30_000],
      [newBatch, 'paid', 30_000],
    ]);
    expect(await balanceRows(h, merchant.id)).toMatchObject({ merchant_available: 0, merchant_reserved: 0, settlement_clearing: 30_000 });
    await expectBalancesMatchPostings(h.orm, merchant.id);

    // payments stuck no longer lists it; a second retry is refused.
    await until('payments stuck no longer lists the retried batch', () => stuckNow(merchant.id), (data) => !listedIn(id)(data));
    expect((ok(await cli('payments', 'stuck', '--env', 'test', '--query', `MerchantId = '${merchant.id}'`)).data as StuckPayment[]).map((p) => p.id)).not.toContain(id);
    refused(await cli('settlements', 'retry', id, '--reason', 'again'), new RegExp(`^error: settlement ${id} was already retried as ${newBatch} \\(by cli(:[^:]+)?: bank account corrected\\)`));
    expect(ok(await cli('ledger', 'check'))).toMatchObject({ ok: true });
  });

  test('a raw retrySettlement update, as the Temporal UI sends it: refused without an operator (nothing changes), applied with one: audit row, new batch', async () => {
    const merchant = await h.merchant();
    await giveSettlementAccount(h, merchant.id);
    await fundMerchant(h, merchant.id, 20_000);
    const failed = await failedBatch(merchant);
    const id = failed.workflowId;
    const refusedUpdate = await failed.executeUpdate(retrySettlementUpdate, { args: [{ reason: 'bank account corrected' }] }).catch((e: unknown) => e);
    expect(refusedUpdate).toBeInstanceOf(WorkflowUpdateFailedError);
    expect((refusedUpdate as WorkflowUpdateFailedError).cause?.message).toMatch(/^an "operator" is required/);
    expect((await batchRows(h, merchant.id)).map((r) => [r.id, r.status])).toEqual([[id, 'failed']]);
    expect(ok(await cli('audit', 'list', '--payment', id)).data).toEqual([]);

    const answer = await failed.executeUpdate(retrySettlementUpdate, { args: [{ reason: 'bank account corrected', operator: 'ui:esi' }] });
    expect(answer).toMatchObject({ id, status: 'failed', retried_as: expect.stringMatching(/^stl_/), retry: { reason: 'bank account corrected', by: 'ui:esi' } });
    expect(ok(await cli('audit', 'list', '--payment', id)).data).toEqual([
      expect.objectContaining({ action: 'settlement.retry', operator: 'ui:esi', reason: 'bank account corrected', state_before: expect.objectContaining({ status: 'failed' }) }),
    ]);
    // The new batch pays on its own sandbox timer (about 3 s).
    const next = handleOf(answer.retried_as);
    expect(await next.result()).toMatchObject({ kind: 'batch', status: 'paid', amount: 20_000 });
    expect(await balanceRows(h, merchant.id)).toMatchObject({ merchant_available: 0, merchant_reserved: 0, settlement_clearing: 20_000 });
    await expectBalancesMatchPostings(h.orm, merchant.id);
  });

  test('the released money was swept first (a settlement run): the retry still clears the failed batch, and says its new batch found nothing', async () => {
    const merchant = await h.merchant();
    await giveSettlementAccount(h, merchant.id);
    await fundMerchant(h, merchant.id, 8_000);
    const failed = await failedBatch(merchant);
    const scheduled = await runOne(merchant, 'sandbox');
    await advanced(merchant, scheduled);
    expect(await scheduled.result()).toMatchObject({ status: 'paid', amount: 8_000 });

    const answer = ok(await cli('settlements', 'retry', failed.workflowId, '--reason', 'account fixed'));
    expect(answer).toMatchObject({ id: failed.workflowId, status: 'failed', new_batch: { id: answer.retried_as, status: 'nothing', reason: 'no positive available balance' } });
    expect(await failed.result()).toMatchObject({ retried_as: answer.retried_as });
    expect((await failed.describe()).typedSearchAttributes.get(SA.NeedsAttention)).toBe(false);
    expect((await batchRows(h, merchant.id)).map((r) => r.status)).toEqual(['failed', 'paid']);
    expect(await balanceRows(h, merchant.id)).toMatchObject({ merchant_available: 0, merchant_reserved: 0, settlement_clearing: 8_000 });
  });

  test('live (no live rail): a run starts no live batch, and a batch started any other way (a retry, by hand) sweeps nothing for the same reason: no settlement event for money that never moved', async () => {
    const merchant = await h.merchant({ verified: true });
    await giveSettlementAccount(h, merchant.id);
    await fundMerchant(h, merchant.id, 9_000, 'GHS', 'live');
    expect(ok(await cli('settlements', 'run', '--merchant', merchant.id, '--env', 'live', ...AUDIT_FLAGS))).toMatchObject({ started: 0, skipped: 1, skips: [{ reason: LIVE_RAIL_UNAVAILABLE }] });
    const direct = await startLiveBatch(merchant);
    expect(await direct.result()).toEqual({ kind: 'nothing', reason: LIVE_RAIL_UNAVAILABLE });
    expect(await batchRows(h, merchant.id)).toEqual([]);
    expect(await balanceRows(h, merchant.id, 'GHS', 'live')).toMatchObject({ merchant_available: 9_000, merchant_reserved: 0 });
    const events = await h.request('live', 'GET', '/v1/events?after_sequence=0&limit=100', { key: merchant.liveKey });
    expect(events.json.data.filter((e: { type: string }) => e.type.startsWith('settlement.'))).toEqual([]);
  });

  test('refusals: an unknown or malformed id, a batch that did not fail', async () => {
    const unknown = newId('settlement');
    refused(await cli('settlements', 'retry', unknown, '--reason', 'x'), new RegExp(`^error: settlement ${unknown} does not exist`));
    refused(await cli('settlements', 'retry', 'stl_nope', '--reason', 'x'), /^error: "stl_nope" is not a settlement id/);
    refused(await cli('settlements', 'retry', '--reason', 'x'), /settlement id is required/);

    const merchant = await h.merchant();
    await giveSettlementAccount(h, merchant.id);
    await fundMerchant(h, merchant.id, 2_000);
    const paid = await runOne(merchant, 'sandbox');
    await advanced(merchant, paid);
    await paid.result();
    refused(await cli('settlements', 'retry', paid.workflowId, '--reason', 'x'), new RegExp(`^error: settlement ${paid.workflowId} is paid: only a failed batch can be retried`));
  });
});
