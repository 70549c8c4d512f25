import { toChargeView } from '../../domain/charge';
import { disputeObject } from '../../domain/dispute';
import { isIdOf } from '../../domain/ids';
import { payoutObject } from '../../domain/payout';
import { refundObject } from '../../domain/refund';
import { settlementEntryObject, settlementObject, type SettlementEntryView } from '../../domain/settlement';
import { listCharges } from '../../persistence/charges/charge-list-store';
import { findCharge } from '../../persistence/charges/charge-store';
import { findDispute, listDisputes } from '../../persistence/disputes/dispute-store';
import type { Orm } from '../../persistence/orm';
import { listPayouts } from '../../persistence/payouts/payout-list-store';
import { findPayout } from '../../persistence/payouts/payout-store';
import { findRefund, listRefunds } from '../../persistence/refunds/refund-store';
import { listSettlementEntries } from '../../persistence/settlements/settlement-entries-store';
import { listSettlements } from '../../persistence/settlements/settlement-list-store';
import { findSettlement } from '../../persistence/settlements/settlement-store';
import { encodeListCursor } from '../../persistence/sql-values';
import type { Caller } from '../../services/context';
import { DISPUTE_LIST, REFUND_LIST } from '../../services/payment-lists';
import { ofChargeSql, paymentsPageSql, type PaymentFilters, type PaymentTab } from './payments-filters';

/**
 * The Payments pages' data, through the stores the API's routes use (src/http/routes/charges.ts,
 * charge-list.ts, payouts.ts, refunds.ts, disputes.ts, settlements.ts), scoped to the session's
 * merchant and environment, each object as the API shows it (toChargeView, payoutObject,
 * refundObject, disputeObject, settlementObject: masked customer and recipient, masked account).
 */

export type PaymentKind = 'charge' | 'payout' | 'refund' | 'dispute' | 'settlement';

/** An object as the API returns it (a plain JSON object: metadata parsed). */
export type ApiObject = { id: string; object: string; status: string; amount: number; currency: string; created_at: string } & Record<string, unknown>;

export interface Payment {
  kind: PaymentKind;
  view: ApiObject;
  /** The merchant's metadata as sent (charges, payouts, refunds), else `{}`. */
  metadataJson: string;
  /** A payout's first event is `payout.held_for_review` when it was held at acceptance. */
  heldAtAcceptance?: boolean;
}

export const KIND_OF_TAB: Record<PaymentTab, PaymentKind> = { charges: 'charge', payouts: 'payout', refunds: 'refund', disputes: 'dispute', settlements: 'settlement' };

const asObject = (view: object): ApiObject => view as ApiObject;

/** The page of one tab, newest first, and the API's next_cursor when there is more. */
export async function listPayments(orm: Orm, caller: Caller, filters: PaymentFilters): Promise<{ rows: Payment[]; nextCursor: string | null }> {
  const page = paymentsPageSql(filters);
  const rows = await fetchPage(orm, caller, filters.tab, page);
  const kept = rows.slice(0, filters.limit);
  const last = kept[kept.length - 1];
  const more = rows.length > filters.limit && last;
  return { rows: kept.map((r) => r.payment), nextCursor: more ? encodeListCursor({ createdAt: last.createdAt, id: last.payment.view.id }) : null };
}

async function fetchPage(orm: Orm, caller: Caller, tab: PaymentTab, page: { sql: string; params: unknown[] }): Promise<{ payment: Payment; createdAt: string }[]> {
  switch (tab) {
    case 'charges':
      return (await listCharges(orm, caller, page)).map((r) => ({ payment: { kind: 'charge', view: asObject(toChargeView(r)), metadataJson: r.metadataJson }, createdAt: r.createdAt }));
    case 'payouts':
      return (await listPayouts(orm, caller, page)).map((r) => ({ payment: { kind: 'payout', view: asObject(payoutObject(r)), metadataJson: r.metadataJson, heldAtAcceptance: r.requiresReview }, createdAt: r.createdAt }));
    case 'refunds':
      return (await listRefunds(orm, caller, page)).map((r) => ({ payment: { kind: 'refund', view: asObject(refundObject(r)), metadataJson: r.metadataJson }, createdAt: r.createdAt }));
    case 'disputes':
      return (await listDisputes(orm, caller, page)).map((r) => ({ payment: { kind: 'dispute', view: asObject(disputeObject(r)), metadataJson: '{}' }, createdAt: r.createdAt }));
    case 'settlements':
      return (await listSettlements(orm, caller, page)).map((r) => ({ payment: { kind: 'settlement', view: asObject(settlementObject(r)), metadataJson: '{}' }, createdAt: r.createdAt }));
  }
}

