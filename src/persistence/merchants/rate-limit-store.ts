import { BurstyRateLimiter, RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import type { Orm } from '../orm';

/** The table of Migration20261128000002_rate_limits; the library never creates it (`tableCreated`). */
const TABLE = 'rate_limits';
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
  let limiter: Promise<BurstyRateLimiter> | undefined;
  const build = async () => {
    const pool = await orm.em.getConnection().getNativeClient();
    // clearExpiredByTimeout false: expired counters are deleted by the retention job (RATE_LIMIT_RETENTION,
    // in batches; src/persistence/retention-store.ts), not by an unbounded DELETE every 5 minutes from each API process.
    const common = { storeClient: pool, storeType: 'pool', tableName: TABLE, tableCreated: true, clearExpiredByTimeout: false, points: perSecond };
    return new BurstyRateLimiter(
      new RateLimiterPostgres({ ...common, keyPrefix: 'rate', duration: RATE_WINDOW_SECONDS }),
      new RateLimiterPostgres({ ...common, keyPrefix: 'burst', duration: BURST_WINDOW_SECONDS }),
    );
  };
  const ready = () =>
    (limiter ??= build().catch((error: unknown) => {
      limiter = undefined;
      throw error;
    }));
  return {
    perSecond,
    async take(bucket) {
      const rl = await ready();
      try {
        const res = await rl.consume(bucket);
        return { allowed: true, remaining: res.remainingPoints, msBeforeNext: res.msBeforeNext };
      } catch (outcome) {
        if (!(outcome instanceof RateLimiterRes)) throw outcome;
        return { allowed: false, remaining: 0, msBeforeNext: outcome.msBeforeNext };
      }
    },
  };
}
