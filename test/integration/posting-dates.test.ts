import type { EntityManager } from '@mikro-orm/postgresql';
import { setTimeout as delay } from 'node:timers/promises';
import { applyChargeTransition } from '../../src/persistence/charges/charge-store';
import { openOrm, type Orm } from '../../src/persistence/orm';
import { sweepSettlement } from '../../src/persistence/settlements/settlement-store';
import { retryChargeStep } from '../../src/services/retry-charge-step';
import { newId, randomBase62 } from '../../src/support/new-id';
import { closeWithLedgerCheck } from '../support/close-with-ledger-check';
import { until } from '../support/crash-probes';
import { fundMerchant } from '../support/fund-merchant';
import { idempotencyKey, MTN_GH, startHarness, type Harness, type TestMerchant, SANDBOX_QUEUES } from '../support/harness';
import { giveSettlementAccount } from '../support/settlement-runs';
import { accept, draftCharge } from '../support/stored-charges';
import { succeededCharge } from '../support/succeeded-charge';

/**
 * Issue 18, review finding 4: a posting is dated when it commits, not when its workflow decided to
 * write it. The database dates every posting of a state change in the statement that takes the
 * merchant's event counter (src/persistence/events/event-log.ts), so for one merchant and environment a
 * posting committed after another is never dated earlier (ties within a millisecond aside), and a
 * merchant who synced balance transactions and asks again with `created_after` = the newest
 * `created_at` it holds misses nothing committed since.
 *
 * - A capture whose workflow took its time before a settlement sweep started, and that waits behind
 *   the sweep's lock on the available balance row, shown with the real store functions on two real
 *   transactions held by the test where the stores take their locks (no worker).
 * - An operator retry of a payout step that gave up: its posting is dated at the retry, not at the
 *   workflow's first attempt, whose time the workflow reuses for the retried request (with the
 *   payments worker in this process).
 */

let h: Harness;
/** Lock waits here are long (60 s) so that the test never races the store's lock timeout. */
let patient: Orm;
beforeAll(async () => {
  h = await startHarness({ queues: SANDBOX_QUEUES });
  patient = await openOrm(process.env.TEST_DATABASE_URL!, { poolMax: 6, timeouts: { lockTimeoutMs: 60_000, statementTimeoutMs: 60_000, acquireTimeoutMs: 5_000 } });
});
afterAll(async () => {
  await patient?.close();
  await closeWithLedgerCheck(h);
});

async function sql<T = Record<string, unknown>>(query: string, params: unknown[] = []): Promise<T[]> {
  return h.orm.em.getConnection().execute<T[]>(query, params);
}

/** A transaction of the test's own holding one row lock (`lock` runs in it) until released. */
async function hold(lock: string, params: unknown[]): Promise<{ pid: number; release(): Promise<void> }> {
  const em = patient.em.fork() as EntityManager;
  await em.begin();
  const [{ pid }] = await em.execute<{ pid: number }[]>(`select pg_backend_pid() as pid`);
  await em.execute(lock, params);
  let released = false;
  return {
    pid: Number(pid),
    async release() {
      if (!released) await em.rollback();
      released = true;
    },
  };
}

/** The backends waiting on a lock that `blocker` (a backend pid) holds. */
async function waitingOn(blocker: number): Promise<number[]> {
  const rows = await sql<{ pid: number }>(`select pid from pg_stat_activity where wait_event_type = 'Lock' and ? = any(pg_blocking_pids(pid))`, [blocker]);
  return rows.map((r) => Number(r.pid));
}

interface BalanceTransaction {
  id: string;
  type: string;
  source: string;
  created_at: string;
}

async function balanceTransactions(merchant: TestMerchant, query = ''): Promise<BalanceTransaction[]> {
  const res = await h.request('sandbox', 'GET', `/v1/balance-transactions?limit=100${query}`, { key: merchant.testKey });
  expect(res.status).toBe(200);
  expect(res.json.has_more).toBe(false);
  return res.json.data;
}

async function postingDates(transferId: string): Promise<number[]> {
  const rows = await sql<{ created_at: Date }>(`select created_at from ledger_entries where transfer_id = ?`, [transferId]);
  return rows.map((r) => new Date(r.created_at).getTime());
}

