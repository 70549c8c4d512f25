import { DEFAULT_DISABLE_RULE, failureReason, isSuccessStatus, shouldAutoDisable } from '../../src/domain/webhook-health';
import { DEFAULT_RETRY_SCHEDULE, jittered, nextRetryDelay, parseDuration, parseRetryAfter, parseRetrySchedule, RETRY_JITTER } from '../../src/domain/webhook-retry';

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;

describe('parseDuration', () => {
  test.each([
    ['250ms', 250],
    ['5s', 5 * S],
    ['30m', 30 * M],
    ['2h', 2 * H],
    ['5d', 5 * D],
    [' 10 h ', 10 * H],
    ['0s', 0],
  ])('%j is %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  test.each(['', '5', 's', '5x', '1.5h', '-5s', '5 s 3', 'five seconds', '5S', '1h30m'])('%j is refused', (text) => {
    expect(() => parseDuration(text)).toThrow(/is not a duration/);
  });
});

describe('parseRetrySchedule', () => {
  test('the default schedule: 5s, 5m, 30m, 2h, 5h, 10h, 10h (seven retries)', () => {
    expect(parseRetrySchedule(DEFAULT_RETRY_SCHEDULE)).toEqual([5 * S, 5 * M, 30 * M, 2 * H, 5 * H, 10 * H, 10 * H]);
  });

  test.each([
    ['1s', [S]],
    ['100ms, 2s ,1m', [100, 2 * S, M]],
  ])('%j', (text, delays) => {
    expect(parseRetrySchedule(text)).toEqual(delays);
  });

  test.each(['', '5s,', ',5s', '5s,,5m', '5s,soon', '5s;5m'])('%j is refused (not a duration)', (text) => {
    expect(() => parseRetrySchedule(text)).toThrow(/is not a duration/);
  });

  test.each(['0s', '5s,0ms,1h'])('%j is refused (durations must be positive)', (text) => {
    expect(() => parseRetrySchedule(text)).toThrow(/needs positive durations/);
  });
});

