import { PAYMENT_QUEUES } from '../support/harness';
import { unansweredBatchSkip } from '../../src/domain/settlement-run';
import type { FakePartner } from '../../src/rail/fake-partner';
import { retrySettlement } from '../../src/services/retry-settlement';
import { runSettlements } from '../../src/services/settlement-run';
import { balanceRows, fundMerchant } from '../support/fund-merchant';
import type { Harness } from '../support/harness';
import { startPartnerHarness, type PartnerHarness } from '../support/partner-harness';
import { giveSettlementAccount } from '../support/settlement-runs';

/**
 * Issue 29, finding 2, against PostgreSQL, the Temporal dev server and the fake partner: a live
 * settlement batch the partner has not answered keeps its money in transit, and nothing sweeps that
 * balance again (the daily run skips it, saying why) until the partner's word; then the next run
 * settles what came in meanwhile. Before, the batch failed at 24 h, its money went back to available,
 * and the next run paid it again under a new reference.
 */

let partner: PartnerHarness;
let fake: FakePartner;
let h: Harness;

beforeAll(async () => {
  partner = await startPartnerHarness({ queues: PAYMENT_QUEUES });
  ({ h, fake } = partner);
});
afterAll(async () => {
  await partner?.close();
});

const settlementRow = async (id: string) =>
  (await h.orm.em.getConnection().execute<Array<{ status: string; amount: string }>>(`select status, amount::text as amount from settlements where id = ?`, [id]))[0];

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const stop = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > stop) throw new Error(`${what}: not after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

test('an unanswered live batch: its balance is skipped and no retry goes out until the partner answers; then the next run settles the rest', async () => {
  const m = await h.merchant({ verified: true });
  await fundMerchant(h, m.id, 50_000, 'GHS', 'live');
  await giveSettlementAccount(h, m.id, '0012345670004', 'GCB'); // 0004: the partner never answers by itself
  const deps = { orm: h.orm, client: h.temporal.client, taskQueue: h.taskQueue };

  const first = await runSettlements(deps, { merchantId: m.id, environment: 'live' });
  expect(first.batches).toHaveLength(1);
  const batch = first.batches[0].id;
  await until('the transfer reached the partner', async () => (await h.orm.em.getConnection().execute(`select 1 from rail_references where payment_id = ?`, [batch])).length > 0);
  expect(await settlementRow(batch)).toMatchObject({ status: 'pending', amount: '50000' });

  // More money comes in; the daily run skips the balance while the batch has no answer.
  await fundMerchant(h, m.id, 10_000, 'GHS', 'live');
  const second = await runSettlements(deps, { merchantId: m.id, environment: 'live' });
  expect(second.batches).toEqual([]);
  expect(second.skips).toEqual([{ merchant_id: m.id, environment: 'live', currency: 'GHS', reason: unansweredBatchSkip(batch) }]);
  const rows = await balanceRows(h, m.id, 'GHS', 'live');
  expect([rows.merchant_available, rows.merchant_reserved]).toEqual([10_000, 50_000]);
  // And no retry: the batch is not failed (it never is without the partner's word).
  await expect(retrySettlement(h.orm, h.temporal, batch, 'looks stuck')).rejects.toThrow(/is pending: only a failed batch can be retried/);

  // The partner pays it: paid; the next run settles what came in meanwhile, once.
  const [{ reference_id: ref }] = await h.orm.em.getConnection().execute<Array<{ reference_id: string }>>(`select reference_id::text from rail_references where payment_id = ?`, [batch]);
  expect(fake.settle('disbursement', ref, { status: 'SUCCESSFUL' })).toBe(true);
  await h.temporal.client.workflow.getHandle(batch).result();
  expect(await settlementRow(batch)).toMatchObject({ status: 'paid' });
  await giveSettlementAccount(h, m.id, '0012345674567', 'GCB');
  const third = await runSettlements(deps, { merchantId: m.id, environment: 'live' });
  expect(third.batches).toHaveLength(1);
  await h.temporal.client.workflow.getHandle(third.batches[0].id).result();
  expect(await settlementRow(third.batches[0].id)).toMatchObject({ status: 'paid', amount: '10000' });
  const after = await balanceRows(h, m.id, 'GHS', 'live');
  expect([after.merchant_available, after.merchant_reserved]).toEqual([0, 0]);
}, 90_000);
