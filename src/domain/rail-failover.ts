import type { PartnerName } from './rail-routes';

/**
 * Failover inside one payment (issue 46; docs/partner-rail.md, "Routing and failover"). A live
 * payment's workflow tries the next partner of its route only when its attempt provably moved no
 * money, and only at its first submission:
 * - `not_reached`: every request sent with the attempt's reference never reached the partner (the
 *   connection was never made: RailUnavailable.notReached); or
 * - `refused`: the partner refused the attempt's first submission with a reason its error table
 *   marks retry-elsewhere, and no other send of the reference can still be under way.
 * Never after an acknowledgement (accepted, duplicate, PENDING, SUCCESSFUL), a timeout after
 * sending, a 5xx, or any answer that leaves the partner's word open: then only that partner's word
 * ends the payment. The store's gate (src/persistence/partner/rail-failover-store.ts) checks these
 * facts again in the database, under the reference's row lock, before it moves the payment.
 *
 * Never for a refund (it goes back through the partner that took the charge), a card charge (the
 * customer typed the card into the aggregator's page) or a payment without a route of two partners.
 */
export const RAIL_FAILOVER_PATCH = 'rail-failover';

/** Why an attempt may be left for the next partner. */
export type FailoverCause = 'not_reached' | 'refused';

/** What the store's gate answered. */
export type FailoverResult =
  /** The payment moved to `partner` (its attempt `attempt`, a new reference); `from` is the partner left. */
  | { moved: true; partner: PartnerName; from: PartnerName; attempt: number; cause: FailoverCause }
  /** Nothing changed: `why` says what held it (the partner may have it; no other partner admits it; …). */
  | { moved: false; why: string };

/** What the database holds of a payment's current attempt, as the gate reads it. */
export interface AttemptFacts {
  /** Submissions started with the attempt's reference (counted before each is sent). */
  sends: number;
  /** Those that provably never reached the partner. */
  unreached: number;
  /** The reason of a first submission's refusal marked retry-elsewhere, or null. */
  refusedElsewhere: string | null;
  /** The partner acknowledged the reference (accepted, duplicate, PENDING) or said SUCCESSFUL. */
  acknowledged: boolean;
}

/**
 * The cause on which an attempt may be left, or why it may not (a sentence). Pure: the store reads
 * the facts under the row lock and asks this.
 */
export function failoverCause(facts: AttemptFacts): { cause: FailoverCause } | { why: string } {
  if (facts.acknowledged) return { why: 'the partner acknowledged the reference: only its word ends the payment' };
  if (facts.refusedElsewhere !== null && facts.sends - facts.unreached <= 1) return { cause: 'refused' };
  if (facts.sends > 0 && facts.unreached === facts.sends) return { cause: 'not_reached' };
  if (facts.sends === 0) return { why: 'nothing was sent with the reference yet' };
  return { why: `${facts.sends - facts.unreached} of its ${facts.sends} submission(s) may have reached the partner (no answer that proves otherwise): only its word ends the payment` };
}

/** The partners a route names, as kept on a payment (`rail_route`: `momo,aggregator`); empty for none. */
export function parseRailRoute(text: string | null | undefined): PartnerName[] {
  if (!text) return [];
  return text.split(',').filter((p): p is PartnerName => p === 'momo' || p === 'aggregator');
}

/** The next partner a payment may fail over to: the first of its route not tried yet that `admits` new payments; null when none. */
export async function nextPartner(route: readonly PartnerName[], tried: readonly string[], admits: (partner: PartnerName) => Promise<boolean>): Promise<PartnerName | null> {
  for (const partner of route) {
    if (tried.includes(partner)) continue;
    if (await admits(partner)) return partner;
  }
  return null;
}
