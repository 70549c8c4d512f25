/**
 * npm run chaos (src/chaos/): a seed reproduces the schedule of faults and the load's draws; the
 * short mode injects each fault kind once; what counts as a broken promise in an API answer.
 */
import { LIVE_PARTY_SUFFIXES, chargeBody, livePhone } from '../../src/chaos/load-bodies';
import { parseChaosOptions } from '../../src/chaos/options';
import { Rng } from '../../src/chaos/random';
import { judge, type RequestRecord } from '../../src/chaos/request-log';
import { FAULT_KINDS, MAX_FAULTS, planFaults, SKEW_MAX_S, SKEW_MIN_S } from '../../src/chaos/schedule';

const plan = (seed: number, short: boolean, notApplicable: (typeof FAULT_KINDS)[number][] = []) => planFaults(new Rng(seed).fork('faults'), { short, durationS: 600, notApplicable });

test('a seed gives the same faults, targets and spacing; another seed another schedule', () => {
  expect(plan(32, false)).toEqual(plan(32, false));
  expect(plan(32, true)).toEqual(plan(32, true));
  expect(plan(33, false)).not.toEqual(plan(32, false));
  const load = (seed: number) => {
    const rng = new Rng(seed).fork('load');
    return Array.from({ length: 20 }, (_, n) => chargeBody(rng.fork(`op-${n}`), n % 2 ? 'live' : 'sandbox', n));
  };
  expect(load(32)).toEqual(load(32));
  expect(load(32)).not.toEqual(load(33));
});

test('the short mode injects each kind once, in a seeded order; on the dev server without Temporal’s PostgreSQL', () => {
  const short = plan(7, true, ['kill_temporal_postgres']);
  expect(short.map((f) => f.kind).sort()).toEqual(FAULT_KINDS.filter((k) => k !== 'kill_temporal_postgres').sort());
  expect(short.every((f) => f.gapS >= 2 && f.gapS <= 4)).toBe(true);
  expect(plan(7, true).map((f) => f.kind)).toContain('kill_temporal_postgres');
  const full = plan(7, false);
  expect(full).toHaveLength(MAX_FAULTS);
  expect(full.filter((f) => f.kind === 'pause_process').every((f) => f.holdS === 30)).toBe(true);
});

test('a full run composes faults: some have a second one of another kind, on another piece, landing while they are in force; a short run has none', () => {
  const full = plan(11, false);
  const overlapped = full.filter((f) => f.overlap);
  expect(overlapped.length).toBeGreaterThan(full.length / 5);
  for (const f of overlapped) {
    const o = f.overlap!;
    expect(o.kind).not.toBe(f.kind);
    if (o.target !== null) expect(o.target).not.toBe(f.target);
    expect(o.n).toBe(100 + f.n);
    expect(o.afterS).toBeGreaterThanOrEqual(0);
    expect(o.afterS).toBeLessThanOrEqual(10);
  }
  expect(plan(11, true).some((f) => f.overlap)).toBe(false);
  // Each round still has every kind once as a first fault: the overlaps come on top, from a stream of their own.
  expect(full.slice(0, FAULT_KINDS.length).map((f) => f.kind).sort()).toEqual([...FAULT_KINDS].sort());
});

test('clock skew moves worker-2 20 to 240 s either way; a build rollover starts at worker-1; both left out where not applicable', () => {
  const full = [1, 2, 3].flatMap((seed) => plan(seed, false)).flatMap((f) => [f, ...(f.overlap ? [f.overlap] : [])]);
  const skews = full.filter((f) => f.kind === 'clock_skew');
  expect(skews.length).toBeGreaterThan(3);
  for (const f of skews) {
    expect(f.target).toBe('worker-2');
    expect(Math.abs(f.skewS!)).toBeGreaterThanOrEqual(SKEW_MIN_S);
    expect(Math.abs(f.skewS!)).toBeLessThanOrEqual(SKEW_MAX_S);
    expect(f.holdS).toBeGreaterThanOrEqual(30);
  }
  expect(new Set(skews.map((f) => Math.sign(f.skewS!)))).toEqual(new Set([1, -1]));
  expect(full.filter((f) => f.kind === 'build_rollover').every((f) => f.target === 'worker-1' && f.holdS >= 30 && f.holdS <= 90)).toBe(true);
  const without = plan(4, true, ['clock_skew', 'build_rollover']).map((f) => f.kind);
  expect(without).not.toContain('clock_skew');
  expect(without).not.toContain('build_rollover');
});

