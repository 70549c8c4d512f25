import type { Channel } from './charge-status';

/**
 * Which live partner takes what (issue 45; docs/partner-rail.md, "Which partner takes what"):
 * `RAIL_ROUTES`, a list of `<channel>:<currency or *>=<partner>` separated by commas, e.g.
 * `mobile_money:GHS=momo,bank:*=aggregator`. A payment's partner is the route of its channel and
 * currency (an exact currency before `*`), decided once at creation and kept on the payment (`rail`);
 * a channel with no route answers 503 `live_unavailable` naming it. A refund goes back through the
 * partner that took its charge, whatever the routes say now.
 */
export const PARTNERS = ['momo', 'aggregator'] as const;
export type PartnerName = (typeof PARTNERS)[number];

/** What the API shows as a sandbox payment's `rail`: the simulator in the engine, no partner. */
export const SANDBOX_RAIL = 'sandbox';
/** A payment's `rail`: a partner in live, `sandbox` in the sandbox. */
export type PaymentRail = PartnerName | typeof SANDBOX_RAIL;

const CHANNELS: readonly Channel[] = ['mobile_money', 'bank', 'card'];

export interface RailRoute {
  channel: Channel;
  /** An ISO currency code, or `*` for any. */
  currency: string;
  /** The first partner written: the one a payment goes to when no weights are given and its breaker admits it. */
  partner: PartnerName;
  /**
   * Issue 46: every partner of the route in the order written (`partner` first), each with its weight
   * (null when the route gives none). A payment's first attempt goes to a partner chosen by weight
   * (all weights null: the first) among those whose breaker admits new payments; the others, in the
   * order written, are where it may fail over (docs/partner-rail.md, "Routing and failover").
   */
  legs: readonly RouteLeg[];
}

export interface RouteLeg {
  partner: PartnerName;
  /** A whole number from 0 to 1000, or null (no weights on this route). Weight 0: a fallback only, never a first choice. */
  weight: number | null;
}

export type RailRoutes = readonly RailRoute[];

export function isPartnerName(value: unknown): value is PartnerName {
  return typeof value === 'string' && (PARTNERS as readonly string[]).includes(value);
}

/** The most weight one leg may carry (weights are shares, not percentages: 3 and 1 are 75/25). */
export const MAX_ROUTE_WEIGHT = 1000;

function parseLegs(raw: string, text: string): RouteLeg[] {
  const legs: RouteLeg[] = [];
  for (const part of text.split('|')) {
    const match = /^([a-z]+)(?::([0-9]{1,4}))?$/.exec(part.trim());
    if (!match) throw new Error(`RAIL_ROUTES: "${raw}": each partner is <partner> or <partner>:<weight> (e.g. momo:3|aggregator:1), got "${part.trim()}"`);
    const [, partner, weight] = match;
    if (!isPartnerName(partner)) throw new Error(`RAIL_ROUTES: "${raw}": the partner must be one of ${PARTNERS.join(', ')}`);
    if (legs.some((leg) => leg.partner === partner)) throw new Error(`RAIL_ROUTES: "${raw}": ${partner} is named twice`);
    if (weight !== undefined && Number(weight) > MAX_ROUTE_WEIGHT) throw new Error(`RAIL_ROUTES: "${raw}": a weight is a whole number from 0 to ${MAX_ROUTE_WEIGHT}`);
    legs.push({ partner, weight: weight === undefined ? null : Number(weight) });
  }
  const weighted = legs.filter((leg) => leg.weight !== null);
  if (weighted.length > 0 && weighted.length < legs.length) throw new Error(`RAIL_ROUTES: "${raw}": give every partner of a route a weight, or none`);
  if (weighted.length > 0 && weighted.every((leg) => leg.weight === 0)) throw new Error(`RAIL_ROUTES: "${raw}": at least one weight must be above 0`);
  return legs;
}

/**
 * Parses RAIL_ROUTES; throws an Error naming the first entry it cannot read. A channel and currency
 * named twice is refused. Issue 46: a route may name several partners, `|` between them, in the
 * order of failover, each with an optional weight (`mobile_money:GHS=momo:3|aggregator:1`).
 */
export function parseRailRoutes(text: string): RailRoutes {
  const routes: RailRoute[] = [];
  for (const raw of text.split(',').map((part) => part.trim()).filter((part) => part !== '')) {
    const match = /^([a-z_]+):([A-Z]{3}|\*)=(.+)$/.exec(raw);
    if (!match) throw new Error(`RAIL_ROUTES: "${raw}" is not <channel>:<currency or *>=<partner>[|<partner>…] (e.g. mobile_money:GHS=momo|aggregator)`);
    const [, channel, currency, legsText] = match;
    if (!(CHANNELS as readonly string[]).includes(channel)) throw new Error(`RAIL_ROUTES: "${raw}": the channel must be one of ${CHANNELS.join(', ')}`);
    const legs = parseLegs(raw, legsText);
    if (routes.some((r) => r.channel === channel && r.currency === currency)) throw new Error(`RAIL_ROUTES: ${channel}:${currency} is routed twice`);
    routes.push({ channel: channel as Channel, currency, partner: legs[0].partner, legs });
  }
  return routes;
}

/** A route of one partner, no weights. */
export function singleRoute(channel: Channel, currency: string, partner: PartnerName): RailRoute {
  return { channel, currency, partner, legs: [{ partner, weight: null }] };
}

/** The route's text form (RAIL_ROUTES), for logs and the start banner. */
export function formatRailRoutes(routes: RailRoutes): string {
  return routes.map((r) => `${r.channel}:${r.currency}=${r.legs.map((leg) => (leg.weight === null ? leg.partner : `${leg.partner}:${leg.weight}`)).join('|')}`).join(',');
}

