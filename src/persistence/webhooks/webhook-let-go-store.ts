import type { Orm } from '../orm';

/** The last word before a POST (issue 49): go, counted at `sentAtMs`, or not yet and why. */
export type LetGo =
  | { go: true; sentAtMs: number }
  /** 'recorded': the attempt is recorded (answer the record); 'in_progress': another execution is sending it; 'rate': the endpoint's second is full. */
  | { go: false; why: 'recorded' | 'in_progress' | 'rate'; retryInMs: number };

export interface LetGoRequest {
  deliveryId: string;
  attempt: number;
  /** This execution's own token (a retry of the activity is another execution). */
  token: string;
  /** How long the send is held for this execution: its POST's timeout and its record. */
  holdMs: number;
}

/**
 * One call of `webhook_let_go` (migrations/Migration20261221000007_webhook_let_go.ts), on the
 * database's clock, the delivery's row and then (for max_per_second) the endpoint's locked: an attempt
 * already recorded is never let go again; another execution's send of the attempt under way holds this
 * one until its hold ends; fewer than max_per_second sends let go in the second before now, or not
 * yet. A send let go is counted now and held for `holdMs`.
 */
export async function letGo(orm: Orm, req: LetGoRequest): Promise<LetGo> {
  const [row] = await orm.em.getConnection().execute<{ go: boolean; sent_at: Date | null; why: 'recorded' | 'in_progress' | 'rate' | null; retry_in_ms: number | null }[]>(
    `select go, sent_at, why, retry_in_ms from webhook_let_go(?, ?, ?, ?)`,
    [req.deliveryId, req.attempt, req.token, Math.round(req.holdMs)],
  );
  if (row.go) return { go: true, sentAtMs: new Date(row.sent_at!).getTime() };
  return { go: false, why: row.why!, retryInMs: Math.max(0, Number(row.retry_in_ms)) };
}
