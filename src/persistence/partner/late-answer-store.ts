import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { chargeJson, type ChargeRecord } from '../../domain/charge';
import { canSettleLate } from '../../domain/charge-status';
import { newUuid } from '../../support/new-id';
import { lateClearTransfer, lateCreditTransfer, lateReceiptTransfer, lateReserveTransfer, lateReturnPaidTransfer, lateReturnTransfer, type LateAmounts } from '../../domain/late-answer-ledger';
import { captureTransfer, type Transfer } from '../../domain/ledger';
import { canPayoutSettleLate, payoutJson, type PayoutRecord } from '../../domain/payout';
import { payoutPostTransfer } from '../../domain/payout-ledger';
import { reviewedKind, type ReviewedKind, type SettleLateAction } from '../../domain/payment-review';
import { settlementJson, type SettlementRecord } from '../../domain/settlement';
import { settlementPostTransfer } from '../../domain/settlement-ledger';
import type { Environment } from '../../domain/environment';
import { rowToRecord } from '../charges/charge-mapping';
import { Charge } from '../entities';
import type { InferEntity } from '@mikro-orm/postgresql';
import type { Orm } from '../orm';
import { rowToPayout } from '../payouts/payout-mapping';
import { rowToSettlement } from '../settlements/settlement-mapping';
import { writeStateChange } from '../state-change';
import { acceptBelowZeroRefusal } from './late-accept-funds';
import { passGate, type GatedKind } from '../payment-gate';
import { recordRailAnswer, type RailAnswerSource } from './rail-answer-store';
import { lateMoneyDifference } from '../../domain/late-money-difference';
import type { RailResource } from '../../rail/partner-rail';
import { refundJson, type RefundRecord } from '../../domain/refund';
import { rowToRefund } from '../refunds/refund-mapping';
import { refundTransfersFor } from '../../domain/refund-ledger';

/**
 * Late money (issue 29; docs/partner-rail.md, "Late answers"): a SUCCESSFUL from the partner for a
 * payment we had ended. Recorded once (a `late_answers` row, the `late_funds` posting of
 * src/domain/late-answer-ledger.ts and the `<type>.late_success` event, in one transaction), then
 * settled once by an operator (credit, return or accept), again in one transaction with its
 * postings and events.
 */

/** The payment a review looks at, as our records hold it. */
export interface LateSubject {
  paymentId: string;
  kind: ReviewedKind;
  status: string;
  merchantId: string;
  environment: Environment;
  amount: number;
  currency: string;
}

/** One late_answers row, as the CLI and the workflow see it. */
export interface LateAnswer {
  payment_id: string;
  kind: ReviewedKind;
  product: RailResource;
  merchant_id: string;
  environment: string;
  partner_status: string;
  financial_transaction_id: string | null;
  amount: number;
  currency: string;
  partner_amount: number | null;
  partner_currency: string | null;
  our_status: string;
  recorded_at: string;
  settled_action: SettleLateAction | null;
  settled_by: string | null;
  settled_at: string | null;
  return_reference_id: string | null;
  return_status: string | null;
  /** Whether its money sits in `late_funds`: false when the partner's amount or currency differ from ours (issue 43: nothing moved). */
  held_in_late_funds: boolean;
}

/** A late SUCCESSFUL as the review hands it over. */
export interface LateSuccessInput {
  paymentId: string;
  product: RailResource;
  financialTransactionId: string | null;
  partnerAmount?: number;
  partnerCurrency?: string;
  at: string;
  /** Where the SUCCESSFUL was read (its rail_answers row): a status answer unless said. */
  source?: RailAnswerSource;
}

/** A settle request the store refuses (wrong action for the payment, already settled otherwise, nothing recorded). */
export class LateSettleRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LateSettleRefusedError';
  }
}

/**
 * How the partner's late SUCCESSFUL differs from the payment (its amount or currency), or null
 * (issue 43): such late money is recorded, flagged, and never settled as ours.
 */
export function lateAnswerDifference(answer: Pick<LateAnswer, 'amount' | 'currency' | 'partner_amount' | 'partner_currency'>): string | null {
  return lateMoneyDifference({ amount: answer.amount, currency: answer.currency }, { amount: answer.partner_amount, currency: answer.partner_currency });
}

