import { addressKey } from '../../support/address-key';
import type { Orm } from '../orm';
import { consumed, postgresLimiters } from '../postgres-limiters';

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
  const ready = postgresLimiters(orm, { address: { keyPrefix: 'callback_address', points: perMinute, duration: CALLBACK_WINDOW_SECONDS, inMemoryBlockOnConsumed: perMinute + 1 } });
  return {
    perMinute,
    async take(address) {
      const { allowed, res } = await consumed((await ready()).address.consume(addressKey(address)));
      return { allowed, msBeforeNext: res.msBeforeNext };
    },
  };
}
