import type { Context, Middleware, Next } from 'koa';
import type { Environment } from '../../domain/environment';
import { ApiError } from '../../domain/errors';
import { rateLimitStore, type RateLimitDecision } from '../../persistence/merchants/rate-limit-store';
import type { Caller } from '../../services/context';
import type { Orm } from '../../persistence/orm';
import { addressKey } from '../../support/address-key';
import { clientAddressOf } from '../../support/client-address';

/** `ctx.state` flag set once a request has been counted, so that it is counted once. */
const COUNTED = 'rateLimitCounted';

export interface RateLimits {
  /** After `authenticate`: the caller's merchant and environment. */
  merchant: Middleware;
  /** Around the whole `/v1` dispatch: what `merchant` never saw (no valid key, unknown route) counts per client address. */
  others: Middleware;
}

function setHeaders(ctx: Context, perSecond: number, decision: RateLimitDecision): void {
  const seconds = Math.max(0, Math.ceil(decision.msBeforeNext / 1000));
  ctx.set('RateLimit-Limit', String(perSecond));
  ctx.set('RateLimit-Remaining', String(Math.max(0, decision.remaining)));
  ctx.set('RateLimit-Reset', String(seconds));
  if (!decision.allowed) ctx.set('Retry-After', String(Math.max(1, seconds)));
}

/**
 * Issue 20's rate limits (INTERFACE.md "Rate limits"), per merchant and environment, in PostgreSQL
 * (persistence/merchants/rate-limit-store.ts) so that every API process shares them: `perSecond` requests per
 * second, bursts up to twice that. Every counted answer carries `RateLimit-Limit` (the per-second
 * rate), `RateLimit-Remaining` and `RateLimit-Reset` (whole seconds); over the limit the request is
 * refused before any route runs: 429 `rate_limited` with `Retry-After`, nothing written. A request
 * that never reaches a merchant (401, 403 `environment_mismatch`, a `/v1` path with no route) counts
 * against its client address on this listener (TRUSTED_PROXIES decides which that is; an IPv6 client
 * counts by its /64: src/support/address-key.ts), at the same rate, and carries that bucket's headers.
 * The database unreachable: 503 `service_unavailable`, as for every other query (errors.ts).
 */
export function rateLimits(orm: Orm, environment: Environment, perSecond: number): RateLimits {
  const store = rateLimitStore(orm, perSecond);
  const count = async (ctx: Context, bucket: string, refusal: string) => {
    ctx.state[COUNTED] = true;
    const decision = await store.take(bucket);
    setHeaders(ctx, perSecond, decision);
    if (!decision.allowed) {
      throw new ApiError('rate_limited', `${refusal}: at most ${perSecond} requests per second on the ${environment} API, bursts up to ${2 * perSecond}. Retry after the Retry-After header's seconds.`);
    }
  };
  return {
    async merchant(ctx: Context, next: Next) {
      const caller = ctx.state.caller as Caller;
      await count(ctx, `merchant:${caller.merchantId}:${environment}`, 'Too many requests for this merchant');
      await next();
    },
    async others(ctx: Context, next: Next) {
      const byAddress = () => count(ctx, `address:${addressKey(clientAddressOf(ctx))}:${environment}`, 'Too many requests without a valid API key from this address');
      try {
        await next();
      } catch (error) {
        if (!ctx.state[COUNTED]) await byAddress();
        throw error;
      }
      if (!ctx.state[COUNTED]) await byAddress();
    },
  };
}