test('a capture that waited behind a settlement sweep on the same balance row is dated after the sweep, and created_after finds it', async () => {
  const merchant = await h.merchant();
  await giveSettlementAccount(h, merchant.id);
  await succeededCharge(h, merchant, 20_000); // committed before the sweep: swept
  const late = await accept(patient, draftCharge(merchant.id, 15_000)); // captured behind the sweep
  // The capture's workflow takes its time first; the sweep's workflow a moment later.
  const captureAt = new Date().toISOString();
  await delay(20);
  const settlementId = newId('settlement');

  // The test holds the merchant's event counter (the sweep's last lock) and its tax balance row (the
  // capture's last balance row; a sweep never moves it).
  const counter = await hold(`select 1 from event_counters where merchant_id = ? and environment = 'sandbox' for update`, [merchant.id]);
  const tax = await hold(`select 1 from account_balances where merchant_id = ? and environment = 'sandbox' and currency = 'GHS' and account = 'tax' for update`, [merchant.id]);
  let sweep: Promise<unknown> | undefined;
  let capture: Promise<unknown> | undefined;
  try {
    // The sweep locks the available balance row first, writes its batch, and waits at the counter.
    sweep = sweepSettlement(patient, { settlementId, merchantId: merchant.id, environment: 'sandbox', currency: 'GHS', outcome: null, runId: null, at: new Date().toISOString() }, h.deps.secretBox);
    let sweeper: number[] = [];
    await until('the sweep waits at the counter', async () => (sweeper = await waitingOn(counter.pid)).length === 1);
    // The capture waits for the available balance row the sweep holds.
    capture = applyChargeTransition(patient, { chargeId: late.id, to: 'succeeded', failureClass: null, at: captureAt });
    await until('the capture waits behind the sweep', async () => (await waitingOn(sweeper[0])).length === 1);

    // The sweep commits; the capture gets the available row and waits for the tax row.
    await counter.release();
    await sweep;
    await until('the capture waits for the tax row', async () => (await waitingOn(tax.pid)).length === 1);

    // A merchant syncs now: the sweep is there, the capture is not committed yet.
    const seen = await balanceTransactions(merchant);
    expect(seen.map((t) => t.source)).toContain(settlementId);
    expect(seen.map((t) => t.id)).not.toContain(`bt_${late.id}:capture:available`);
    const newest = seen.map((t) => t.created_at).sort().at(-1)!;

    await tax.release();
    await capture;

    // The merchant's next sync, created_after the newest created_at it holds, finds the capture...
    const next = await balanceTransactions(merchant, `&created_after=${newest}`);
    expect(next.map((t) => t.id)).toContain(`bt_${late.id}:capture:available`);
    // ...whose postings are dated not earlier than any posting of the sweep it waited for.
    const sweptAt = Math.max(...(await postingDates(`${settlementId}:sweep`)));
    for (const at of await postingDates(`${late.id}:capture`)) expect(at).toBeGreaterThanOrEqual(sweptAt);
    for (const at of await postingDates(`${late.id}:hold_void`)) expect(at).toBeGreaterThanOrEqual(sweptAt);
  } finally {
    await counter.release();
    await tax.release();
    await Promise.allSettled([sweep, capture]);
  }

  // The batch swept what committed before it: every swept posting is dated at or before its
  // period_end, the capture (not swept) at or after it.
  const [batch] = await sql<{ period_end: Date }>(`select period_end from settlements where id = ?`, [settlementId]);
  const periodEnd = new Date(batch.period_end).getTime();
  const swept = await sql<{ transfer_id: string; created_at: Date }>(`select transfer_id, created_at from settlement_entries where settlement_id = ? and transfer_id <> ?`, [
    settlementId,
    `${settlementId}:sweep`,
  ]);
  expect(swept.map((r) => r.transfer_id)).not.toContain(`${late.id}:capture`);
  for (const r of swept) expect(new Date(r.created_at).getTime()).toBeLessThanOrEqual(periodEnd);
  for (const at of await postingDates(`${late.id}:capture`)) expect(at).toBeGreaterThanOrEqual(periodEnd);
});

test('an operator retry of a payout step that gave up dates its posting at the retry, not at the first attempt', async () => {
  const merchant = await h.merchant();
  await fundMerchant(h, merchant.id, 500_000);
  const reference = `retry-${randomBase62(10)}`;
  const refuse = `test_refuse_${randomBase62(8).toLowerCase()}`;
  // The database refuses this payout's failure (a class-23 error: not retried, the step gives up at once).
  await sql(`create function ${refuse}() returns trigger language plpgsql as $$ begin raise exception 'refused by the test' using errcode = 'check_violation'; end $$`);
  await sql(`create trigger ${refuse} before update on payouts for each row when (new.your_reference = '${reference}' and new.status = 'failed') execute function ${refuse}()`);
  let dropped = false;
  const drop = async () => {
    if (dropped) return;
    dropped = true;
    await sql(`drop trigger ${refuse} on payouts`);
    await sql(`drop function ${refuse}()`);
  };
  try {
    const res = await h.request('sandbox', 'POST', '/v1/payouts', {
      key: merchant.testKey,
      headers: { 'Idempotency-Key': idempotencyKey() },
      body: {
        amount: 30_000,
        currency: 'GHS',
        channel: 'mobile_money',
        momo_network_id: MTN_GH,
        recipient: { identifier: '233241234567', name: 'Kofi Boateng' },
        reference,
        metadata: { sandbox_outcome: 'declined' },
      },
    });
    expect(res.status).toBe(200);
    const id = res.json.id as string;
    const handle = h.temporal.client.workflow.getHandle(id);
    await until('the payout step gave up and waits for an operator', async () => {
      const attention = await handle.query<{ needsAttention: boolean; step: string | null }>('chargeAttention').catch(() => undefined);
      return attention?.needsAttention === true && attention.step === 'payout -> failed (declined)';
    });
    await drop();
    await delay(1_500);

    const retriedAt = Date.now();
    await retryChargeStep(h.temporal, id, 'the refusal is gone', 10_000, 'test:operator');
    expect(await handle.result()).toMatchObject({ id, status: 'failed', failureClass: 'declined' });

    const dates = await postingDates(`${id}:release`);
    expect(dates).toHaveLength(2);
    for (const at of dates) expect(at).toBeGreaterThanOrEqual(retriedAt);
    const release = (await balanceTransactions(merchant, `&source=${id}`)).find((t) => t.id === `bt_${id}:release:available`);
    expect(Date.parse(release!.created_at)).toBeGreaterThanOrEqual(retriedAt);
  } finally {
    await drop();
  }
});
