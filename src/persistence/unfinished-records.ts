import type { Orm } from './orm';

/** A live charge, payout, refund or dispute the database still holds open (its money reserved or held). */
export interface UnfinishedRecord {
  id: string;
  type: 'charge' | 'payout' | 'refund' | 'dispute' | 'settlement';
  status: string;
  environment: string;
  merchant_id: string;
  age_seconds: number;
}

/** At most this many are inspected per `payments stuck` (each needs a describe of its workflow). */
export const UNFINISHED_LIMIT = 500;

/**
 * Payouts (pending, held for review), refunds (pending), disputes (open) and live charges (pending,
 * awaiting_action; issue 43: one waits for the partner's word past expires_at, holding the customer's
 * money) older than `graceMs`, oldest first: each should have a running workflow that finishes it
 * (review finding 2 of issue 18: one whose workflow closed first keeps its reservation or hold forever).
 * Sandbox charges are left to the charge reconciler's expiry check (they end by their own timers).
 * Settlement batches (pending: the money in transit; issue 43, a batch terminated by the server's
 * history limit stayed in transit and its merchant's live balance was skipped forever).
 */
export async function unfinishedRecords(orm: Orm, graceMs: number, environment?: string): Promise<UnfinishedRecord[]> {
  const rows = await orm.em.fork().execute<Array<Omit<UnfinishedRecord, 'age_seconds'> & { age_seconds: string | number }>>(
    `select id, type, status, environment, merchant_id, extract(epoch from now() - created_at)::float8 as age_seconds from (
       select id, 'charge' as type, status, environment, merchant_id, created_at from charges where status in ('pending', 'awaiting_action') and environment = 'live'
       union all select id, 'payout', status, environment, merchant_id, created_at from payouts where status in ('pending', 'held_for_review')
       union all select id, 'refund', status, environment, merchant_id, created_at from refunds where status = 'pending'
       union all select id, 'dispute', status, environment, merchant_id, created_at from disputes where status in ('needs_response', 'under_review')
       union all select id, 'settlement', status, environment, merchant_id, created_at from settlements where status = 'pending'
     ) r
     where created_at < now() - make_interval(secs => ?) and (?::text is null or environment = ?)
     order by created_at limit ?`,
    [graceMs / 1000, environment ?? null, environment ?? null, UNFINISHED_LIMIT],
  );
  return rows.map((r) => ({ ...r, age_seconds: Math.round(Number(r.age_seconds)) }));
}
