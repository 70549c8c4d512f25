import type { PaymentReviewSource } from './payment-review-source';

/**
 * `patched()` id (issue 43, Medium "no continue-as-new in partner waits"): a payment review's two
 * long waits, for the partner's final status of the payment (hourly polls) and for the partner's word
 * on the return transfer of late money (hourly polls), continue as new once the run's history is long
 * (PARTNER_WAIT_HISTORY_EVENTS, or the server's suggestion), carrying what the review knows
 * (PaymentReviewCarry). Measured before: a review or a return watch the partner never answered was
 * terminated by the server's history limit at about day 194, its late money or return left with no
 * one watching. Runs from before replay as they ran.
 */
export const REVIEW_WAIT_CONTINUES_PATCH = 'review-wait-continues-as-new';

/**
 * What a payment review carries into the run it continues as (its input's `resume`). `polling`: the
 * new run goes on asking for the payment's final status at poll `round`; `return`: the late money was
 * settled with a return whose transfer was submitted, and the new run goes on asking for the
 * return's status at `round` (it never submits the return again).
 */
export interface PaymentReviewCarry {
  at: 'polling' | 'return';
  /** Status requests asked so far in that wait (the backoff's position). */
  round: number;
  /** When the review's first run began (epoch ms, workflow time). */
  startedMs: number;
  /** Every reason raised so far, and the sources resolved since. */
  reasons: Array<{ source: PaymentReviewSource; reason: string }>;
  resolved: string[];
  /** `return` only: what the review had found and settled. */
  partnerStatus?: string | null;
  ourStatus?: string | null;
  returnNote?: string | null;
  /** The partner called back for the return after the last status request: the new run asks at once. */
  wake?: boolean;
  /** Runs of this review before the new one. */
  runs: number;
}

const isText = (v: unknown) => typeof v === 'string';
const optionalText = (v: unknown) => v === undefined || v === null || typeof v === 'string';

/** Why `value` is not a PaymentReviewCarry, or null. */
export function reviewCarryProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null) return 'resume must be an object';
  const c = value as Partial<Record<keyof PaymentReviewCarry, unknown>>;
  if (c.at !== 'polling' && c.at !== 'return') return 'resume.at must be polling or return';
  for (const key of ['round', 'startedMs', 'runs'] as const) if (typeof c[key] !== 'number' || !Number.isFinite(c[key])) return `resume.${key} must be a number`;
  if (!Array.isArray(c.reasons) || !c.reasons.every((r) => typeof r === 'object' && r !== null && isText(r.source) && isText(r.reason))) return 'resume.reasons must be a list of { source, reason }';
  if (!Array.isArray(c.resolved) || !c.resolved.every(isText)) return 'resume.resolved must be a list of sources';
  for (const key of ['partnerStatus', 'ourStatus', 'returnNote'] as const) if (!optionalText(c[key])) return `resume.${key} must be text`;
  if (c.wake !== undefined && typeof c.wake !== 'boolean') return 'resume.wake must be true or false';
  return null;
}
