import { BurstyRateLimiter } from 'rate-limiter-flexible';
import type { Orm } from '../orm';
import { consumed, postgresLimiters } from '../postgres-limiters';

/** The window of the per-second rate. */
export const RATE_WINDOW_SECONDS = 1;
/** The burst allowance: up to the rate again on top of it, once per this many seconds. */
export const BURST_WINDOW_SECONDS = 10;

/** One request's count against its bucket. */
export interface RateLimitDecision {
  allowed: boolean;
  /** Left of the per-second rate in the current window (0 while the request drew on the burst allowance). */
  remaining: number;
  /** Until the window ends (allowed), or until a request can pass again (refused). */
  msBeforeNext: number;
}

export interface RateLimitStore {
  /** Requests per second (the burst allowance is as many again per BURST_WINDOW_SECONDS). */
  readonly perSecond: number;
  /** Counts one request against `bucket`; rejects only when the database does not answer. */
  take(bucket: string): Promise<RateLimitDecision>;
}

/**
 * rate-limiter-flexible's PostgreSQL store on the API's own `pg` pool (the ORM's), so every API process
 * counts in the same rows: a BurstyRateLimiter of two fixed windows, `perSecond` requests per 1 s
 * window and, once those are spent, up to `perSecond` more per 10 s window. Each request is one
 * upsert (`insert … on conflict … returning`), two when it draws on the burst allowance. No
 * in-memory state (no insurance limiter, no in-memory block): two processes never disagree.
 */
export function rateLimitStore(orm: Orm, perSecond: number): RateLimitStore {
  const ready = postgresLimiters(orm, {
    rate: { keyPrefix: 'rate', points: perSecond, duration: RATE_WINDOW_SECONDS },
    burst: { keyPrefix: 'burst', points: perSecond, duration: BURST_WINDOW_SECONDS },
  });
  let bursty: Promise<BurstyRateLimiter> | undefined;
  const limiter = () => (bursty ??= ready().then((rl) => new BurstyRateLimiter(rl.rate, rl.burst)).catch((error: unknown) => {
    bursty = undefined;
    throw error;
  }));
  return {
    perSecond,
    async take(bucket) {
      const { allowed, res } = await consumed((await limiter()).consume(bucket));
      return allowed ? { allowed, remaining: res.remainingPoints, msBeforeNext: res.msBeforeNext } : { allowed, remaining: 0, msBeforeNext: res.msBeforeNext };
    },
  };
}
