import { decidePayout } from '../../src/services/decide-payout';
import { lastTaskCompletedBy, until } from '../support/crash-probes';
import { balanceRows, fundMerchant } from '../support/fund-merchant';
import { idempotencyKey, MTN_GH, startHarness, type ApiResponse, type Harness, type TestMerchant } from '../support/harness';
import { allEvents, expectBalancesMatchPostings, ledgerRows } from '../support/ledger-rows';
import { killAllWorkers, startWorkerChild } from '../support/worker-child';

/**
 * Crash recovery of payouts with the real worker process (workers/main.ts), as worker-crash.test.ts
 * does it for charges: SIGKILL the worker while payouts are in flight (plain sandbox successes on
 * their three-second rail timer, and payouts held for review waiting for a decision), start a new
 * one, approve the held ones after the restart, and check that every payout reaches `succeeded`
 * exactly once: one `payout.succeeded` event each, its reserve and post transfers once each, the
 * merchant's sequences without gap, balances equal to the sums done by hand (and every balance row
 * equal to its account's postings). The API runs in this process with no worker of its own; the
 * harness runs the ledger check over the whole database when it closes.
 */

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ worker: false });
});
afterAll(async () => {
  await killAllWorkers();
  await h?.close();
});
// A failed test must not leave its worker polling into the next one.
afterEach(() => killAllWorkers());

const startWorker = () => startWorkerChild({ taskQueue: h.taskQueue });
const FUNDS = 10_000_000;

interface PayoutView {
  id: string;
  status: string;
  amount: number;
  fee: { platform: number; tax: number };
  total_debit: number;
}

function create(merchant: TestMerchant, amount: number, metadata: Record<string, unknown> = {}): Promise<ApiResponse> {
  return h.request('sandbox', 'POST', '/v1/payouts', {
    key: merchant.testKey,
    headers: { 'Idempotency-Key': idempotencyKey() },
    body: {
      amount,
      currency: 'GHS',
      channel: 'mobile_money',
      momo_network_id: MTN_GH,
      recipient: { identifier: '233241234567', name: 'Kofi Boateng' },
      reference: `crash-${amount}`,
      metadata,
    },
  });
}

async function sql<T>(query: string, params: unknown[] = []): Promise<T[]> {
  return h.orm.em.getConnection().execute<T[]>(query, params);
}

/** The timer the payout's workflow waits on (its `nextTimer` query), or null; needs a worker to answer. */
async function nextTimer(id: string): Promise<{ summary: string } | null> {
  return h.temporal.client.workflow
    .getHandle(id)
    .query<{ summary: string } | null>('nextTimer')
    .catch(() => null);
}

