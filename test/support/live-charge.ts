import type { ChargeRecord } from '../../src/domain/charge';
import { insertAcceptedCharge } from '../../src/persistence/charges/charge-store';
import { buildChargeDraft, type ChargeRequest } from '../../src/services/charge-draft';
import { newId } from '../../src/support/new-id';
import { startChargeWorkflow } from '../../src/temporal/charge-start';
import { chargeBody, type Harness, type TestMerchant } from './harness';

/**
 * Test only: a live charge as the API would write it if a live rail existed. The live listener
 * refuses money movement (503 `live_unavailable`), so tests of environment separation write the
 * charge (row, hold, `transaction.created`) directly and start its workflow as the API does; the
 * workflow then fails it at once (`partner_unavailable`: no live rail, no simulated success).
 */
export async function writeLiveCharge(h: Harness, merchant: TestMerchant, overrides: Record<string, unknown> = {}): Promise<ChargeRecord> {
  const request = chargeBody(overrides) as unknown as ChargeRequest;
  const caller = { merchantId: merchant.id, environment: 'live' as const, keyId: 'key_test_only', merchantVerified: true };
  const { sandboxOutcome: _, ...record } = buildChargeDraft(caller, newId('charge'), request, new Date());
  await h.orm.em.fork().transactional((em) => insertAcceptedCharge(em, record));
  await startChargeWorkflow(h.temporal.client, h.taskQueue, record);
  return record;
}
