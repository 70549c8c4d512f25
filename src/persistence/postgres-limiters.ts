import { RateLimiterPostgres, RateLimiterRes, type IRateLimiterStoreOptions } from 'rate-limiter-flexible';
import type { Orm } from './orm';

/** The table of Migration20261128000002_rate_limits; the library never creates it (`tableCreated`). */
export const RATE_LIMITS_TABLE = 'rate_limits';

/** One limiter's own settings: its key prefix, points and window (seconds), and optional in-memory block. */
export type LimiterSpec = Pick<IRateLimiterStoreOptions, 'keyPrefix' | 'points' | 'duration' | 'inMemoryBlockOnConsumed'>;

/**
 * rate-limiter-flexible's PostgreSQL store on the ORM's own `pg` pool, for every limit of the service
 * (the API's rate, the portal's sign-in and password forms, the partners' callbacks): every process
 * counts in the same `rate_limits` rows. Built on first use (the pool exists once the ORM has
 * connected) and built again after a failed build. Expired rows are deleted by the retention job
 * (RATE_LIMIT_RETENTION, in batches), never by the library's unbounded DELETE every 5 minutes from each
 * process (`clearExpiredByTimeout: false`).
 */
export function postgresLimiters<K extends string>(orm: Orm, specs: Readonly<Record<K, LimiterSpec>>): () => Promise<Record<K, RateLimiterPostgres>> {
  let built: Promise<Record<K, RateLimiterPostgres>> | undefined;
  const build = async () => {
    const pool = await orm.em.getConnection().getNativeClient();
    const common = { storeClient: pool, storeType: 'pool', tableName: RATE_LIMITS_TABLE, tableCreated: true, clearExpiredByTimeout: false };
    const entries = (Object.entries(specs) as Array<[K, LimiterSpec]>).map(([name, spec]) => [name, new RateLimiterPostgres({ ...common, ...spec })] as const);
    return Object.fromEntries(entries) as Record<K, RateLimiterPostgres>;
  };
  return () =>
    (built ??= build().catch((error: unknown) => {
      built = undefined;
      throw error;
    }));
}

/** A consume's answer: the library's result when allowed; its refusal (a RateLimiterRes) when not; a store error rejects. */
export async function consumed(consume: Promise<RateLimiterRes>): Promise<{ allowed: boolean; res: RateLimiterRes }> {
  try {
    return { allowed: true, res: await consume };
  } catch (outcome) {
    if (!(outcome instanceof RateLimiterRes)) throw outcome;
    return { allowed: false, res: outcome };
  }
}