/** The kind of a payment id, from its prefix and shape (src/domain/ids.ts), or null: such an id was never issued. */
export function paymentKindOf(id: string): PaymentKind | null {
  return (['charge', 'payout', 'refund', 'dispute', 'settlement'] as const).find((kind) => isIdOf(kind, id)) ?? null;
}

/** The payment if it is the caller's merchant's, in the caller's environment (else null: 404). */
export async function findPayment(orm: Orm, caller: Caller, id: string): Promise<Payment | null> {
  switch (paymentKindOf(id)) {
    case 'charge': {
      const r = await findCharge(orm, caller, id);
      return r && { kind: 'charge', view: asObject(toChargeView(r)), metadataJson: r.metadataJson };
    }
    case 'payout': {
      const r = await findPayout(orm, caller, id);
      return r && { kind: 'payout', view: asObject(payoutObject(r)), metadataJson: r.metadataJson, heldAtAcceptance: r.requiresReview };
    }
    case 'refund': {
      const r = await findRefund(orm, caller, id);
      return r && { kind: 'refund', view: asObject(refundObject(r)), metadataJson: r.metadataJson };
    }
    case 'dispute': {
      const r = await findDispute(orm, caller, id);
      return r && { kind: 'dispute', view: asObject(disputeObject(r)), metadataJson: '{}' };
    }
    case 'settlement': {
      const r = await findSettlement(orm, caller, id);
      return r && { kind: 'settlement', view: asObject(settlementObject(r)), metadataJson: '{}' };
    }
    default:
      return null;
  }
}

/** How many related objects a detail page shows of each kind. */
export const RELATED_LIMIT = 50;

export interface Related {
  /** A refund's or dispute's charge. */
  charge?: Payment;
  /** A charge's refunds and disputes, newest first (`more`: there are more than RELATED_LIMIT). */
  refunds?: { rows: Payment[]; more: boolean };
  disputes?: { rows: Payment[]; more: boolean };
  /** A settlement's swept ledger postings, newest first (as GET /v1/settlements/{id}/entries). */
  entries?: { rows: SettlementEntryView[]; more: boolean };
}

export async function relatedOf(orm: Orm, caller: Caller, payment: Payment): Promise<Related> {
  const id = payment.view.id;
  switch (payment.kind) {
    case 'charge': {
      const [refunds, disputes] = await Promise.all([listRefunds(orm, caller, ofChargeSql(REFUND_LIST, id, RELATED_LIMIT)), listDisputes(orm, caller, ofChargeSql(DISPUTE_LIST, id, RELATED_LIMIT))]);
      return {
        refunds: { rows: refunds.slice(0, RELATED_LIMIT).map((r) => ({ kind: 'refund', view: asObject(refundObject(r)), metadataJson: r.metadataJson })), more: refunds.length > RELATED_LIMIT },
        disputes: { rows: disputes.slice(0, RELATED_LIMIT).map((r) => ({ kind: 'dispute', view: asObject(disputeObject(r)), metadataJson: '{}' })), more: disputes.length > RELATED_LIMIT },
      };
    }
    case 'refund':
    case 'dispute': {
      const chargeId = String(payment.view.charge);
      const charge = await findPayment(orm, caller, chargeId);
      return charge ? { charge } : {};
    }
    case 'settlement': {
      const entries = await listSettlementEntries(orm, id, { limit: RELATED_LIMIT, cursor: null });
      return { entries: { rows: entries.slice(0, RELATED_LIMIT).map(settlementEntryObject), more: entries.length > RELATED_LIMIT } };
    }
    default:
      return {};
  }
}
