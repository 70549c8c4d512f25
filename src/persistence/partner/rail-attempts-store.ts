import type { EntityManager } from '@mikro-orm/postgresql';

/** One attempt of a live payment at a partner (issue 46), as the API and the portal show it. */
export interface RailAttempt {
  number: number;
  partner: string;
  /** Our reference sent with it (`X-Reference-Id`, the aggregator's `tx_ref`): what the partner's support knows it by. */
  reference: string;
  /** `current`: the attempt the payment follows now; `not_reached` and `refused`: left for the next partner, and why. */
  outcome: 'current' | 'not_reached' | 'refused';
  reason: string | null;
  /** The partner tried next (an attempt left), else null. */
  nextPartner: string | null;
  startedAt: string;
  endedAt: string | null;
}

/**
 * A payment's attempts in order: those it left (`rail_attempts`) and the current one
 * (`rail_references`). Empty for a payment never sent to a partner (the sandbox, a live payment
 * before its first submission).
 */
export async function railAttemptsOf(em: Pick<EntityManager, 'execute'>, paymentId: string): Promise<RailAttempt[]> {
  const rows = await em.execute<Array<{ attempt: number; partner: string | null; reference_id: string; outcome: string; reason: string | null; next_partner: string | null; started_at: Date | string; ended_at: Date | string | null }>>(
    `select attempt, partner, reference_id::text, outcome, reason, next_partner, started_at, ended_at from rail_attempts where payment_id = ?
     union all
     select r.attempt, r.partner, r.reference_id::text, 'current', null, null,
       coalesce((select max(a.ended_at) from rail_attempts a where a.payment_id = r.payment_id), r.created_at), null
     from rail_references r where r.payment_id = ?
     order by 1`,
    [paymentId, paymentId],
  );
  return rows.map((row) => ({
    number: row.attempt,
    partner: row.partner ?? 'momo',
    reference: row.reference_id,
    outcome: row.outcome as RailAttempt['outcome'],
    reason: row.reason,
    nextPartner: row.next_partner,
    startedAt: new Date(row.started_at).toISOString(),
    endedAt: row.ended_at === null ? null : new Date(row.ended_at).toISOString(),
  }));
}

/** An attempt as the API writes it (snake_case). */
export function attemptJson(attempt: RailAttempt): Record<string, unknown> {
  return {
    number: attempt.number,
    partner: attempt.partner,
    reference: attempt.reference,
    outcome: attempt.outcome,
    reason: attempt.reason,
    next_partner: attempt.nextPartner,
    started_at: attempt.startedAt,
    ended_at: attempt.endedAt,
  };
}

/** A payment's JSON text (its serialiser's, metadata verbatim) with `attempts` added last. */
export function withAttempts(json: string, attempts: readonly RailAttempt[]): string {
  return `${json.slice(0, -1)},"attempts":${JSON.stringify(attempts.map(attemptJson))}}`;
}
