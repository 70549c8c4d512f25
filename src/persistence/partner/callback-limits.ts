import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import { addressKey } from '../../support/address-key';
import type { Orm } from '../orm';

/** The window of CALLBACK_RATE_LIMIT. */
export const CALLBACK_WINDOW_SECONDS = 60;

export interface CallbackLimitDecision {
  allowed: boolean;
  /** Until the window ends. */
  msBeforeNext: number;
}

export interface CallbackLimits {
  readonly perMinute: number;
  /** Counts one callback from the client address `address` (keyed by its /32 or /64: src/support/address-key.ts). */
  take(address: string): Promise<CallbackLimitDecision>;
}

/**
 * The live listener's limit on the partners' callbacks (the MoMo callback route and the aggregator's
 * webhooks together), per client address: `perMinute` per fixed 60 s window, counted in the API's
 * rate_limits table (rate-limiter-flexible's PostgreSQL store on the ORM's pool, as the sign-in and
 * API limits are: every API process counts in the same rows; expired rows are the retention job's).
 * One upsert per callback; once the store has refused an address, this process refuses it again
 * without asking until the window the store named ends (`inMemoryBlockOnConsumed`): a flood costs no
 * statement per request past the limit, and never lets through what the store would refuse.
 */
export function callbackLimits(orm: Orm, perMinute: number): CallbackLimits {
  let built: Promise<RateLimiterPostgres> | undefined;
  const ready = () =>
    (built ??= (async () => {
      const pool = await orm.em.getConnection().getNativeClient();
      return new RateLimiterPostgres({
        storeClient: pool,
        storeType: 'pool',
        tableName: 'rate_limits',
        tableCreated: true,
        clearExpiredByTimeout: false,
        keyPrefix: 'callback_address',
        points: perMinute,
        duration: CALLBACK_WINDOW_SECONDS,
        inMemoryBlockOnConsumed: perMinute + 1,
      });
    })().catch((error: unknown) => {
      built = undefined;
      throw error;
    }));
  return {
    perMinute,
    async take(address) {
      const limiter = await ready();
      try {
        const res = await limiter.consume(addressKey(address));
        return { allowed: true, msBeforeNext: res.msBeforeNext };
      } catch (outcome) {
        if (!(outcome instanceof RateLimiterRes)) throw outcome;
        return { allowed: false, msBeforeNext: outcome.msBeforeNext };
      }
    },
  };
}
