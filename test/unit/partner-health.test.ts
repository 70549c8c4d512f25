import {
  breakerAdmits,
  countsFrom,
  DEFAULT_BREAKER_SETTINGS as S,
  healthOf,
  nextBreakerState,
  noCalls,
  type Breaker,
  type OutcomeCounts,
  type PartnerCallOutcome,
} from '../../src/domain/partner-health';
import { outcomeOfError, outcomeOfSubmit } from '../../src/rail/measured-rail';
import { RailUnavailable } from '../../src/rail/partner-rail';
import { RailMisconfigured } from '../../src/rail/rail-errors';
import { breakerSettingsFromEnv } from '../../src/runtime/partner-health-settings';

// Issue 46: a partner's health over the window, and every move of its circuit breaker.

const NOW = new Date('2026-12-17T12:00:00Z');
const ago = (ms: number) => new Date(NOW.getTime() - ms);
const counts = (given: Partial<Record<PartnerCallOutcome, number>>): OutcomeCounts => ({ ...noCalls(), ...given });
const breaker = (state: Breaker['state'], sinceMs = 60_000): Breaker => ({ state, since: ago(sinceMs) });

describe('health', () => {
  test('success rate: answered and refused_final over all; error share: timeout, 5xx, not reached, refused elsewhere over all', () => {
    const h = healthOf(counts({ answered: 5, refused_final: 1, refused_elsewhere: 1, timeout: 1, server_error: 1, not_reached: 0, other_error: 1 }), { p50Ms: 120, p95Ms: 900 });
    expect(h).toEqual({ calls: 10, successRate: 0.6, errorShare: 0.3, latencyP50Ms: 120, latencyP95Ms: 900 });
  });
  test('no call: nulls, not zeros', () => {
    expect(healthOf(noCalls(), { p50Ms: null, p95Ms: null })).toEqual({ calls: 0, successRate: null, errorShare: null, latencyP50Ms: null, latencyP95Ms: null });
  });
});

describe('closed', () => {
  test('opens at the threshold with at least the minimum of calls', () => {
    const change = nextBreakerState(breaker('closed'), counts({ answered: 5, server_error: 3, timeout: 2 }), NOW, S);
    expect(change).toEqual({ state: 'open', reason: expect.stringContaining('5 of 10 calls erred') });
  });
  test('stays closed just below the threshold', () => {
    expect(nextBreakerState(breaker('closed'), counts({ answered: 6, not_reached: 4 }), NOW, S)).toBeNull();
  });
  test('stays closed below the minimum of calls, however bad', () => {
    expect(nextBreakerState(breaker('closed'), counts({ not_reached: 9 }), NOW, S)).toBeNull();
  });
  test('refusals for a final reason and other errors never open it', () => {
    expect(nextBreakerState(breaker('closed'), counts({ refused_final: 20, other_error: 20 }), NOW, S)).toBeNull();
  });
  test('its calls count from the window, or from when it closed if that is later', () => {
    expect(countsFrom(breaker('closed', 3_600_000), NOW, S)).toEqual(ago(S.windowMs));
    expect(countsFrom(breaker('closed', 20_000), NOW, S)).toEqual(ago(20_000));
  });
});

describe('open', () => {
  test('half-opens once the cooldown has passed, not before', () => {
    expect(nextBreakerState(breaker('open', S.cooldownMs - 1), noCalls(), NOW, S)).toBeNull();
    expect(nextBreakerState(breaker('open', S.cooldownMs), noCalls(), NOW, S)).toEqual({ state: 'half_open', reason: expect.any(String) });
  });
  test('admits no payment', () => {
    expect(breakerAdmits('open', true)).toBe(false);
  });
});

