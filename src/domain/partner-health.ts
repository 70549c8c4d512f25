import type { PartnerName } from './rail-routes';

/**
 * A live partner's health and its circuit breaker (issue 46; docs/partner-rail.md, "Partner health
 * and circuit breakers"). Every call to a partner is measured (src/rail/measured-rail.ts, the table
 * `partner_calls`); over a sliding window the calls of each partner give its health, and the health
 * moves its breaker. Pure: the store counts, this decides.
 *
 * A breaker only keeps new payments (and a failover's choice of a second partner) away from a
 * partner: a payment already with a partner is never moved by it, and every call about a reference
 * (its retries, status polls, reviews) still goes to the partner that has it.
 */

export const PARTNER_CALL_KINDS = ['submit', 'status'] as const;
export type PartnerCallKind = (typeof PARTNER_CALL_KINDS)[number];

/**
 * How one call to a partner ended:
 * - `answered`: a status, or a submission accepted (or a duplicate of one);
 * - `refused_final`: a submission refused for a reason of the payment (a final failure, the partner well);
 * - `refused_elsewhere`: refused for the partner's own trouble (`retryElsewhere`): counts against it;
 * - `timeout`: no complete answer in time (the partner may have the request);
 * - `server_error`: an HTTP 5xx;
 * - `not_reached`: the connection was never made (refused, unresolved, connect timeout);
 * - `other_error`: anything else (a bad answer, our credentials refused): not the partner's health.
 */
export const PARTNER_CALL_OUTCOMES = ['answered', 'refused_final', 'refused_elsewhere', 'timeout', 'server_error', 'not_reached', 'other_error'] as const;
export type PartnerCallOutcome = (typeof PARTNER_CALL_OUTCOMES)[number];

/** One measured call to a partner (a row of `partner_calls`). */
export interface PartnerCall {
  partner: PartnerName;
  call: PartnerCallKind;
  outcome: PartnerCallOutcome;
  /** The HTTP status of a failed call, when there was one. */
  httpStatus: number | null;
  latencyMs: number;
  /** When the call started. */
  at: Date;
}

/** The outcomes that say the partner is well: it answered, even with a no. */
export const SUCCESS_OUTCOMES: readonly PartnerCallOutcome[] = ['answered', 'refused_final'];
/** The outcomes that count against the partner: the breaker's error share. */
export const ERROR_OUTCOMES: readonly PartnerCallOutcome[] = ['timeout', 'server_error', 'not_reached', 'refused_elsewhere'];

/**
 * - `closed`: new payments may go to the partner;
 * - `open`: none (too many errors in the window), until the cooldown has passed;
 * - `half_open`: one probe payment at a time (at most one per PROBE_INTERVAL_MS) tells whether it is well again;
 * - `drained`: an operator took it out (`routing drain`); only `routing resume` brings it back.
 */
export const BREAKER_STATES = ['closed', 'open', 'half_open', 'drained'] as const;
export type BreakerState = (typeof BREAKER_STATES)[number];

/** The shortest time between two probe payments of a half-open breaker. */
export const PROBE_INTERVAL_MS = 10_000;

export interface BreakerSettings {
  /** PARTNER_HEALTH_WINDOW_MS: the sliding window of the health view and of the breaker (default 5 minutes). */
  windowMs: number;
  /** PARTNER_BREAKER_MIN_CALLS: fewer calls than this in the window never open a breaker (default 10). */
  minCalls: number;
  /** PARTNER_BREAKER_ERROR_SHARE: the share of erring calls (0 to 1) that opens a breaker (default 0.5). */
  errorShare: number;
  /** PARTNER_BREAKER_COOLDOWN_MS: how long a breaker stays open before it half-opens (default 30 s). */
  cooldownMs: number;
}

export const DEFAULT_BREAKER_SETTINGS: BreakerSettings = { windowMs: 5 * 60_000, minCalls: 10, errorShare: 0.5, cooldownMs: 30_000 };

export type OutcomeCounts = Record<PartnerCallOutcome, number>;

/** No call at all. */
export function noCalls(): OutcomeCounts {
  return Object.fromEntries(PARTNER_CALL_OUTCOMES.map((outcome) => [outcome, 0])) as OutcomeCounts;
}

export interface CallTally {
  calls: number;
  /** Answered and refused_final: the partner said something. */
  successes: number;
  /** Timeout, server_error, not_reached and refused_elsewhere. */
  errors: number;
  answered: number;
}