/** Whether a payment in `status` ended without the money moving (so a late SUCCESSFUL is late money). */
export function endedWithoutMoney(kind: ReviewedKind, status: string): boolean {
  return kind === 'charge' ? status === 'expired' || status === 'failed' : status === 'failed';
}

/** Whether our record says the money moved (the partner's SUCCESSFUL agrees). */
export function endedWithMoney(kind: ReviewedKind, status: string): boolean {
  if (kind === 'settlement') return status === 'paid';
  return status === 'succeeded' || status === 'reversed';
}

const TABLE_OF: Record<ReviewedKind, string> = { charge: 'charges', payout: 'payouts', settlement: 'settlements', refund: 'refunds' };

/** The payment as our records hold it, or null (an id of another kind, or none). */
export async function lateSubject(orm: Orm | EntityManager, paymentId: string): Promise<LateSubject | null> {
  const kind = reviewedKind(paymentId);
  if (!kind) return null;
  const em = 'em' in orm ? orm.em.fork() : orm;
  const rows = await em.execute<Array<{ status: string; merchant_id: string; environment: Environment; amount: string; currency: string }>>(
    `select status, merchant_id, environment, amount::text as amount, currency from ${TABLE_OF[kind]} where id = ?`,
    [paymentId],
  );
  const row = rows[0];
  return row ? { paymentId, kind, status: row.status, merchantId: row.merchant_id, environment: row.environment, amount: Number(row.amount), currency: row.currency } : null;
}

export async function findLateAnswer(orm: Orm | EntityManager, paymentId: string): Promise<LateAnswer | null> {
  const em = 'em' in orm ? orm.em.fork() : orm;
  const rows = await em.execute<Record<string, unknown>[]>(`select * from late_answers where payment_id = ?`, [paymentId]);
  return rows[0] ? toAnswer(rows[0]) : null;
}

function toAnswer(row: Record<string, unknown>): LateAnswer {
  const iso = (v: unknown) => (v == null ? null : new Date(v as string).toISOString());
  const num = (v: unknown) => (v == null ? null : Number(v));
  return {
    ...(row as unknown as LateAnswer),
    amount: Number(row.amount),
    partner_amount: num(row.partner_amount),
    recorded_at: iso(row.recorded_at)!,
    settled_at: iso(row.settled_at),
    return_reference_id: row.return_reference_id == null ? null : String(row.return_reference_id),
    held_in_late_funds: row.held_in_late_funds !== false,
  };
}

/** A payment row locked, with what its events and postings need. */
type Locked =
  | { kind: 'charge'; record: ChargeRecord; row: InferEntity<typeof Charge>; amounts: LateAmounts }
  | { kind: 'payout'; record: PayoutRecord; amounts: LateAmounts }
  | { kind: 'settlement'; record: SettlementRecord; amounts: LateAmounts }
  | { kind: 'refund'; record: RefundRecord; amounts: LateAmounts };