describe('half open', () => {
  test('admits a probe only when one is due (the store claims it once)', () => {
    expect(breakerAdmits('half_open', true)).toBe(true);
    expect(breakerAdmits('half_open', false)).toBe(false);
    expect(breakerAdmits('closed', false)).toBe(true);
  });
  test('its calls count from when it half-opened, even past the window', () => {
    expect(countsFrom(breaker('half_open', S.windowMs * 3), NOW, S)).toEqual(ago(S.windowMs * 3));
  });
  test('closes when the probe was answered and erred below the threshold', () => {
    expect(nextBreakerState(breaker('half_open'), counts({ answered: 2, timeout: 1 }), NOW, S)).toEqual({ state: 'closed', reason: expect.stringContaining('2 answered') });
  });
  test('opens again when the probe fails', () => {
    expect(nextBreakerState(breaker('half_open'), counts({ server_error: 1 }), NOW, S)).toEqual({ state: 'open', reason: expect.stringContaining("probe's calls erred") });
    expect(nextBreakerState(breaker('half_open'), counts({ answered: 1, not_reached: 1 }), NOW, S)?.state).toBe('open');
  });
  test('waits while no probe has been answered', () => {
    expect(nextBreakerState(breaker('half_open'), noCalls(), NOW, S)).toBeNull();
    expect(nextBreakerState(breaker('half_open'), counts({ refused_final: 1 }), NOW, S)).toBeNull();
  });
});

describe('drained', () => {
  test('never changed by the evaluator, and admits nothing', () => {
    expect(nextBreakerState(breaker('drained', 86_400_000), counts({ answered: 100 }), NOW, S)).toBeNull();
    expect(nextBreakerState(breaker('drained'), counts({ server_error: 100 }), NOW, S)).toBeNull();
    expect(breakerAdmits('drained', true)).toBe(false);
  });
});

describe('what a call says of the partner (MeasuredRail)', () => {
  test('answers', () => {
    expect(outcomeOfSubmit({ kind: 'accepted' })).toBe('answered');
    expect(outcomeOfSubmit({ kind: 'duplicate' })).toBe('answered');
    expect(outcomeOfSubmit({ kind: 'refused', reason: 'PAYER_NOT_FOUND', failureClass: 'invalid_recipient' })).toBe('refused_final');
    expect(outcomeOfSubmit({ kind: 'refused', reason: 'SERVICE_UNAVAILABLE', failureClass: 'partner_unavailable', retryElsewhere: true })).toBe('refused_elsewhere');
  });
  test('errors', () => {
    expect(outcomeOfError(new RailUnavailable('POST /x: ECONNREFUSED', undefined, true))).toBe('not_reached');
    expect(outcomeOfError(new RailUnavailable('POST /x: HTTP 503', 503))).toBe('server_error');
    expect(outcomeOfError(new RailUnavailable('POST /x: timeout: no complete answer within 5000 ms'))).toBe('timeout');
    expect(outcomeOfError(new RailUnavailable('GET /x: an answer that is not a transaction status', 200))).toBe('other_error');
    expect(outcomeOfError(new RailMisconfigured('401 on the token', 401))).toBe('other_error');
    expect(outcomeOfError(new Error('boom'))).toBe('other_error');
  });
});

describe('settings', () => {
  test('defaults, values, and a bad value named', () => {
    expect(breakerSettingsFromEnv({})).toEqual(S);
    expect(breakerSettingsFromEnv({ PARTNER_HEALTH_WINDOW_MS: '60000', PARTNER_BREAKER_MIN_CALLS: '3', PARTNER_BREAKER_ERROR_SHARE: '0.25', PARTNER_BREAKER_COOLDOWN_MS: '5000' })).toEqual({
      windowMs: 60_000,
      minCalls: 3,
      errorShare: 0.25,
      cooldownMs: 5_000,
    });
    expect(() => breakerSettingsFromEnv({ PARTNER_BREAKER_ERROR_SHARE: '1.5' })).toThrow(/PARTNER_BREAKER_ERROR_SHARE/);
    expect(() => breakerSettingsFromEnv({ PARTNER_BREAKER_ERROR_SHARE: '0' })).toThrow(/PARTNER_BREAKER_ERROR_SHARE/);
    expect(() => breakerSettingsFromEnv({ PARTNER_BREAKER_MIN_CALLS: 'ten' })).toThrow(/PARTNER_BREAKER_MIN_CALLS/);
  });
});
