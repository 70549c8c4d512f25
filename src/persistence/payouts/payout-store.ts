import type { EntityManager } from '@mikro-orm/postgresql';
import type { FailureClass } from '../../domain/failure-classes';
import type { Transfer } from '../../domain/ledger';
import { canPayoutTransition, payoutEventType, payoutJson, type PayoutRecord, type PayoutStatus, type ReviewDecision } from '../../domain/payout';
import { payoutTransfersFor } from '../../domain/payout-ledger';
import { rowToPayout } from './payout-mapping';
import type { Orm } from '../orm';
import { writeStateChange } from '../state-change';
import { insertAuditOfChange } from '../operators/audit-of-change';
import type { AuditOfChange } from '../../domain/operator-action';
import { payoutState } from '../../domain/payout-state';
import { passGate, PaymentGateRefusedError, StaleStatusError } from '../payment-gate';

/** A transition the payout state machine refuses (for example reversing a failed payout). */
export class PayoutTransitionRefusedError extends Error {
  constructor(
    readonly payoutId: string,
    readonly from: PayoutStatus,
    readonly to: PayoutStatus,
    why?: string,
  ) {
    super(`payout ${payoutId} cannot go from ${from} to ${to}${why ? `: ${why}` : ''}`);
    this.name = 'PayoutTransitionRefusedError';
  }
}

export class PayoutNotFoundError extends Error {
  constructor(readonly payoutId: string) {
    super(`payout ${payoutId} does not exist`);
    this.name = 'PayoutNotFoundError';
  }
}

export interface PayoutTransition {
  to: PayoutStatus;
  failureClass?: FailureClass | null;
  review?: { decision: ReviewDecision; reason: string; decidedBy: string; decidedAt: string };
  /** The operator action this transition is (approve, reject, reverse): its audit row, in the same transaction, only when the payout changes (issue 31). */
  audit?: AuditOfChange;
  /**
   * ISO time of the transition (workflow time, so a retry writes the same value; default now): the
   * payout's updated_at (reversed_at) and its event's created_at. Its ledger postings are dated by the
   * database when they commit (event-log.ts), so an operator's retry days later posts at the retry.
   */
  at?: string;
}

/**
 * The status a payout transition moves from (issue 43: every status change names it). A review
 * decision (approve: → pending, reject or the review timeout: → failed with `review`) moves only
 * from `held_for_review`; the rail's end (→ succeeded, → failed without a review) only from
 * `pending`; a reversal only from `succeeded`.
 */
export function payoutFromOf(change: Pick<PayoutTransition, 'to' | 'review'>): PayoutStatus {
  if (change.review || change.to === 'pending') return 'held_for_review';
  if (change.to === 'reversed') return 'succeeded';
  return 'pending';
}

/** The payout, or null when there is none with this id. */
export async function loadPayout(orm: Orm, id: string): Promise<PayoutRecord | null> {
  const rows = await orm.em.fork().execute<Record<string, unknown>[]>(`select * from payouts where id = ?`, [id]);
  return rows.length === 0 ? null : rowToPayout(rows[0]);
}

/** The payout if it belongs to this merchant and environment (GET /v1/payouts/{id}). */
export async function findPayout(orm: Orm, scope: { merchantId: string; environment: string }, id: string): Promise<PayoutRecord | null> {
  const rows = await orm.em
    .fork()
    .execute<Record<string, unknown>[]>(`select * from payouts where id = ? and merchant_id = ? and environment = ?`, [id, scope.merchantId, scope.environment]);
  return rows.length === 0 ? null : rowToPayout(rows[0]);
}

/**
 * The writes of one payout state change inside the caller's transaction, in the order of
 * persistence/state-change.ts writeStateChange: the projection row (already written by the caller) in
 * one flush; the balance rows of the merchant's currency, in account order; the event counter with the
 * ledger entries (dated once the counter is held), then the event (`payout.<status>`, `data` = the
 * payout object). The caller commits.
 * `beforeBalances` runs right before the balance rows (the create's balance lock and check).
 */
