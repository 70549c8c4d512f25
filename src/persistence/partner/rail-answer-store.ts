import type { EntityManager } from '@mikro-orm/postgresql';
import type { RailStatus, RailSubmitResult } from '../../rail/partner-rail';

/** Where a partner answer was read (rail_answers.source). */
export type RailAnswerSource = 'status' | 'submit_refusal' | 'callback' | 'statement' | 'operator_evidence';

/** What the answer says of the payment's end (rail_answers.outcome): `acknowledged` is "the partner has it" (an accepted submission, a PENDING). */
export type RailAnswerOutcome = 'succeeded' | 'failed' | 'unknown' | 'acknowledged';

export interface RailAnswer {
  paymentId: string;
  source: RailAnswerSource;
  outcome: RailAnswerOutcome;
  /** The partner's own word: SUCCESSFUL, FAILED, PENDING, a 404's UNKNOWN, ACCEPTED (202), DUPLICATE (409), REFUSED. */
  partnerStatus: string;
  amount?: number | null;
  currency?: string | null;
  partnerTransactionId?: string | null;
  reason?: string | null;
}

/**
 * Records one partner answer that can end a live payment (issue 43: the status gate of
 * src/persistence/payment-gate.ts and the database's trigger read them). Written against the
 * payment's `rail_references` row (its product and its current reference: issue 46, an attempt's
 * answers are its own); nothing when the payment has none.
 * One row per (payment, outcome, source, amount, currency): a poll that repeats a known answer writes
 * nothing, and a partner's corrected SUCCESSFUL (another amount) is a row of its own.
 * Answers the row's id (the existing one when it was recorded before), or null without a reference.
 */
export async function recordRailAnswer(em: Pick<EntityManager, 'execute'>, answer: RailAnswer): Promise<string | null> {
  const rows = await em.execute<Array<{ id: string }>>(
    `with made as (
       insert into rail_answers (payment_id, product, reference_id, source, outcome, partner_status, amount, currency, partner_transaction_id, reason)
       select r.payment_id, r.product, r.reference_id, ?, ?, ?, ?, ?, ?, ? from rail_references r where r.payment_id = ?
       on conflict (payment_id, reference_id, outcome, source, (coalesce(amount, -1)), (coalesce(currency, ''))) do nothing returning id::text as id)
     select id from made union all
     select a.id::text from rail_answers a join rail_references r on r.payment_id = a.payment_id and r.reference_id = a.reference_id
     where a.payment_id = ? and a.outcome = ? and a.source = ? and a.amount is not distinct from ?::bigint and a.currency is not distinct from ?::text`,
    [
      answer.source,
      answer.outcome,
      answer.partnerStatus,
      answer.amount ?? null,
      answer.currency ?? null,
      answer.partnerTransactionId ?? null,
      answer.reason ?? null,
      answer.paymentId,
      answer.paymentId,
      answer.outcome,
      answer.source,
      answer.amount ?? null,
      answer.currency ?? null,
    ],
  );
  return rows[0]?.id ?? null;
}

/** A status answer as a rail_answers row (every status can be recorded: PENDING is `acknowledged`). */
export function statusAnswer(paymentId: string, status: RailStatus): RailAnswer {
  switch (status.status) {
    case 'succeeded':
      return { paymentId, source: 'status', outcome: 'succeeded', partnerStatus: 'SUCCESSFUL', amount: status.amount, currency: status.currency, partnerTransactionId: status.financialTransactionId };
    case 'failed':
      return { paymentId, source: 'status', outcome: 'failed', partnerStatus: 'FAILED', amount: status.amount, currency: status.currency, reason: status.reason };
    case 'unknown':
      return { paymentId, source: 'status', outcome: 'unknown', partnerStatus: 'UNKNOWN' };
    default:
      return { paymentId, source: 'status', outcome: 'acknowledged', partnerStatus: 'PENDING' };
  }
}

/**
 * A submission's answer as a rail_answers row: an accepted (202) or duplicate (409) submission is
 * `acknowledged`; a refusal is `failed` only when `final` (a first submission, not a repeat: a repeat's
 * refusal is checked against the status first, which records its own answer); else nothing.
 */
export function submitAnswer(paymentId: string, result: RailSubmitResult, final: boolean): RailAnswer | null {
  if (result.kind === 'accepted' || result.kind === 'duplicate') {
    return { paymentId, source: 'status', outcome: 'acknowledged', partnerStatus: result.kind === 'accepted' ? 'ACCEPTED' : 'DUPLICATE' };
  }
  return final ? { paymentId, source: 'submit_refusal', outcome: 'failed', partnerStatus: 'REFUSED', reason: result.reason } : null;
}