export function tallyOf(counts: OutcomeCounts): CallTally {
  const sum = (outcomes: readonly PartnerCallOutcome[]) => outcomes.reduce((total, outcome) => total + (counts[outcome] ?? 0), 0);
  return { calls: sum(PARTNER_CALL_OUTCOMES), successes: sum(SUCCESS_OUTCOMES), errors: sum(ERROR_OUTCOMES), answered: counts.answered ?? 0 };
}

/** A partner's health in the window, as `routing status` and the gauges show it. */
export interface PartnerHealth {
  calls: number;
  /** (answered + refused_final) / calls; null without calls. */
  successRate: number | null;
  /** (timeout + server_error + not_reached + refused_elsewhere) / calls; null without calls. */
  errorShare: number | null;
  latencyP50Ms: number | null;
  latencyP95Ms: number | null;
}

export function healthOf(counts: OutcomeCounts, latency: { p50Ms: number | null; p95Ms: number | null }): PartnerHealth {
  const tally = tallyOf(counts);
  return {
    calls: tally.calls,
    successRate: tally.calls ? tally.successes / tally.calls : null,
    errorShare: tally.calls ? tally.errors / tally.calls : null,
    latencyP50Ms: latency.p50Ms,
    latencyP95Ms: latency.p95Ms,
  };
}

/** A breaker as its row holds it. */
export interface Breaker {
  state: BreakerState;
  /** When it entered its state. */
  since: Date;
}

/** A change of state the evaluator makes, with why (logged and kept in partner_breaker_changes). */
export interface BreakerChange {
  state: BreakerState;
  reason: string;
}

const percent = (share: number) => `${Math.round(share * 1000) / 10} %`;

/**
 * Where the calls that decide a breaker start: in `closed`, the window, but never before the breaker
 * closed (errors that opened it do not open it again once a probe closed it); in `half_open`, since it
 * half-opened. Other states count nothing.
 */
export function countsFrom(breaker: Breaker, now: Date, settings: BreakerSettings): Date {
  const windowStart = new Date(now.getTime() - settings.windowMs);
  if (breaker.state === 'half_open') return breaker.since;
  return breaker.since > windowStart ? breaker.since : windowStart;
}

/**
 * The breaker's next state, or null when it stays: `counts` are the partner's calls since
 * countsFrom(breaker). Drained is never changed here (only an operator resumes it).
 *
 * - closed → open: at least minCalls calls and an error share of at least errorShare;
 * - open → half_open: once cooldownMs has passed since it opened;
 * - half_open → open: its calls since it half-opened (a probe's) err at the threshold or more;
 * - half_open → closed: they include answered ones and err below the threshold.
 */
export function nextBreakerState(breaker: Breaker, counts: OutcomeCounts, now: Date, settings: BreakerSettings): BreakerChange | null {
  const tally = tallyOf(counts);
  const share = tally.calls ? tally.errors / tally.calls : 0;
  switch (breaker.state) {
    case 'drained':
      return null;
    case 'closed':
      if (tally.calls >= settings.minCalls && share >= settings.errorShare) {
        return { state: 'open', reason: `${tally.errors} of ${tally.calls} calls erred (${percent(share)}, at least ${percent(settings.errorShare)} opens it)` };
      }
      return null;
    case 'open':
      if (now.getTime() - breaker.since.getTime() >= settings.cooldownMs) return { state: 'half_open', reason: `open for ${Math.round(settings.cooldownMs / 1000)} s: one probe payment at a time` };
      return null;
    case 'half_open':
      if (tally.calls > 0 && tally.errors > 0 && share >= settings.errorShare) {
        return { state: 'open', reason: `the probe's calls erred: ${tally.errors} of ${tally.calls} (${percent(share)})` };
      }
      if (tally.answered > 0 && share < settings.errorShare) {
        return { state: 'closed', reason: `the probe's calls were answered: ${tally.answered} answered, ${tally.errors} of ${tally.calls} erred` };
      }
      return null;
  }
}

/**
 * Whether a breaker in `state` lets a new payment go to its partner, `probeDue` telling for a
 * half-open one whether the last probe is at least PROBE_INTERVAL_MS old (the store claims it
 * atomically: src/persistence/partner/partner-breaker-store.ts partnerAdmits).
 */
export function breakerAdmits(state: BreakerState, probeDue: boolean): boolean {
  if (state === 'closed') return true;
  if (state === 'half_open') return probeDue;
  return false;
}

export function isBreakerState(value: unknown): value is BreakerState {
  return typeof value === 'string' && (BREAKER_STATES as readonly string[]).includes(value);
}

export function isPartnerCallOutcome(value: unknown): value is PartnerCallOutcome {
  return typeof value === 'string' && (PARTNER_CALL_OUTCOMES as readonly string[]).includes(value);
}
