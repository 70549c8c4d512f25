import type { Middleware } from 'koa';
import { ApiError } from '../../domain/errors';
import { callbackLimits } from '../../persistence/partner/callback-limits';
import type { Orm } from '../../persistence/orm';
import { clientAddressOf } from '../../support/client-address';

/**
 * CALLBACK_RATE_LIMIT on the live listener's partner callbacks and aggregator webhooks
 * (src/persistence/partner/callback-limits.ts): each callback is counted against its client address
 * (TRUSTED_PROXIES decides which that is) before its body is read or its token checked; past the
 * limit, 429 `rate_limited` with `Retry-After` in the API's envelope, and nothing else is done: no
 * lookup, no signal, no flag. A partner whose callback is refused may send it again later, and the
 * payment's workflow asks the partner for the status by itself in any case (the callback only wakes it).
 */
export function callbackLimit(orm: Orm, perMinute: number): Middleware {
  const limits = callbackLimits(orm, perMinute);
  return async (ctx, next) => {
    const decision = await limits.take(clientAddressOf(ctx));
    if (!decision.allowed) {
      ctx.set('Retry-After', String(Math.max(1, Math.ceil(decision.msBeforeNext / 1000))));
      throw new ApiError('rate_limited', `Too many partner callbacks from this address: at most ${perMinute} a minute. Retry after the Retry-After header's seconds.`);
    }
    await next();
  };
}
