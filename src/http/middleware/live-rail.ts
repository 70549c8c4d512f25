import type { Middleware } from 'koa';
import { ApiError } from '../../domain/errors';
import { LIVE_UNAVAILABLE_MESSAGE, type LiveRail } from '../../domain/live-rail';
import type { Caller } from '../../services/context';

/**
 * Guards a route that moves money (charges, payouts, refunds): on the live listener without a live rail, 503 `live_unavailable`.
 * It runs after authentication and the scope check (a merchant learns about a bad key first) and,
 * for live, after the identity check (the one thing the merchant can fix), before the body, the
 * Idempotency-Key or anything else is read: the refusal stores nothing, not even the key.
 */
export function requireLiveRail(rail: LiveRail = 'none'): Middleware {
  return async (ctx, next) => {
    const caller = ctx.state.caller as Caller;
    if (caller.environment === 'live') {
      if (!caller.merchantVerified) throw new ApiError('identity_verification_required', 'Moving live money (charges, payouts, refunds) needs a verified merchant identity.');
      if (rail === 'none') throw new ApiError('live_unavailable', LIVE_UNAVAILABLE_MESSAGE);
    }
    await next();
  };
}
