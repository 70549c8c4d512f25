import { MAX_REASON_LENGTH, operatorOf, operatorRefusal, RECONCILER_OPERATOR } from './operator-action';
import { INDETERMINATE_STEP } from './charge-resolution';

/**
 * How long the charge workflow keeps retrying a database step before it asks an operator, and what
 * it tells them. Shared by the workflow (pure values only), the reconciler and the CLI.
 *
 * Retry schedule of one database step (a local activity): 200 ms, doubling, capped at 30 s, at most
 * 40 attempts. The waits add up to 0.2+0.4+…+25.6 s (51 s) plus 31 × 30 s = 16 min 21 s, so an
 * outage of a few minutes is ridden out; attempts themselves are short (WORKER_DB_TIMEOUTS: 3 s to
 * get a connection, 8 s per statement), and 30 minutes over all attempts is a hard backstop. A
 * persistent failure therefore gives up after 16–30 minutes. Waits up to `localRetryThreshold` (10 s)
 * happen inside the worker; longer ones are durable timers, about 5 history events each (~170 per
 * give-up), far below Temporal's limits.
 */
export const DB_STEP_RETRY = {
  initialIntervalMs: 200,
  backoffCoefficient: 2,
  maximumIntervalMs: 30_000,
  maximumAttempts: 40,
  scheduleToCloseMs: 30 * 60_000,
  localRetryThresholdMs: 10_000,
  startToCloseMs: 30_000,
} as const;

/** Patch id guarding the give-up path (ask an operator instead of failing or retrying forever). */
export const BOUNDED_DB_RETRIES_PATCH = 'bounded-db-retries';

/**
 * Retries the reconciler may ask for on its own, per charge; after that only an operator can retry
 * (each retry is another bounded round of attempts, so this also bounds the history).
 */
export const MAX_AUTOMATIC_RETRIES = 3;

/** Longest accepted reason (it is kept in workflow history and shown to operators). */
export { MAX_REASON_LENGTH } from './operator-action';

/** Error types that are a refusal by the charge's rules, not a database problem: never retried by an operator. */
export const DOMAIN_REFUSALS: readonly string[] = ['TransitionRefusedError', 'ChargeNotFoundError', 'PayoutTransitionRefusedError', 'PayoutNotFoundError', 'RefundTransitionRefusedError'];

/** Error type of a charge workflow whose acceptance could not be recorded (no row, no money moved). */
export const CHARGE_NOT_RECORDED = 'ChargeNotRecorded';

export type RetryRequester = 'operator' | 'reconciler';

/**
 * Input of the `retryStep` update (also from the Temporal UI: `{"operator":"jane","reason":"database restored"}`).
 * Every retry names its operator and reason, whoever sends it (issue 31): the reconciler's names
 * RECONCILER_OPERATOR and a reason starting with RECONCILER_REASON_PREFIX, and only that makes a
 * retry automatic (counted against MAX_AUTOMATIC_RETRIES). `by` is the older way of saying so: when
 * sent, `reconciler` must come with the reconciler's operator, `operator` with anyone else.
 */
export interface RetryStepRequest {
  reason: string;
  /** Who retries (the audit log); required. */
  operator?: string;
  by?: RetryRequester;
  batch_id?: string;
}

/** How the reconciler's reason begins (`reconciler: overdue by 180 s`). */
export const RECONCILER_REASON_PREFIX = 'reconciler: ';

/**
 * Whether an accepted retryStep is the reconciler's automatic retry: its operator is
 * RECONCILER_OPERATOR (requests recorded before issue 31 said so with `by` alone, and replay as they ran).
 */
export function isAutomaticRetry(request: RetryStepRequest): boolean {
  return request.by === 'reconciler' || operatorOf(request) === RECONCILER_OPERATOR;
}

/** What the charge workflow tells an operator about a database step it gave up on. */
export interface ChargeAttention {
  /** True while the workflow waits for `retryStep` (search attribute NeedsAttention). */
  needsAttention: boolean;
  /** The step that gave up, e.g. `charge -> succeeded`; null when none ever did. */
  step: string | null;
  /** Why, with the last error; kept after a successful retry for the record. */
  reason: string | null;
  /** Workflow time the step gave up (ISO). */
  since: string | null;
  /** How often a step gave up in this run. */
  giveUps: number;
  operatorRetries: number;
  automaticRetries: number;
  lastRetry: { at: string; by: RetryRequester; reason: string } | null;
}

export const NO_ATTENTION: ChargeAttention = {
  needsAttention: false,
  step: null,
  reason: null,
  since: null,
  giveUps: 0,
  operatorRetries: 0,
  automaticRetries: 0,
  lastRetry: null,
};

/** The step of a live payment flagged while it waits for the partner's final answer (workflows/partner-answer.ts): no database step to retry. */
export const PARTNER_RAIL_STEP = 'partner rail';