test('SIGKILL of the worker while payouts wait for the rail or for review: a new worker finishes each exactly once', async () => {
  const merchant = await h.merchant();
  await fundMerchant(h, merchant.id, FUNDS);
  const first = await startWorker();

  // Held for review first, each waiting on its review timer on the first worker; then the plain
  // ones, killed while their three-second sandbox completion runs.
  const heldAnswers = await Promise.all(Array.from({ length: 3 }, (_, i) => create(merchant, 50_000 + i * 101, { sandbox_outcome: 'held_for_review' })));
  expect(heldAnswers.map((r) => [r.status, r.json?.status])).toEqual(heldAnswers.map(() => [200, 'held_for_review']));
  const held = heldAnswers.map((r) => r.json as PayoutView);
  for (const p of held) await until(`${p.id} waits for review`, async () => (await nextTimer(p.id))?.summary.startsWith('review timeout') ?? false);

  const plainAnswers = await Promise.all(Array.from({ length: 9 }, (_, i) => create(merchant, 10_000 + i * 101)));
  expect(plainAnswers.map((r) => [r.status, r.json?.status])).toEqual(plainAnswers.map(() => [200, 'pending']));
  const plain = plainAnswers.map((r) => r.json as PayoutView);
  // At least one plain payout is on the rail on the first worker (its completion timer started).
  await until('a plain payout waits on its sandbox completion', async () => (await Promise.all(plain.map((p) => nextTimer(p.id)))).some((t) => t !== null));
  await first.kill();

  // The crash hit payouts still pending, and every held one still waiting for its decision.
  const open = (await sql<{ id: string }>(`select id from payouts where merchant_id = ? and status = 'pending'`, [merchant.id])).map((r) => r.id);
  expect(open.length).toBeGreaterThan(0);
  const stillHeld = await sql<{ id: string }>(`select id from payouts where merchant_id = ? and status = 'held_for_review'`, [merchant.id]);
  expect(stillHeld.map((r) => r.id).sort()).toEqual(held.map((p) => p.id).sort());
  const all = [...held, ...plain];
  const totalDebit = all.reduce((sum, p) => sum + p.total_debit, 0);
  // Nothing is posted out yet by payouts the crash left open; each open one still holds its reservation.
  expect((await ledgerRows(h, merchant.id)).filter((r) => open.includes(r.resource_id) && r.kind !== 'payout_reserve')).toEqual([]);

  const second = await startWorker();
  // The held payouts are approved after the restart: the new worker answers the update.
  for (const p of held) {
    const approved = JSON.parse(await decidePayout(h.orm, h.temporal, p.id, 'approve', 'known supplier, after the crash', 30_000, 'test:crash'));
    expect(approved).toMatchObject({ id: p.id, review: { decision: 'approved', reason: 'known supplier, after the crash' } });
  }

  // The workflows' results (long polls, no polling loop).
  const finals = await Promise.all(all.map((p) => h.temporal.client.workflow.getHandle(p.id).result() as Promise<{ id: string; status: string }>));
  expect(finals.map((f) => [f.id, f.status])).toEqual(all.map((p) => [p.id, 'succeeded']));
  const rows = await sql<{ id: string; status: string }>(`select id, status from payouts where merchant_id = ?`, [merchant.id]);
  expect(rows.map((r) => `${r.id} ${r.status}`).sort()).toEqual(all.map((p) => `${p.id} succeeded`).sort());

  // Each payout's transfers once: reserve and post, no release, nothing twice.
  const ledger = (await ledgerRows(h, merchant.id)).filter((r) => r.resource_id.startsWith('po_'));
  expect(new Set(ledger.map((r) => r.resource_id))).toEqual(new Set(all.map((p) => p.id)));
  for (const p of all) {
    const mine = ledger.filter((r) => r.resource_id === p.id);
    for (const r of mine) expect([r.transfer_id, r.account, r.n]).toEqual([r.transfer_id, r.account, '1']);
    const postings = (kind: string) => Object.fromEntries(mine.filter((r) => r.kind === kind).map((r) => [r.account, Number(r.amount)]));
    expect([...new Set(mine.map((r) => r.transfer_id))].sort()).toEqual([`${p.id}:post`, `${p.id}:reserve`]);
    expect(postings('payout_reserve')).toEqual({ merchant_available: -p.total_debit, merchant_reserved: p.total_debit });
    expect(postings('payout_post')).toEqual({ merchant_reserved: -p.total_debit, payout_clearing: p.amount, platform_fee: p.fee.platform, tax: p.fee.tax });
  }

  // One event per change of status; exactly one payout.succeeded per payout; sequences 1..M without gap.
  const log = await allEvents(h, merchant);
  expect(log.map((e) => e.sequence)).toEqual(Array.from({ length: log.length }, (_, i) => i + 1));
  expect(new Set(log.map((e) => e.id)).size).toBe(log.length);
  for (const p of held) expect(log.filter((e) => e.resource_id === p.id).map((e) => e.type)).toEqual(['payout.held_for_review', 'payout.initiated', 'payout.succeeded']);
  for (const p of plain) expect(log.filter((e) => e.resource_id === p.id).map((e) => e.type)).toEqual(['payout.initiated', 'payout.succeeded']);
  expect(log.length).toBe(3 * held.length + 2 * plain.length);

  // Balances by hand: the funds less every total_debit; nothing left reserved.
  expect(await balanceRows(h, merchant.id)).toMatchObject({ merchant_available: FUNDS - totalDebit, merchant_reserved: 0 });
  const balances = await h.request('sandbox', 'GET', '/v1/balances', { key: merchant.testKey });
  expect(balances.json).toMatchObject({ available: [{ currency: 'GHS', amount: FUNDS - totalDebit }], reserved: [{ currency: 'GHS', amount: 0 }] });
  await expectBalancesMatchPostings(h.orm, merchant.id);

  // One run per payout, completed; those open at the crash, and the approved ones, finished by the new worker.
  const descriptions = await Promise.all(all.map((p) => h.temporal.client.workflow.getHandle(p.id).describe()));
  expect(descriptions.map((d) => [d.workflowId, d.status.name])).toEqual(all.map((p) => [p.id, 'COMPLETED']));
  for (const id of [...open, ...held.map((p) => p.id)]) expect(await lastTaskCompletedBy(h, id)).toBe(second.identity);
  await second.stop();
  expect(await second.exited).toEqual({ code: 0, signal: null });
});
