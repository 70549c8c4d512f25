import type { RateLimiterRes } from 'rate-limiter-flexible';
import { addressKey } from '../../support/address-key';
import type { Orm } from '../orm';
import { consumed, postgresLimiters } from '../postgres-limiters';

/**
 * The portal's sign-in limits (docs/security.md "Merchant portal"), on the API's rate-limit table
 * (rate_limits, the same rate-limiter-flexible PostgreSQL store as src/persistence/merchants/rate-limit-store.ts,
 * so every process counts in the same rows): sign-in attempts per client address (TRUSTED_PROXIES
 * decides which that is; keyed by its /32 or, IPv6, its /64: src/support/address-key.ts) and per email
 * (its sha256, as the lock-out keys it: known or not), each over a window. An attempt is counted
 * before anything else; a successful sign-in gives its point back, so only refused attempts add up.
 */
export interface SignInLimitSettings {
  perAddress: number;
  perAccount: number;
  windowSeconds: number;
}

export const DEFAULT_SIGN_IN_LIMITS: SignInLimitSettings = { perAddress: 50, perAccount: 30, windowSeconds: 15 * 60 };

/**
 * The same limiter on the other forms that guess at or mail to an account (issue 47), each under its
 * own key prefix: the Account page's password change (a wrong current password counts; per signed-in
 * user) and the reset request (per address and per email, known or not; each request counts).
 */
export const PASSWORD_CHANGE_LIMITS: SignInLimitSettings = { perAddress: 50, perAccount: 5, windowSeconds: 15 * 60 };
export const PASSWORD_RESET_LIMITS: SignInLimitSettings = { perAddress: 20, perAccount: 3, windowSeconds: 60 * 60 };

export interface SignInDecision {
  allowed: boolean;
  /** Until a refused attempt may be made again. */
  msBeforeNext: number;
  /** Which limit refused it. */
  by?: 'address' | 'account';
}

export interface SignInLimits {
  readonly settings: SignInLimitSettings;
  /** Counts one attempt from the client address `address` for the email key `account`. */
  take(address: string, account: string): Promise<SignInDecision>;
  /** A successful sign-in: its points back. */
  giveBack(address: string, account: string): Promise<void>;
}

/** `prefix`: the rate_limits keys' prefix (`signin` for sign-in, `pwchange`, `pwreset`). */
export function signInLimits(orm: Orm, settings: SignInLimitSettings = DEFAULT_SIGN_IN_LIMITS, prefix = 'signin'): SignInLimits {
  const ready = postgresLimiters(orm, {
    address: { keyPrefix: `${prefix}_address`, points: settings.perAddress, duration: settings.windowSeconds },
    account: { keyPrefix: `${prefix}_account`, points: settings.perAccount, duration: settings.windowSeconds },
  });
  const refusedFor = async (consume: Promise<RateLimiterRes>): Promise<number | null> => {
    const { allowed, res } = await consumed(consume);
    return allowed ? null : res.msBeforeNext;
  };
  return {
    settings,
    async take(address, account) {
      const rl = await ready();
      const [byAddress, byAccount] = await Promise.all([refusedFor(rl.address.consume(addressKey(address))), refusedFor(rl.account.consume(account))]);
      if (byAddress !== null) return { allowed: false, msBeforeNext: byAddress, by: 'address' };
      if (byAccount !== null) return { allowed: false, msBeforeNext: byAccount, by: 'account' };
      return { allowed: true, msBeforeNext: 0 };
    },
    async giveBack(address, account) {
      const rl = await ready();
      await Promise.all([rl.address.reward(addressKey(address), 1), rl.account.reward(account, 1)]);
    },
  };
}
