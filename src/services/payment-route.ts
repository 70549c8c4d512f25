import { partnerAdmits } from '../persistence/partner/partner-breaker-store';
import { readMerchantRailRoutes } from '../persistence/merchants/merchant-routes-store';
import { ApiError } from '../domain/errors';
import { randomInt } from 'node:crypto';
import { defaultRailRoutes, merchantRouteOf, parseRailRoutes, routeOrder, SANDBOX_RAIL, type PartnerName, type PaymentRail, type RailRoutes } from '../domain/rail-routes';
import type { Caller, ServiceDeps } from './context';

/** The routes of this process: RAIL_ROUTES as checked at start, else those of the rail it has (one partner: the mobile-money one). */
export function railRoutesOf(deps: Pick<ServiceDeps, 'railRoutes' | 'liveRail'>): RailRoutes {
  return deps.railRoutes ?? defaultRailRoutes({ momo: (deps.liveRail ?? 'none') !== 'none', aggregator: false });
}

/** A new payment's partner and, when it may fail over (issue 46), the partners it may use in order. */
export interface NewPaymentRoute {
  rail: PaymentRail;
  /** `momo,aggregator`: the route's partners in the order the payment uses them (the first is `rail`); null: one partner, no failover. */
  railRoute: string | null;
}

/**
 * The rail a new charge or payout goes to (issue 45): `sandbox` in the sandbox; in live, a partner of
 * the route of its channel and currency. Issue 46: the route may name several partners (weights,
 * failover order); the first is chosen by weight among those whose circuit breaker admits new
 * payments (`partnerAdmits`), and with `failover` the others are kept on the payment, in order, for
 * its workflow to fail over to. None: 503 `live_unavailable` naming the channel and currency, before
 * anything is written (the Idempotency-Key stays unclaimed).
 */
export async function newPaymentRoute(
  deps: Pick<ServiceDeps, 'railRoutes' | 'liveRail' | 'partnerAdmits' | 'orm'>,
  caller: Caller,
  what: 'charges' | 'payouts',
  channel: string,
  currency: string,
  failover: boolean,
): Promise<NewPaymentRoute> {
  if (caller.environment !== 'live') return { rail: SANDBOX_RAIL, railRoute: null };
  const route = merchantRouteOf(railRoutesOf(deps), await merchantRoutes(deps, caller.merchantId), channel, currency);
  if (!route) {
    const label = channel === 'mobile_money' ? 'mobile-money' : channel;
    throw new ApiError(
      'live_unavailable',
      `No live partner takes ${label} ${what} in ${currency} yet, so no money can move: nothing was created. Other channels may work on live; the sandbox takes every channel.`,
    );
  }
  if (route.legs.length === 1) return { rail: route.partner, railRoute: null };
  const admitted = new Set<PartnerName>();
  // Each partner's circuit breaker (partner_breakers; a half-open one admits one probe payment per 10 s).
  const admits = deps.partnerAdmits ?? ((partner: PartnerName) => partnerAdmits(deps.orm.em.fork(), partner));
  for (const leg of route.legs) if (await admits(leg.partner)) admitted.add(leg.partner);
  const order = routeOrder(route, randomInt(1_000_000) / 1_000_000, (partner) => admitted.has(partner));
  return { rail: order[0], railRoute: failover ? order.join(',') : null };
}

/** A merchant's own routes (`merchants set --routes`, issue 46), or null; a text that no longer reads is ignored (the start's routes). */
async function merchantRoutes(deps: Pick<ServiceDeps, 'orm'>, merchantId: string): Promise<RailRoutes | null> {
  const text = await readMerchantRailRoutes(deps.orm, merchantId);
  if (!text) return null;
  try {
    return parseRailRoutes(text);
  } catch {
    return null;
  }
}
