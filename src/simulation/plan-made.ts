import type { Rng } from '../chaos/random';
import type { Params } from './plan-params';
import type { Ref, StepKind } from './types';

/**
 * What the plan's earlier steps WOULD create, by kind, in plan order (a step's creation may be refused
 * when it runs: a later reference to it is then skipped). Charges and payouts keep their environment.
 */
export interface Made {
  merchant: number;
  endpoint: number;
  charges: Array<'sandbox' | 'live'>;
  /** The indexes of the sandbox charges drawn to succeed (what a burst of refunds races for). */
  succeeding: number[];
  payouts: number;
  /** The indexes of the live payouts among them. */
  livePayouts: number[];
  refund: number;
  dispute: number;
  request: number;
}

export const nothingMade = (): Made => ({ merchant: 0, endpoint: 0, charges: [], succeeding: [], payouts: 0, livePayouts: [], refund: 0, dispute: 0, request: 0 });

/** A built step, or the kind of step that must come first to create what it needs. */
export type Built = { refs?: Ref[]; params: Params } | { need: StepKind };

/** One of `count` earlier creations: the last three half the time, else any. */
export function earlier(rng: Rng, count: number): number {
  return rng.chance(0.5) ? rng.int(Math.max(0, count - 3), count - 1) : rng.int(0, count - 1);
}

export const ref = (kind: Ref['kind'], index: number): Ref => ({ kind, index });

/** A creation: its index among its kind, and for requests with an Idempotency-Key the request's index. */
export function creating(made: Made, kind: 'merchant' | 'endpoint' | 'refund' | 'dispute', params: Params, request = false): Params {
  const out: Params = { ...params, ref_index: made[kind]++ };
  if (request) out.request_index = made.request++;
  return out;
}
