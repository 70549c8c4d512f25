import { ApiError } from '../domain/errors';
import { defaultRailRoutes, routeFor, SANDBOX_RAIL, type PaymentRail, type RailRoutes } from '../domain/rail-routes';
import type { Caller, ServiceDeps } from './context';

/** The routes of this process: RAIL_ROUTES as checked at start, else those of the rail it has (one partner: the mobile-money one). */
export function railRoutesOf(deps: Pick<ServiceDeps, 'railRoutes' | 'liveRail'>): RailRoutes {
  return deps.railRoutes ?? defaultRailRoutes({ momo: (deps.liveRail ?? 'none') !== 'none', aggregator: false });
}

/**
 * The rail a new charge or payout goes to (issue 45): `sandbox` in the sandbox; in live, the partner
 * its channel and currency are routed to. None: 503 `live_unavailable` naming the channel and
 * currency, before anything is written (the Idempotency-Key stays unclaimed).
 */
export function newPaymentRail(deps: Pick<ServiceDeps, 'railRoutes' | 'liveRail'>, caller: Caller, what: 'charges' | 'payouts', channel: string, currency: string): PaymentRail {
  if (caller.environment !== 'live') return SANDBOX_RAIL;
  const partner = routeFor(railRoutesOf(deps), channel, currency);
  if (partner) return partner;
  const label = channel === 'mobile_money' ? 'mobile-money' : channel;
  throw new ApiError(
    'live_unavailable',
    `No live partner takes ${label} ${what} in ${currency} yet, so no money can move: nothing was created. Other channels may work on live; the sandbox takes every channel.`,
  );
}