test('live phones end in the fake partner’s behaviour suffixes (late, twice, not at all) or a plain number', () => {
  const rng = new Rng(1);
  const suffixes = new Set(Object.keys(LIVE_PARTY_SUFFIXES).filter((k) => k !== 'plain'));
  for (let i = 0; i < 200; i++) {
    const phone = livePhone(rng);
    expect(phone).toMatch(/^23324[0-9]{7}$/);
    const tail = phone.slice(-4);
    expect(suffixes.has(tail) || Number(tail) >= 5000).toBe(true);
  }
});

test('options: --short defaults to the dev server; a bad seed or duration is a usage error', () => {
  expect(parseChaosOptions(['--short', '--seed', '5'])).toMatchObject({ short: true, seed: 5, temporal: 'dev' });
  expect(parseChaosOptions(['--seed', '5', '--duration', '15m'])).toMatchObject({ short: false, temporal: 'server', durationS: 900 });
  expect(() => parseChaosOptions(['--seed', 'x'])).toThrow(/--seed/);
  expect(() => parseChaosOptions(['--duration', '5'])).toThrow(/--duration/);
  expect(() => parseChaosOptions(['--temporal', 'cloud'])).toThrow(/--temporal/);
});

test('an answer breaks the promise when it is a 500, a 503 without Retry-After, a hang or no answer', () => {
  const base: RequestRecord = { at: 0, source: 'load', method: 'GET', route: '/v1/balances', port: 3000, status: 200, code: null, retryAfter: null, latencyMs: 20, error: null, faults: [], faultKinds: [] };
  expect(judge(base).ok).toBe(true);
  expect(judge({ ...base, status: 503, retryAfter: '2' }).ok).toBe(true);
  expect(judge({ ...base, status: 503 }).ok).toBe(false);
  expect(judge({ ...base, status: 500, code: 'internal_error' }).ok).toBe(false);
  expect(judge({ ...base, status: 504, code: 'partner_timeout' }).ok).toBe(true);
  expect(judge({ ...base, status: 200, latencyMs: 31_000 }).ok).toBe(false);
  expect(judge({ ...base, status: 0, error: 'ECONNRESET' }).ok).toBe(false);
  expect(judge({ ...base, status: 502, code: 'bad_gateway' }).ok).toBe(false);
  expect(judge({ ...base, status: 502, code: 'bad_gateway', faultKinds: ['kill_api'] }).ok).toBe(true);
});

test('issue 46: partner_down and partner_declining hit the MoMo fake in a short run (so failovers show), either fake in a full run', () => {
  const short = plan(32, true).filter((f) => f.kind === 'partner_down' || f.kind === 'partner_declining');
  expect(short.map((f) => [f.kind, f.target, f.holdS]).sort()).toEqual([
    ['partner_declining', 'fake-partner', 10],
    ['partner_down', 'fake-partner', 10],
  ]);
  const full = [1, 2, 3].flatMap((seed) => plan(seed, false)).filter((f) => f.kind === 'partner_down' || f.kind === 'partner_declining');
  expect(new Set(full.map((f) => f.target))).toEqual(new Set(['fake-partner', 'fake-aggregator']));
  expect(full.every((f) => f.holdS >= 20 && f.holdS <= 60)).toBe(true);
});
