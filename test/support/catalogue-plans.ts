import type { DefectName } from '../../src/simulation/defects';
import { balancesMatch, deliveriesRecorded, eventSequencesGapless, modelAgrees, partnerBooksAgree, payoutsNeverOverdraw } from '../../src/simulation/invariants';
import type { Invariant, Plan, Step } from '../../src/simulation/types';

/**
 * The defect catalogue's plans (src/simulation/defects/catalogue.ts): for each defect, a short
 * hand-written plan whose steps give it something to break, the invariant expected to catch it and the
 * step after which it must (test/system/simulation-catalogue-{books,edges}.test.ts with the defect on;
 * test/system/simulation-catalogue-clean.test.ts shows each plan clean without it).
 */
export interface CatalogueCase {
  defect: DefectName;
  plan: Plan;
  invariant: Invariant;
  /** The step after which the run must stop (its first failing step). */
  failsAt: number;
}

const NETWORK = '3f9c2b1e-8a4d-4c6e-9b7a-1d2e3f4a5b01';
const key = (seed: number, i: number) => `7a1d2c3b-4a5e-4f60-8a7b-${String(seed).padStart(8, '0')}${String(i).padStart(4, '0')}`;

const merchant = (seed: number): Step => ({ n: 0, kind: 'create_merchant', params: { name: `Sim ${seed} #1`, review_threshold: 10_000_000, verified: true, settlement_account: '001234567890', ref_index: 0 } });

const sandboxCharge = (seed: number, n: number, amount: number, request: number): Step => ({
  n, kind: 'sandbox_charge', refs: [{ kind: 'merchant', index: 0 }],
  params: { amount, currency: 'GHS', channel: 'card', momo_network_id: null, identifier: '4111111111111111', outcome: 'succeed', idempotency_key: key(seed, n), ref_index: request, request_index: request },
});

const liveCharge = (seed: number, n: number): Step => ({
  n, kind: 'live_charge', refs: [{ kind: 'merchant', index: 0 }],
  params: { amount: 50_000, currency: 'GHS', channel: 'mobile_money', momo_network_id: NETWORK, identifier: '233241235678', outcome: null, idempotency_key: key(seed, n), ref_index: 0, request_index: 0 },
});

const jump = (n: number, ms: number): Step => ({ n, kind: 'time_jump', params: { ms } });

/** A merchant, a sandbox card charge that succeeds, ten seconds: steps 0-2. */
const succeededCharge = (seed: number, amount = 10_000): Step[] => [merchant(seed), sandboxCharge(seed, 1, amount, 0), jump(2, 10_000)];

export const CATALOGUE: CatalogueCase[] = [
  { defect: 'skip-charge-posting', plan: { seed: 4401, steps: succeededCharge(4401) }, invariant: balancesMatch, failsAt: 2 },
  { defect: 'fee-miscomputed', plan: { seed: 4402, steps: succeededCharge(4402) }, invariant: modelAgrees, failsAt: 2 },
  { defect: 'sequence-gap', plan: { seed: 4403, steps: succeededCharge(4403) }, invariant: eventSequencesGapless, failsAt: 2 },
  {
    defect: 'double-refund',
    plan: {
      seed: 4404,
      steps: [
        ...succeededCharge(4404),
        { n: 3, kind: 'refund', refs: [{ kind: 'charge', index: 0 }], params: { amount: 4_000, reason: 'requested_by_customer', idempotency_key: key(4404, 3), ref_index: 0, request_index: 1 } },
        jump(4, 10_000),
      ],
    },
    invariant: balancesMatch,
    failsAt: 4,
  },
  {
    defect: 'overdraft-race',
    plan: {
      seed: 4405,
      steps: [
        ...succeededCharge(4405, 100_000),
        {
          n: 3, kind: 'burst', refs: [{ kind: 'merchant', index: 0 }],
          params: { shape: 'payouts', count: 3, environment: 'sandbox', amount: 100, currency: 'GHS', channel: 'mobile_money', momo_network_id: NETWORK, bank_code: null, identifier: '233249876543', idempotency_key: key(4405, 3) },
        },
      ],
    },
    invariant: payoutsNeverOverdraw,
    failsAt: 3,
  },
  {
    defect: 'unsigned-webhook',
    plan: {
      seed: 4406,
      steps: [
        merchant(4406),
        { n: 1, kind: 'create_endpoint', refs: [{ kind: 'merchant', index: 0 }], params: { receiver: 0, timeout_seconds: 5, ref_index: 0 } },
        sandboxCharge(4406, 2, 10_000, 0),
      ],
    },
    invariant: deliveriesRecorded,
    failsAt: 2,
  },
  // The fake partner approves both copies within the charge's own settle.
  { defect: 'double-submit', plan: { seed: 4407, steps: [merchant(4407), liveCharge(4407, 1), jump(2, 30_000)] }, invariant: partnerBooksAgree, failsAt: 1 },
  {
    defect: 'dropped-late-success',
    plan: {
      seed: 4408,
      steps: [
        merchant(4408),
        { n: 1, kind: 'partner_behaviour', params: { behaviour: 'refuse' } },
        liveCharge(4408, 2),
        { n: 3, kind: 'partner_behaviour', params: { behaviour: 'normal' } },
        jump(4, 30_000),
        { n: 5, kind: 'partner_pays_late', refs: [{ kind: 'charge', index: 0 }], params: { reason: 'simulation: the partner says it paid the refused charge after all' } },
      ],
    },
    invariant: partnerBooksAgree,
    failsAt: 5,
  },
];
