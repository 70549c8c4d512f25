import type { Orm } from '../orm';

/** What a restart needs of a payment's partner reference: when it was chosen, and whether the partner ever acknowledged it. */
export interface RestartReference {
  /** When the reference was chosen (the first submission's start; epoch ms). */
  createdMs: number;
  /** An accepted or duplicate submission, a PENDING or a SUCCESSFUL in `rail_answers`: `unknown` is not final any more. */
  acknowledged: boolean;
}

/**
 * A payment's partner reference as a restarted run resumes it (src/services/restart-charge.ts,
 * restart-settlement.ts): null when none was ever chosen (nothing was sent: the new run submits as new).
 */
export async function restartReferenceOf(orm: Orm, paymentId: string): Promise<RestartReference | null> {
  const [ref] = await orm.em.fork().execute<Array<{ created_at: Date | string; acknowledged: boolean }>>(
    `select r.created_at,
       exists (select 1 from rail_answers a where a.payment_id = r.payment_id and a.outcome in ('acknowledged', 'succeeded')) as acknowledged
     from rail_references r where r.payment_id = ?`,
    [paymentId],
  );
  return ref ? { createdMs: new Date(ref.created_at).getTime(), acknowledged: ref.acknowledged === true } : null;
}

/** The carry's fields every restarted wait starts with: nothing asked or flagged yet, ask at once. */
export const RESTARTED_WAIT = { poll: 0, flagged: false, flaggedLate: false, flaggedUnknown: false, wake: true, runs: 0 } as const;