/**
 * What a payment whose NeedsAttentionReason (`attentionReason`, published by its workflow) says it
 * waits for someone else (kind `waiting`: the partner's word) tells an operator's `retryStep`, or null
 * when the reason is not a wait. A payout on the partner rail raises it without a database step of its
 * own giving up, so the desk's state alone does not show it (issue 43: a retryStep on a payment
 * waiting for the partner was accepted, retried nothing and wrote an audit row).
 */
export function waitingRefusal(paymentId: string, needsAttentionReason: string | null | undefined): string | null {
  if (!needsAttentionReason?.startsWith('waiting')) return null;
  return `${paymentId} waits for the partner's word ("${needsAttentionReason}"), not for a database step that gave up: nothing to retry, nothing was written; ${partnerWaitNext(paymentId)}`;
}

/** What an operator can do for a payment that waits for the partner's word. */
function partnerWaitNext(paymentId: string): string {
  if (paymentId.startsWith('txn_')) return `the engine keeps asking the partner (a live charge: charges resolve ${paymentId} --as succeeded|failed --evidence … asks it at once)`;
  return 'the engine keeps asking the partner and the payment follows its word by itself (ask the partner about the reference; payments stuck shows the wait)';
}

/**
 * Why a retry request is refused, or null when it is acceptable in this state. `needsAttentionReason`:
 * the run's NeedsAttentionReason search attribute, when the caller can read it (the workflow's validator).
 */
export function retryRefusal(chargeId: string, state: ChargeAttention, request: unknown, needsAttentionReason?: string | null): string | null {
  if (typeof request !== 'object' || request === null) return 'retryStep takes {"operator": "…", "reason": "…"}';
  const { reason, by } = request as { reason?: unknown; by?: unknown };
  if (typeof reason !== 'string' || reason.trim() === '') return 'a reason is required';
  if (reason.length > MAX_REASON_LENGTH) return `the reason is longer than ${MAX_REASON_LENGTH} characters`;
  if (by !== undefined && by !== 'operator' && by !== 'reconciler') return 'by must be operator or reconciler';
  // Every retry names its operator (the audit log), the reconciler's too: a raw update cannot skip it.
  const unnamed = operatorRefusal(request, [], [RECONCILER_OPERATOR]);
  if (unnamed) return unnamed;
  const automatic = operatorOf(request) === RECONCILER_OPERATOR;
  if (by === 'reconciler' && !automatic) return `"by": "reconciler" is the engine's own reconciler (operator "${RECONCILER_OPERATOR}"); an operator's retry names the operator and leaves "by" out`;
  if (automatic && by === 'operator') return `"operator": "${RECONCILER_OPERATOR}" is the engine's reconciler, not an operator`;
  if (automatic && !reason.startsWith(RECONCILER_REASON_PREFIX)) return `the reconciler's reason starts with "${RECONCILER_REASON_PREFIX}"`;
  if (state.step === INDETERMINATE_STEP) return `charge ${chargeId} waits for its partner's answer, not for a database step: resolve it (charges resolve ${chargeId} --as succeeded|failed --reason TEXT)`;
  if (state.needsAttention && state.step === PARTNER_RAIL_STEP) {
    return `${chargeId} waits for the partner's word, not for a database step: nothing to retry; ${partnerWaitNext(chargeId)}`;
  }
  // A database step that gave up is retried even while the run also waits on the partner; otherwise the wait answers.
  const gaveUpHere = state.needsAttention && state.step !== null && state.step !== PARTNER_RAIL_STEP;
  const waiting = gaveUpHere ? null : waitingRefusal(chargeId, needsAttentionReason);
  if (waiting) return waiting;
  if (!state.needsAttention) return `charge ${chargeId} is not waiting for an operator: nothing to retry`;
  if (automatic && state.automaticRetries >= MAX_AUTOMATIC_RETRIES) {
    return `charge ${chargeId}: the ${MAX_AUTOMATIC_RETRIES} automatic retries are used up; an operator must retry`;
  }
  return null;
}

/** ACTIVITY_ATTENTION_ATTEMPTS when unset: the attempt of a failing activity that flags its payment. */
export const DEFAULT_ACTIVITY_ATTENTION_ATTEMPTS = 10;

/** ACTIVITY_ATTENTION_ATTEMPTS (an attempt number, at least 2), read by the worker. */
export function activityAttentionAttempts(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.ACTIVITY_ATTENTION_ATTEMPTS;
  if (raw === undefined || raw === '') return DEFAULT_ACTIVITY_ATTENTION_ATTEMPTS;
  if (!/^[0-9]{1,3}$/.test(raw) || Number(raw) < 2) throw new Error(`ACTIVITY_ATTENTION_ATTEMPTS must be an attempt number from 2 to 999, got "${raw}"`);
  return Number(raw);
}

/**
 * Sent by the worker (src/runtime/activity-trouble.ts) to a payment's workflow when one of its
 * activities fails at attempt ACTIVITY_ATTENTION_ATTEMPTS (`activityTrouble`: the workflow raises
 * NeedsAttention with the last failure as the reason), and when it then succeeds (`activityRecovered`).
 */
export interface ActivityTrouble {
  activity: string;
  attempt: number;
  /** The last failure, one line (type: message), no stack. */
  failure: string;
}