describe('jittered', () => {
  test('the jitter is ±20 %', () => {
    expect(RETRY_JITTER).toBe(0.2);
  });

  test.each(parseRetrySchedule(DEFAULT_RETRY_SCHEDULE).map((d) => [d]))('%d ms: unit 0 gives 0.8 ×, 0.5 gives 1 ×, 0.999 stays below 1.2 ×', (delay) => {
    expect(jittered(delay, 0)).toBe(0.8 * delay);
    expect(jittered(delay, 0.5)).toBe(delay);
    expect(jittered(delay, 0.999)).toBeLessThan(1.2 * delay);
    expect(jittered(delay, 0.999)).toBeGreaterThan(1.19 * delay);
  });

  test('whole milliseconds, monotonic in the random unit, always within [0.8 ×, 1.2 ×]', () => {
    const delay = 5 * M;
    let previous = -Infinity;
    for (let unit = 0; unit < 1; unit += 0.01) {
      const value = jittered(delay, unit);
      expect(Number.isInteger(value)).toBe(true);
      expect(value).toBeGreaterThanOrEqual(previous);
      expect(value).toBeGreaterThanOrEqual(0.8 * delay);
      expect(value).toBeLessThan(1.2 * delay);
      previous = value;
    }
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-11-22T10:00:00Z');

  test.each([
    ['120', 120 * S],
    ['0', 0],
    [' 30 ', 30 * S],
  ])('delta seconds %j: %d ms', (header, ms) => {
    expect(parseRetryAfter(header, now)).toBe(ms);
  });

  test('an HTTP date: the time from now until then', () => {
    expect(parseRetryAfter('Sun, 22 Nov 2026 10:02:30 GMT', now)).toBe(150 * S);
  });

  test('an HTTP date already past: 0', () => {
    expect(parseRetryAfter('Sun, 22 Nov 2026 09:00:00 GMT', now)).toBe(0);
  });

  test.each([undefined, '', 'soon', 'garbage', 'NaN'])('absent or unreadable %j: null', (header) => {
    expect(parseRetryAfter(header, now)).toBeNull();
  });
});

describe('nextRetryDelay', () => {
  const delay = 10 * M;

  test.each([429, 503])('%d: Retry-After is held within [delay, 2 × delay]', (status) => {
    expect(nextRetryDelay(delay, status, 15 * M)).toBe(15 * M); // inside: honoured
    expect(nextRetryDelay(delay, status, 40 * M)).toBe(2 * delay); // above: clamped to 2 × delay
    expect(nextRetryDelay(delay, status, 2 * delay)).toBe(2 * delay);
    expect(nextRetryDelay(delay, status, 1 * M)).toBe(delay); // below: the delay
    expect(nextRetryDelay(delay, status, 0)).toBe(delay);
  });

  test.each([429, 503])('%d without Retry-After: the delay', (status) => {
    expect(nextRetryDelay(delay, status, null)).toBe(delay);
  });

  test.each([500, 502, 504, 400, 404, 301, null])('%p: Retry-After is ignored', (status) => {
    expect(nextRetryDelay(delay, status, 15 * M)).toBe(delay);
    expect(nextRetryDelay(delay, status, 40 * M)).toBe(delay);
  });

  test('with parseRetryAfter, as the activity combines them', () => {
    const now = Date.parse('2026-11-22T10:00:00Z');
    expect(nextRetryDelay(5 * S, 503, parseRetryAfter('8', now))).toBe(8 * S);
    expect(nextRetryDelay(5 * S, 429, parseRetryAfter('3600', now))).toBe(10 * S);
    expect(nextRetryDelay(5 * S, 429, parseRetryAfter('garbage', now))).toBe(5 * S);
  });
});

describe('shouldAutoDisable (10 consecutive failures over at least 5 days)', () => {
  const rule = DEFAULT_DISABLE_RULE;
  const start = Date.parse('2026-11-01T00:00:00Z');

  test('the default rule', () => {
    expect(rule).toEqual({ failures: 10, afterMs: 5 * D });
  });

  test('9 failures, even over 6 days: no', () => {
    expect(shouldAutoDisable(rule, 9, start, start + 6 * D)).toBe(false);
  });

  test('10 failures, streak 4 days old: no', () => {
    expect(shouldAutoDisable(rule, 10, start, start + 4 * D)).toBe(false);
  });

  test('10 failures, streak just under 5 days: no', () => {
    expect(shouldAutoDisable(rule, 10, start, start + 5 * D - 1)).toBe(false);
  });

  test('10 failures, streak exactly 5 days: yes', () => {
    expect(shouldAutoDisable(rule, 10, start, start + 5 * D)).toBe(true);
  });

  test('25 failures over 7 days: yes', () => {
    expect(shouldAutoDisable(rule, 25, start, start + 7 * D)).toBe(true);
  });

  test('a configured rule: 3 failures over 1 hour', () => {
    const custom = { failures: 3, afterMs: H };
    expect(shouldAutoDisable(custom, 3, start, start + H)).toBe(true);
    expect(shouldAutoDisable(custom, 2, start, start + H)).toBe(false);
    expect(shouldAutoDisable(custom, 3, start, start + H - 1)).toBe(false);
  });
});

describe('failureReason', () => {
  test.each([301, 302, 307, 308])('%d: explains that redirects are not followed', (status) => {
    const reason = failureReason(status, null);
    expect(reason).toMatch(new RegExp(`^HTTP ${status}\\b`));
    expect(reason).toMatch(/redirects are not followed/);
  });

  test.each([400, 404, 500, 503])('%d: the status', (status) => {
    expect(failureReason(status, null)).toBe(`HTTP ${status}`);
    expect(failureReason(status, null)).not.toMatch(/redirect/);
  });

  test('no response: the transport error, else "no response"', () => {
    expect(failureReason(null, 'connect ECONNREFUSED 127.0.0.1:9')).toBe('connect ECONNREFUSED 127.0.0.1:9');
    expect(failureReason(null, null)).toBe('no response');
  });
});

describe('isSuccessStatus', () => {
  test.each([200, 201, 202, 204, 299])('%d: success', (status) => {
    expect(isSuccessStatus(status)).toBe(true);
  });

  test.each([100, 199, 300, 301, 304, 400, 429, 500, 503])('%d: failure', (status) => {
    expect(isSuccessStatus(status)).toBe(false);
  });
});
