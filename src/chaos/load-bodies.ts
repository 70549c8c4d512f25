import type { Rng } from './random';

/** The MTN Ghana mobile-money network of the seeded reference data. */
export const MTN_GH = '3f9c2b1e-8a4d-4c6e-9b7a-1d2e3f4a5b01';

/**
 * What the fake partner does with a live payment is chosen by the phone number's last four digits
 * (src/rail/fake-partner/behaviours.ts). The load's mix: mostly plain, and the partner answering
 * late, twice or not at all, or SUCCESSFUL only after a long PENDING (`0012`: 4 minutes in a chaos
 * run, CHAOS_TOPOLOGY_ENV; issue 44). Left out: the statement anomalies (0010, 0011), which belong to
 * reconciliation, not to faults.
 */
export const LIVE_PARTY_SUFFIXES = {
  plain: 8,
  '0005': 2, // the callback twice
  '0009': 2, // a late callback
  '0007': 1, // a slow 202
  '0008': 1, // no callback: found by polling
  '0004': 1, // no answer at all: NeedsAttention after 10 minutes
  '0001': 1, // refused after acceptance
  '0006': 1, // a 500 on the first submission
  '0012': 1, // SUCCESSFUL only after a long PENDING (its callback then)
} as const;

export function livePhone(rng: Rng): string {
  const suffix = rng.weighted(LIVE_PARTY_SUFFIXES);
  return `23324${rng.int(100, 999)}${suffix === 'plain' ? String(rng.int(5000, 9999)) : suffix}`;
}

/** Sandbox outcomes that end within seconds (`pending` and `indeterminate` wait 10 to 15 minutes). */
const SANDBOX_OUTCOMES = { succeed: 12, declined: 1, insufficient_funds: 1, partner_unavailable: 1 } as const;

export function chargeBody(rng: Rng, environment: 'sandbox' | 'live', n: number): Record<string, unknown> {
  const outcome = rng.weighted(SANDBOX_OUTCOMES);
  return {
    amount: rng.int(50, 400) * 100,
    currency: 'GHS',
    channel: 'mobile_money',
    momo_network_id: MTN_GH,
    customer: { identifier: environment === 'live' ? livePhone(rng) : `23324${rng.int(1_000_000, 9_999_999)}`, name: 'Ama Mensah' },
    reference: `chaos-${environment}-${n}`,
    description: 'chaos load',
    metadata: environment === 'sandbox' ? { sandbox_outcome: outcome } : {},
  };
}

export function payoutBody(rng: Rng, environment: 'sandbox' | 'live', n: number): Record<string, unknown> {
  return {
    amount: rng.int(5, 30) * 100,
    currency: 'GHS',
    channel: 'mobile_money',
    momo_network_id: MTN_GH,
    recipient: { identifier: environment === 'live' ? livePhone(rng) : `23324${rng.int(1_000_000, 9_999_999)}`, name: 'Kofi Boateng' },
    reference: `chaos-po-${environment}-${n}`,
  };
}
