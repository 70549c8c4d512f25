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
  partner: PartnerName;
}

export type RailRoutes = readonly RailRoute[];

export function isPartnerName(value: unknown): value is PartnerName {
  return typeof value === 'string' && (PARTNERS as readonly string[]).includes(value);
}

/** Parses RAIL_ROUTES; throws an Error naming the first entry it cannot read. A channel and currency named twice is refused. */
export function parseRailRoutes(text: string): RailRoutes {
  const routes: RailRoute[] = [];
  for (const raw of text.split(',').map((part) => part.trim()).filter((part) => part !== '')) {
    const match = /^([a-z_]+):([A-Z]{3}|\*)=([a-z]+)$/.exec(raw);
    if (!match) throw new Error(`RAIL_ROUTES: "${raw}" is not <channel>:<currency or *>=<partner> (e.g. mobile_money:GHS=momo)`);
    const [, channel, currency, partner] = match;
    if (!(CHANNELS as readonly string[]).includes(channel)) throw new Error(`RAIL_ROUTES: "${raw}": the channel must be one of ${CHANNELS.join(', ')}`);
    if (!isPartnerName(partner)) throw new Error(`RAIL_ROUTES: "${raw}": the partner must be one of ${PARTNERS.join(', ')}`);
    if (routes.some((r) => r.channel === channel && r.currency === currency)) throw new Error(`RAIL_ROUTES: ${channel}:${currency} is routed twice`);
    routes.push({ channel: channel as Channel, currency, partner });
  }
  return routes;
}

/** The route's text form (RAIL_ROUTES), for logs and the start banner. */
export function formatRailRoutes(routes: RailRoutes): string {
  return routes.map((r) => `${r.channel}:${r.currency}=${r.partner}`).join(',');
}

/** The partner of a channel and currency: an exact currency first, then `*`; null when none takes it. */
export function routeFor(routes: RailRoutes, channel: string, currency: string): PartnerName | null {
  return (routes.find((r) => r.channel === channel && r.currency === currency) ?? routes.find((r) => r.channel === channel && r.currency === '*'))?.partner ?? null;
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
  if (available.momo) routes.push({ channel: 'mobile_money', currency: '*', partner: 'momo' });
  else if (available.aggregator) routes.push({ channel: 'mobile_money', currency: '*', partner: 'aggregator' });
  if (available.aggregator) routes.push({ channel: 'bank', currency: '*', partner: 'aggregator' });
  else if (available.momo) routes.push({ channel: 'bank', currency: '*', partner: 'momo' });
  if (available.aggregator && cards) routes.push({ channel: 'card', currency: '*', partner: 'aggregator' });
  return routes;
}

/** Why routes cannot run with these partners (a route to a partner this start does not have), or null. */
export function routesProblem(routes: RailRoutes, available: Readonly<Record<PartnerName, boolean>>, cards = false): string | null {
  const momoCards = routes.find((r) => r.channel === 'card' && r.partner === 'momo');
  if (momoCards) return `RAIL_ROUTES routes card:${momoCards.currency} to momo: the mobile-money partner takes no cards (route cards to aggregator)`;
  const aggregatorCards = routes.find((r) => r.channel === 'card' && r.partner === 'aggregator');
  if (aggregatorCards && available.aggregator && !cards) return `RAIL_ROUTES routes card:${aggregatorCards.currency} to aggregator, but AGGREGATOR_ENCRYPTION_KEY is unset: the aggregator takes a card only encrypted with it`;
  const missing = routes.filter((r) => !available[r.partner]);
  if (missing.length === 0) return null;
  return `RAIL_ROUTES routes ${missing.map((r) => `${r.channel}:${r.currency}`).join(', ')} to ${[...new Set(missing.map((r) => r.partner))].join(' and ')}, which this start does not have (${missing.some((r) => r.partner === 'momo') ? 'PARTNER_BASE_URL' : 'AGGREGATOR_BASE_URL'} unset)`;
}

/** A payment's rail as the API shows it: the one recorded, else (a row from before issue 45) the mobile-money partner in live, `sandbox` in the sandbox. */
export function railOf(record: { environment: string; rail?: PaymentRail | null }): PaymentRail {
  return record.rail ?? (record.environment === 'live' ? 'momo' : SANDBOX_RAIL);
}