/** The route of a channel and currency: an exact currency first, then `*`; null when none takes it. */
export function routeOf(routes: RailRoutes, channel: string, currency: string): RailRoute | null {
  return routes.find((r) => r.channel === channel && r.currency === currency) ?? routes.find((r) => r.channel === channel && r.currency === '*') ?? null;
}

/** The first partner of a channel and currency's route; null when none takes it. */
export function routeFor(routes: RailRoutes, channel: string, currency: string): PartnerName | null {
  return routeOf(routes, channel, currency)?.partner ?? null;
}

/**
 * Issue 46: the partners a new payment of this route may use, in the order it uses them. The first
 * is chosen by weight (`draw`, uniform in [0, 1)) among the partners `admits` lets take new payments
 * (all weights null: the first of those written); the others follow in the order written. No
 * partner admitted: the route's order as written (a breaker is a guess; the payment still goes out,
 * and waits for its partner as it would without one).
 */
export function routeOrder(route: RailRoute, draw: number, admits: (partner: PartnerName) => boolean): PartnerName[] {
  const written = route.legs.map((leg) => leg.partner);
  const open = route.legs.filter((leg) => admits(leg.partner));
  if (open.length === 0) return written;
  let first = open[0].partner;
  const total = open.reduce((sum, leg) => sum + (leg.weight ?? 0), 0);
  if (total > 0) {
    let left = draw * total;
    first = open.find((leg) => (left -= leg.weight ?? 0) < 0)?.partner ?? open[open.length - 1].partner;
  }
  return [first, ...written.filter((partner) => partner !== first)];
}

/**
 * The routes when RAIL_ROUTES is unset, from the partners this start has: the mobile-money partner
 * takes mobile money, and bank transfers too while there is no aggregator (as before issue 45: its
 * transfers to BANK_ACCOUNT parties pay bank payouts and settlements); the aggregator, when there is
 * one, takes bank (and mobile money without the MoMo partner), and cards when it can take them
 * (`cards`: AGGREGATOR_ENCRYPTION_KEY set, issue 45). The mobile-money partner never takes cards.
 */
export function defaultRailRoutes(available: Readonly<Record<PartnerName, boolean>>, cards = false): RailRoutes {
  const routes: RailRoute[] = [];
  // Issue 46: with both partners, mobile money fails over from the MoMo partner to the aggregator.
  if (available.momo && available.aggregator) {
    routes.push({ channel: 'mobile_money', currency: '*', partner: 'momo', legs: [{ partner: 'momo', weight: null }, { partner: 'aggregator', weight: null }] });
  } else if (available.momo) routes.push(singleRoute('mobile_money', '*', 'momo'));
  else if (available.aggregator) routes.push(singleRoute('mobile_money', '*', 'aggregator'));
  if (available.aggregator) routes.push(singleRoute('bank', '*', 'aggregator'));
  else if (available.momo) routes.push(singleRoute('bank', '*', 'momo'));
  if (available.aggregator && cards) routes.push(singleRoute('card', '*', 'aggregator'));
  return routes;
}

/** Why routes cannot run with these partners (a route to a partner this start does not have), or null. */
export function routesProblem(routes: RailRoutes, available: Readonly<Record<PartnerName, boolean>>, cards = false): string | null {
  const takes = (r: RailRoute, partner: PartnerName) => r.legs.some((leg) => leg.partner === partner);
  const momoCards = routes.find((r) => r.channel === 'card' && takes(r, 'momo'));
  if (momoCards) return `RAIL_ROUTES routes card:${momoCards.currency} to momo: the mobile-money partner takes no cards (route cards to aggregator)`;
  const aggregatorCards = routes.find((r) => r.channel === 'card' && takes(r, 'aggregator'));
  if (aggregatorCards && available.aggregator && !cards) return `RAIL_ROUTES routes card:${aggregatorCards.currency} to aggregator, but AGGREGATOR_ENCRYPTION_KEY is unset: the aggregator takes a card only encrypted with it`;
  const missing = routes.flatMap((r) => r.legs.filter((leg) => !available[leg.partner]).map((leg) => ({ route: `${r.channel}:${r.currency}`, partner: leg.partner })));
  if (missing.length === 0) return null;
  return `RAIL_ROUTES routes ${[...new Set(missing.map((m) => m.route))].join(', ')} to ${[...new Set(missing.map((m) => m.partner))].join(' and ')}, which this start does not have (${missing.some((m) => m.partner === 'momo') ? 'PARTNER_BASE_URL' : 'AGGREGATOR_BASE_URL'} unset)`;
}

/** A payment's rail as the API shows it: the one recorded, else (a row from before issue 45) the mobile-money partner in live, `sandbox` in the sandbox. */
export function railOf(record: { environment: string; rail?: PaymentRail | null }): PaymentRail {
  return record.rail ?? (record.environment === 'live' ? 'momo' : SANDBOX_RAIL);
}

/**
 * Issue 46: the route of a merchant's new payment: the merchant's own route of its channel and
 * currency (exact currency, then `*`) when it has one, keeping only the partners this start has (the
 * partners its own routes name); else, or when none of them is left, the start's route.
 */
export function merchantRouteOf(start: RailRoutes, merchant: RailRoutes | null, channel: string, currency: string): RailRoute | null {
  const own = merchant ? routeOf(merchant, channel, currency) : null;
  if (own) {
    const present = new Set(start.flatMap((r) => r.legs.map((leg) => leg.partner)));
    const legs = own.legs.filter((leg) => present.has(leg.partner));
    const weighted = legs.some((leg) => (leg.weight ?? 0) > 0) || legs.every((leg) => leg.weight === null);
    if (legs.length > 0 && weighted) return { ...own, partner: legs[0].partner, legs };
  }
  return routeOf(start, channel, currency);
}