async function lockPayment(em: EntityManager, paymentId: string): Promise<Locked | null> {
  const kind = reviewedKind(paymentId);
  if (kind === 'charge') {
    const row = await em.findOne(Charge, { id: paymentId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!row) return null;
    const record = rowToRecord(row);
    return { kind, record, row, amounts: { id: record.id, amount: record.amount, totalDebit: record.amount } };
  }
  if (kind === 'payout') {
    const rows = await em.execute<Record<string, unknown>[]>(`select * from payouts where id = ? for update`, [paymentId]);
    if (!rows[0]) return null;
    const record = rowToPayout(rows[0]);
    return { kind, record, amounts: { id: record.id, amount: record.amount, totalDebit: record.totalDebit } };
  }
  if (kind === 'settlement') {
    const rows = await em.execute<Record<string, unknown>[]>(`select * from settlements where id = ? for update`, [paymentId]);
    if (!rows[0]) return null;
    const record = rowToSettlement(rows[0]);
    return { kind, record, amounts: { id: record.id, amount: record.amount, totalDebit: record.amount } };
  }
  if (kind === 'refund') {
    const rows = await em.execute<Record<string, unknown>[]>(`select * from refunds where id = ? for update`, [paymentId]);
    if (!rows[0]) return null;
    const record = rowToRefund(rows[0]);
    return { kind, record, amounts: { id: record.id, amount: record.amount, totalDebit: record.amount } };
  }
  return null;
}

const RESOURCE_TYPE: Record<ReviewedKind, string> = { charge: 'transaction', payout: 'payout', settlement: 'settlement', refund: 'refund' };

function jsonOf(locked: Locked): string {
  if (locked.kind === 'charge') return chargeJson(locked.record);
  if (locked.kind === 'payout') return payoutJson(locked.record);
  if (locked.kind === 'refund') return refundJson(locked.record);
  return settlementJson(locked.record);
}

/** The event type of late money recorded: `transaction.late_success`, `payout.late_success`, `settlement.late_success`. */
export const lateEventType = (kind: ReviewedKind) => `${RESOURCE_TYPE[kind]}.late_success`;

async function writeLateChange(em: EntityManager, locked: Locked, transfers: Transfer[], at: string, eventType: string, railAnswerId: string | null = null): Promise<void> {
  const { record } = locked;
  await writeStateChange(em, record, transfers, at, {
    type: eventType,
    resourceType: RESOURCE_TYPE[locked.kind],
    ...(locked.kind === 'charge' ? { transactionId: record.id } : locked.kind === 'refund' ? { transactionId: locked.record.chargeId } : {}),
    dataJson: jsonOf(locked),
    railAnswerId,
  });
}

/**
 * Records late money, in one transaction under the payment's row lock: the late_answers row, the
 * `late_funds` posting and the `<type>.late_success` event. `recorded` false when it was recorded
 * before (the row is answered as stored) or the payment did not end without its money moving
 * (`answer` null then). Issue 43: a SUCCESSFUL whose amount or currency differ from the payment's
 * is recorded (the late_answers row with the partner's amount and currency, `held_in_late_funds`
 * false, and its rail_answers row) and nothing else: no posting, no event; settle-late refuses it.
 */
export async function recordLateSuccess(orm: Orm, input: LateSuccessInput): Promise<{ recorded: boolean; answer: LateAnswer | null }> {
  return orm.em.fork().transactional(async (em) => {
    const locked = await lockPayment(em, input.paymentId);
    if (!locked) throw new Error(`payment ${input.paymentId} does not exist`);
    const known = await findLateAnswer(em, input.paymentId);
    if (known) return { recorded: false, answer: known };
    const { record } = locked;
    if (!endedWithoutMoney(locked.kind, record.status)) return { recorded: false, answer: null };
    const difference = lateMoneyDifference({ amount: locked.amounts.amount, currency: record.currency }, { amount: input.partnerAmount, currency: input.partnerCurrency });
    // The partner's word the status gate reads when an operator settles it (`credit`, `accept`).
    await recordRailAnswer(em, {
      paymentId: record.id,
      source: input.source ?? 'status',
      outcome: 'succeeded',
      partnerStatus: 'SUCCESSFUL',
      amount: input.partnerAmount ?? null,
      currency: input.partnerCurrency ?? null,
      partnerTransactionId: input.financialTransactionId,
    });
    const rows = await em.execute<Record<string, unknown>[]>(
      `insert into late_answers (payment_id, kind, product, merchant_id, environment, partner_status, financial_transaction_id, amount, currency,
         partner_amount, partner_currency, our_status, recorded_at, held_in_late_funds)
       values (?, ?, ?, ?, ?, 'SUCCESSFUL', ?, ?, ?, ?, ?, ?, ?, ?) returning *`,
      [
        record.id,
        locked.kind,
        input.product,
        record.merchantId,
        record.environment,
        input.financialTransactionId,
        locked.amounts.amount,
        record.currency,
        input.partnerAmount ?? null,
        input.partnerCurrency ?? null,
        record.status,
        input.at,
        difference === null,
      ],
    );
    // The partner's amount or currency differ from ours: nothing moves (an operator takes it up with the partner).
    if (difference === null) await writeLateChange(em, locked, [lateReceiptTransfer(locked.kind, locked.amounts)], input.at, lateEventType(locked.kind));
    return { recorded: true, answer: toAnswer(rows[0]) };
  });
}

/** A settle request as the review's activity hands it over (validated by the workflow). */
export interface SettleLateInput {
  paymentId: string;
  action: SettleLateAction;
  operator: string;
  at: string;
}

/** The payment's status and the late money's settlement, before and after. */
export interface SettledLate {
  applied: boolean;
  before: { status: string; settled_action: SettleLateAction | null };
  after: { status: string; settled_action: SettleLateAction | null; return_status: string | null };
}

/**
 * Settles late money once, in one transaction under the payment's row lock:
 * - `credit` (charge): expired/failed → succeeded (canSettleLate), `late_credit` and the normal
 *   capture, `transaction.succeeded` (webhook and notifications as for any success);
 * - `return` (charge): `late_return` into returns_in_transit, the return transfer requested with its
 *   own partner reference (the review then sends it); the charge keeps its status;
 * - `accept` (payout, settlement): failed → succeeded / paid, reserved again from available (refused
 *   when available does not hold it: never below zero, issue 43), the normal post, the suspense cleared, `payout.succeeded` / `settlement.paid`.
 * The same action again answers the stored result (`applied` false); another action is refused.
 */
export async function settleLateMoney(orm: Orm, input: SettleLateInput): Promise<SettledLate> {
  return orm.em.fork().transactional(async (em) => {
    const locked = await lockPayment(em, input.paymentId);
    if (!locked) throw new LateSettleRefusedError(`payment ${input.paymentId} does not exist`);
    const answers = await em.execute<Record<string, unknown>[]>(`select * from late_answers where payment_id = ? for update`, [input.paymentId]);
    if (!answers[0]) throw new LateSettleRefusedError(`payment ${input.paymentId} has no late money recorded: nothing to settle`);
    const answer = toAnswer(answers[0]);
    const before = { status: locked.record.status, settled_action: answer.settled_action };
    if (answer.settled_action) {
      if (answer.settled_action !== input.action) throw new LateSettleRefusedError(`payment ${input.paymentId}: its late money was already settled with "${answer.settled_action}"`);
      return { applied: false, before, after: { status: locked.record.status, settled_action: answer.settled_action, return_status: answer.return_status } };
    }
    // Issue 43: the partner's word must be for our amount and currency, in the late answer and in every SUCCESSFUL recorded.
    const difference = lateAnswerDifference(answer) ?? (await recordedSuccessDifference(em, answer));
    if (difference) {
      throw new LateSettleRefusedError(
        `payment ${input.paymentId}: its late money is not settled while the partner's SUCCESSFUL differs from the payment (${difference}): ` +
          `nothing was credited, returned or moved for it; take it up with the partner (payments late lists it, its review names the difference)`,
      );
    }
    let status = locked.record.status as string;
    if (locked.kind === 'charge') {
      if (input.action === 'credit') {
        if (!canSettleLate(locked.record.status, 'succeeded')) throw new LateSettleRefusedError(`charge ${input.paymentId} is ${locked.record.status}: only an expired or failed charge is credited late`);
        const after: ChargeRecord = { ...locked.record, status: 'succeeded', failureClass: null, updatedAt: input.at };
        const railAnswerId = await gateLate(em, 'charge', locked.record.id, locked.record.status, after.status, { failure_class: null, updated_at: new Date(input.at) });
        const credited: Locked = { ...locked, record: after };
        await writeLateChange(em, credited, [lateCreditTransfer(locked.amounts), captureTransfer(after)], input.at, 'transaction.succeeded', railAnswerId);
        status = after.status;
      } else if (input.action === 'return') {
        await em.execute(`update late_answers set return_reference_id = ?::uuid, return_status = 'requested' where payment_id = ?`, [newUuid(), input.paymentId]);
        await writeLateChange(em, locked, [lateReturnTransfer(locked.amounts)], input.at, 'transaction.late_return');
      } else {
        throw new LateSettleRefusedError('a charge is settled with "credit" or "return"');
      }
    } else {
      if (input.action !== 'accept') throw new LateSettleRefusedError(`a ${locked.kind} is settled with "accept"`);
      // Issue 43: never below zero (the money is reserved again from available).
      const belowZero = await acceptBelowZeroRefusal(em, locked.kind, locked.record, locked.amounts.totalDebit);
      if (belowZero) throw new LateSettleRefusedError(belowZero);
      if (locked.kind === 'refund') {
        if (locked.record.status !== 'failed') throw new LateSettleRefusedError(`refund ${input.paymentId} is ${locked.record.status}: only a failed refund is accepted late`);
        await refundedWithinCharge(em, locked.record);
        const after: RefundRecord = { ...locked.record, status: 'succeeded', failureClass: null, updatedAt: input.at };
        const railAnswerId = await gateLate(em, 'refund', input.paymentId, 'failed', 'succeeded', { failure_class: null, updated_at: new Date(input.at) });
        await em.execute(`update charges set amount_refunded = amount_refunded + ? where id = ?`, [after.amount, after.chargeId]);
        const transfers = [lateReserveTransfer('refund', locked.amounts), ...refundTransfersFor(after, 'succeeded'), lateClearTransfer('refund', locked.amounts)];
        await writeLateChange(em, { ...locked, record: after }, transfers, input.at, 'refund.succeeded', railAnswerId);
        status = after.status;
      } else if (locked.kind === 'payout') {
        if (!canPayoutSettleLate(locked.record.status, 'succeeded')) throw new LateSettleRefusedError(`payout ${input.paymentId} is ${locked.record.status}: only a failed payout is accepted late`);
        const after: PayoutRecord = { ...locked.record, status: 'succeeded', failureClass: null, updatedAt: input.at };
        const railAnswerId = await gateLate(em, 'payout', input.paymentId, 'failed', 'succeeded', { failure_class: null, updated_at: input.at });
        const transfers = [lateReserveTransfer('payout', locked.amounts), payoutPostTransfer(after), lateClearTransfer('payout', locked.amounts)];
        await writeLateChange(em, { ...locked, record: after }, transfers, input.at, 'payout.succeeded', railAnswerId);
        status = after.status;
      } else {
        if (locked.record.status !== 'failed') throw new LateSettleRefusedError(`settlement ${input.paymentId} is ${locked.record.status}: only a failed settlement is accepted late`);
        const after: SettlementRecord = { ...locked.record, status: 'paid', paidAt: input.at, failureClass: null, updatedAt: input.at };
        const railAnswerId = await gateLate(em, 'settlement', input.paymentId, 'failed', 'paid', { paid_at: input.at, failure_class: null, updated_at: input.at });
        const transfers = [lateReserveTransfer('settlement', locked.amounts), settlementPostTransfer(after), lateClearTransfer('settlement', locked.amounts)];
        await writeLateChange(em, { ...locked, record: after }, transfers, input.at, 'settlement.paid', railAnswerId);
        status = after.status;
      }
    }
    const [settled] = await em.execute<Record<string, unknown>[]>(
      `update late_answers set settled_action = ?, settled_by = ?, settled_at = ? where payment_id = ? returning *`,
      [input.action, input.operator, input.at, input.paymentId],
    );
    const row = toAnswer(settled);
    return { applied: true, before, after: { status, settled_action: row.settled_action, return_status: row.return_status } };
  });
}

/**
 * A refund accepted late counts in its charge's `amount_refunded`, which never exceeds the charge
 * (charges_amount_refunded): refused, with the figures, when other refunds took the rest meanwhile.
 */
async function refundedWithinCharge(em: EntityManager, refund: RefundRecord): Promise<void> {
  const rows = await em.execute<Array<{ amount: string; amount_refunded: string }>>(`select amount::text as amount, amount_refunded::text as amount_refunded from charges where id = ? for update`, [refund.chargeId]);
  const charge = rows[0];
  if (!charge) throw new LateSettleRefusedError(`refund ${refund.id}: its charge ${refund.chargeId} does not exist`);
  if (Number(charge.amount_refunded) + refund.amount > Number(charge.amount)) {
    throw new LateSettleRefusedError(
      `refund ${refund.id}: accepting it would refund charge ${refund.chargeId} ${Number(charge.amount_refunded) + refund.amount} of its ${charge.amount} minor units ` +
        `(refunded already ${charge.amount_refunded}): the payer was paid back twice at the partner. Not accepted, nothing changed; the late money stays recorded (late_funds): take it up with the partner`,
    );
  }
}

/** A difference between the payment and any SUCCESSFUL of the partner recorded for it (rail_answers: a status, a callback, a statement line), or null. */
async function recordedSuccessDifference(em: EntityManager, answer: LateAnswer): Promise<string | null> {
  const rows = await em.execute<Array<{ amount: string | null; currency: string | null }>>(
    `select amount::text as amount, currency from rail_answers where payment_id = ? and outcome = 'succeeded' order by id`,
    [answer.payment_id],
  );
  for (const row of rows) {
    const difference = lateMoneyDifference({ amount: answer.amount, currency: answer.currency }, { amount: row.amount == null ? null : Number(row.amount), currency: row.currency });
    if (difference) return difference;
  }
  return null;
}

/**
 * A late settlement's status change, through the status gate (payment-gate.ts), from the status read
 * under the row lock: the late SUCCESSFUL recorded with the late money (recordLateSuccess) is the
 * partner's word it needs; answered for the postings. A refusal is the operator's: LateSettleRefusedError.
 */
async function gateLate(em: EntityManager, kind: GatedKind, id: string, from: string, to: string, set: Record<string, unknown>): Promise<string | null> {
  try {
    return (await passGate(em, { kind, id, from, to, set })).railAnswerId;
  } catch (error) {
    if (error instanceof Error && (error.name === 'PaymentGateRefusedError' || error.name === 'StaleStatusError')) throw new LateSettleRefusedError(error.message);
    throw error;
  }
}

/** The return transfer's reference, amount and currency (a settled `return`), or null. */
export async function lateReturnOf(orm: Orm, paymentId: string): Promise<{ referenceId: string; amount: number; currency: string; status: string | null } | null> {
  const answer = await findLateAnswer(orm, paymentId);
  if (!answer || answer.settled_action !== 'return' || !answer.return_reference_id) return null;
  return { referenceId: answer.return_reference_id, amount: answer.amount, currency: answer.currency, status: answer.return_status };
}

/**
 * The return transfer's progress (submitted, succeeded, failed); `succeeded` posts `late_return_paid`
 * (returns_in_transit → refund_clearing) in the same transaction, once.
 */
export async function markLateReturn(orm: Orm, paymentId: string, status: 'submitted' | 'succeeded' | 'failed', at: string): Promise<void> {
  await orm.em.fork().transactional(async (em) => {
    const locked = await lockPayment(em, paymentId);
    if (!locked) throw new Error(`payment ${paymentId} does not exist`);
    const rows = await em.execute<Array<{ return_status: string | null }>>(`select return_status from late_answers where payment_id = ? and settled_action = 'return' for update`, [paymentId]);
    if (!rows[0] || rows[0].return_status === 'succeeded' || rows[0].return_status === status) return;
    await em.execute(`update late_answers set return_status = ? where payment_id = ?`, [status, paymentId]);
    if (status === 'succeeded') await writeStateChange(em, locked.record, [lateReturnPaidTransfer(locked.amounts)], at, { type: 'transaction.late_returned', resourceType: 'transaction', transactionId: paymentId, dataJson: jsonOf(locked) });
  });
}

/** Late money not settled yet (`payments late`, the docs' runbook). */
export async function openLateAnswers(orm: Orm): Promise<LateAnswer[]> {
  const rows = await orm.em.fork().execute<Record<string, unknown>[]>(`select * from late_answers where settled_action is null order by recorded_at`);
  return rows.map(toAnswer);
}

/**
 * Late money not settled yet, for the API's metrics sampler: how many by kind (every kind, 0 included)
 * and how much by currency (minor units).
 */
export async function openLateMoneyTotals(orm: Orm): Promise<{ byKind: Record<ReviewedKind, number>; amountByCurrency: Record<string, number> }> {
  const rows = await orm.em
    .fork()
    .execute<Array<{ kind: ReviewedKind; currency: string; n: number; amount: string }>>(
      `select kind, currency, count(*)::int as n, sum(amount)::text as amount from late_answers where settled_action is null group by kind, currency`,
    );
  const byKind: Record<ReviewedKind, number> = { charge: 0, payout: 0, settlement: 0, refund: 0 };
  const amountByCurrency: Record<string, number> = {};
  for (const row of rows) {
    byKind[row.kind] += row.n;
    amountByCurrency[row.currency] = (amountByCurrency[row.currency] ?? 0) + Number(row.amount);
  }
  return { byKind, amountByCurrency };
}
