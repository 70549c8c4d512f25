import type { ChargeDraft, ChargeRecord } from '../../src/domain/charge';
import type { Environment } from '../../src/domain/environment';
import { applyChargeTransition, recordAcceptedCharge } from '../../src/persistence/charges/charge-store';
import type { Orm } from '../../src/persistence/orm';
import { buildChargeDraft } from '../../src/services/charge-draft';
import { newId } from '../../src/support/new-id';

/**
 * Charges written straight through the charge store (the worker's own database steps), with no
 * workflow: for tests of the store's transactions, locks and balance rows.
 */

/** A mobile-money charge draft as the API would build it. */
export function draftCharge(merchantId: string, amount: number, options: { currency?: string; environment?: Environment } = {}): ChargeDraft {
  const caller = { merchantId, environment: options.environment ?? 'sandbox', keyId: 'key_test', merchantVerified: true };
  const request = {
    amount,
    currency: options.currency ?? 'GHS',
    channel: 'mobile_money' as const,
    momo_network_id: '3f9c2b1e-8a4d-4c6e-9b7a-1d2e3f4a5b01',
    customer: { identifier: '233241234567' },
  };
  return buildChargeDraft(caller, newId('charge'), request, new Date());
}

/** Accepts a charge (projection, hold, `transaction.created`). */
export function accept(orm: Orm, draft: ChargeDraft): Promise<ChargeRecord> {
  return recordAcceptedCharge(orm, draft);
}

/** Moves an accepted charge to `succeeded` (hold void, capture, `transaction.succeeded`). */
export function succeed(orm: Orm, chargeId: string): Promise<ChargeRecord> {
  return applyChargeTransition(orm, { chargeId, to: 'succeeded', failureClass: null, at: new Date().toISOString() });
}
