import type { BreakKind } from '../domain/break-kinds';
import { ourOutcome } from './match';

/** What the engine knows about a break when an operator asks to resolve it (read under the break's lock). */
export interface BreakFacts {
  id: string;
  kind: BreakKind;
  reference: string;
  paymentId: string | null;
  statementDate: string;
  partnerStatus: string | null;
  /** The payment's status now (null: no payment, or its row is gone). */
  ourStatusNow: string | null;
  /** The payment's late money: none, recorded and not settled, or settled (credit, return, accept). */
  lateMoney: 'none' | 'unsettled' | 'settled';
  /** Final statuses (SUCCESSFUL, FAILED) other imported statements list for the reference. */
  otherStatementStatuses: string[];
}

/**
 * Whether `reconcile resolve` may close a break by hand (issue 43): the engine closes only what it
 * can check against the partner's records, the operator's `--checked` saying what they checked.
 * Answers the refusal, or null.
 *
 * - pending_at_partner: never by hand: a later fetch of the day's statement that lists the line final closes it.
 * - status_mismatch, amount_mismatch, currency_mismatch: refused while the payment's late money is
 *   not settled (`payments settle-late`).
 * - status_mismatch: then only when the partner's word and ours now agree (our status now says what
 *   the line says, or another statement lists the reference as ours says), or the late money was settled.
 * - missing_there: only when another statement of the partner lists the reference with our outcome
 *   (the line fell on another day), or our payment ended with no money moved.
 * - amount_mismatch, currency_mismatch (late money settled or none), duplicate and missing_here:
 *   by hand, recording what was checked with the partner (nothing of ours moved money on them).
 */
export function resolveRefusal(b: BreakFacts): string | null {
  const settleLate = b.paymentId ? `payments settle-late ${b.paymentId} --action credit|return|accept` : 'payments settle-late';
  if (b.kind === 'pending_at_partner') {
    return `break ${b.id} (pending_at_partner) is not resolved by hand: the partner still lists reference ${b.reference} PENDING; the day's statement is fetched again (the daily import, or reconcile run --date ${b.statementDate}) and the break closes when the partner lists it final`;
  }
  const money = b.kind === 'status_mismatch' || b.kind === 'amount_mismatch' || b.kind === 'currency_mismatch';
  if (money && b.lateMoney === 'unsettled') {
    return `break ${b.id} (${b.kind}) of ${b.paymentId} cannot be resolved while its late money is not settled: settle it first (${settleLate}), then resolve the break`;
  }
  const ours = b.ourStatusNow === null ? null : ourOutcome(b.ourStatusNow);
  if (b.kind === 'status_mismatch') {
    if (b.lateMoney === 'settled') return null;
    if (ours !== null && ours === b.partnerStatus) return null;
    if (ours !== null && b.otherStatementStatuses.includes(ours)) return null;
    return (
      `break ${b.id} (status_mismatch): the partner says ${b.partnerStatus ?? 'nothing'}, ${b.paymentId ?? 'ours'} is ${b.ourStatusNow ?? 'unknown'}, and nothing in the partner's records (a later statement, late money recorded and settled) ` +
      `says otherwise: the engine cannot verify it. Ask the partner; when its status or statement changes, the late money it records is settled with ${settleLate}, or reconcile run --date ${b.statementDate} fetches the statement again`
    );
  }
  if (b.kind === 'missing_there') {
    if (ours === 'FAILED') return null;
    if (ours !== null && b.otherStatementStatuses.includes(ours)) return null;
    return (
      `break ${b.id} (missing_there): ${b.paymentId ?? 'the payment'} is ${b.ourStatusNow ?? 'unknown'} here and no statement of the partner lists reference ${b.reference}: the engine cannot verify it. ` +
      `Ask the partner to list it; the statement of the day it lists it on, imported (reconcile run --date DAY), lets the break be resolved`
    );
  }
  return null;
}