export async function writePayoutStateChange(
  em: EntityManager,
  record: PayoutRecord,
  transfers: Transfer[],
  at: string,
  beforeBalances: () => Promise<void> = async () => {},
  railAnswerId: string | null = null,
): Promise<void> {
  await writeStateChange(em, record, transfers, at, { type: payoutEventType(record.status), resourceType: 'payout', dataJson: payoutJson(record), railAnswerId }, beforeBalances);
}

/**
 * Applies one state change of a payout (the payout workflow's activities): under the payout's row
 * lock, the projection, the ledger transfers of payout-ledger.ts with their balance rows, and the
 * event, in one transaction. Idempotent: a transition the payout already made (it is in `to`, or it
 * passed through it: the event of `to` exists) writes nothing and returns the record as stored, so
 * activity retries are safe. The change names the status it moves from (payoutFromOf) and goes
 * through the status gate (payment-gate.ts): a payout elsewhere (a review decision for a payout no
 * longer held), a transition the table refuses, or a live end the partner's word does not support
 * throw PayoutTransitionRefusedError; an unknown id PayoutNotFoundError (both are final: retrying
 * cannot help).
 */
export async function writePayoutTransition(orm: Orm, payoutId: string, change: PayoutTransition): Promise<PayoutRecord> {
  return orm.em.fork().transactional(async (em) => {
    const rows = await em.execute<Record<string, unknown>[]>(`select * from payouts where id = ? for update`, [payoutId]);
    if (rows.length === 0) throw new PayoutNotFoundError(payoutId);
    const before = rowToPayout(rows[0]);
    if (before.status === change.to) return before;
    const made = await em.execute<unknown[]>(`select 1 from events where dedupe_key = ?`, [`${payoutId}:${payoutEventType(change.to)}`]);
    if (made.length > 0) return before;
    const from = payoutFromOf(change);
    if (before.status !== from) throw new PayoutTransitionRefusedError(payoutId, before.status, change.to, `the change moves from ${from}`);
    if (!canPayoutTransition(before.status, change.to)) throw new PayoutTransitionRefusedError(payoutId, before.status, change.to);
    const at = change.at ?? new Date().toISOString();
    const review = change.review;
    const after: PayoutRecord = {
      ...before,
      status: change.to,
      failureClass: change.to === 'failed' ? (change.failureClass ?? before.failureClass) : before.failureClass,
      reviewDecision: review?.decision ?? before.reviewDecision,
      reviewReason: review?.reason ?? before.reviewReason,
      reviewDecidedBy: review?.decidedBy ?? before.reviewDecidedBy,
      reviewDecidedAt: review ? new Date(review.decidedAt).toISOString() : before.reviewDecidedAt,
      reversedAt: change.to === 'reversed' ? new Date(at).toISOString() : before.reversedAt,
      updatedAt: new Date(at).toISOString(),
    };
    const { railAnswerId } = await passGate(em, {
      kind: 'payout',
      id: payoutId,
      from,
      to: after.status,
      set: {
        failure_class: after.failureClass,
        review_decision: after.reviewDecision,
        review_reason: after.reviewReason,
        review_decided_by: after.reviewDecidedBy,
        review_decided_at: after.reviewDecidedAt,
        reversed_at: after.reversedAt,
        updated_at: after.updatedAt,
      },
    }).catch((error: unknown) => {
      if (error instanceof PaymentGateRefusedError || error instanceof StaleStatusError) throw new PayoutTransitionRefusedError(payoutId, before.status, change.to, error.message);
      throw error;
    });
    await writePayoutStateChange(em, after, payoutTransfersFor(after, change.to), after.updatedAt, undefined, railAnswerId);
    if (change.audit) await insertAuditOfChange(em, payoutId, change.audit, after, payoutState(after));
    return after;
  });
}

/**
 * Marks the payout's workflow as known to exist (its first step ran, or a start found it), so the
 * payout-start relay stops looking at it. Returns the payout, or null when there is none.
 */
export async function markPayoutWorkflowStarted(orm: Orm, id: string): Promise<PayoutRecord | null> {
  const rows = await orm.em
    .fork()
    .execute<Record<string, unknown>[]>(`update payouts set workflow_started_at = coalesce(workflow_started_at, now()) where id = ? returning *`, [id]);
  return rows.length === 0 ? null : rowToPayout(rows[0]);
}
