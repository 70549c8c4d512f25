/**
 * Issue 46, against the suite's real PostgreSQL: every call to a partner measured (MeasuredRail
 * around a stub PartnerRail, the input of the thing under test, written by PartnerCallLog), the
 * breaker evaluator opening and closing a breaker from the recorded calls, a half-open breaker's probe
 * claimed once by two callers at once, and `routing status|drain|resume` end to end with their audit
 * rows. The tables are global: the file puts both breakers back closed and deletes its calls at the end.
 */
import type { PartnerCallOutcome } from '../../src/domain/partner-health';
import { DEFAULT_BREAKER_SETTINGS } from '../../src/domain/partner-health';
import type { PartnerName } from '../../src/domain/rail-routes';
import { openOrm, type Orm } from '../../src/persistence/orm';
import { evaluatePartnerBreakers } from '../../src/persistence/partner/partner-breaker-evaluation';
import { partnerAdmits, partnerStates } from '../../src/persistence/partner/partner-breaker-store';
import { insertPartnerCalls, PartnerCallLog } from '../../src/persistence/partner/partner-call-store';
import { drainPartner } from '../../src/persistence/partner/partner-drain';
import { partnerHealthWindow, prunePartnerCalls } from '../../src/persistence/partner/partner-health-store';
import { MeasuredRail } from '../../src/rail/measured-rail';
import { RailUnavailable, type PartnerRail, type RailRequest, type RailSubmitResult } from '../../src/rail/partner-rail';
import { ok, refused } from '../support/cli-results';
import { cliEnv, execCli } from '../support/run-cli';

let orm: Orm;
const S = DEFAULT_BREAKER_SETTINGS;

const sql = <T extends object>(query: string, params: unknown[] = []) => orm.em.getConnection().execute<T[]>(query, params);

async function reset(): Promise<void> {
  await sql(`delete from partner_calls`);
  await sql(`delete from partner_breaker_changes`);
  await sql(`update partner_breakers set state = 'closed', since = now(), reason = null, probe_at = null, drained_by = null, drained_reason = null`);
}

beforeAll(async () => {
  orm = await openOrm(process.env.TEST_DATABASE_URL!, 4);
});
beforeEach(reset);
afterAll(async () => {
  await reset();
  await orm?.close();
});

const request: RailRequest = {
  referenceId: '0f6b3c2e-6d2a-4a53-9b0e-7f1d2c3b4a51',
  amount: 1000,
  currency: 'GHS',
  externalId: 'txn_test',
  party: { partyIdType: 'MSISDN', partyId: '233241234567' },
  message: 'test',
};

/** A partner that answers each submission with the next of `script` (a result, or an error to throw). */
function scripted(script: Array<RailSubmitResult | Error>): PartnerRail {
  return {
    async submit() {
      const next = script.shift()!;
      if (next instanceof Error) throw next;
      return next;
    },
    async status() {
      return { status: 'pending' };
    },
  };
}

const calls = (partner: PartnerName, outcome: PartnerCallOutcome, n: number, at: Date) =>
  Array.from({ length: n }, () => ({ partner, call: 'submit' as const, outcome, httpStatus: null, latencyMs: 100, at }));

describe('MeasuredRail', () => {
  test('records each call: answered, refused (final, elsewhere), not reached, 503, timeout; the answer and the error go back unchanged', async () => {
    const warnings: unknown[] = [];
    const log = new PartnerCallLog(orm, { warn: (...args: unknown[]) => warnings.push(args) } as never, 3_600_000);
    const unreachable = new RailUnavailable('POST /collection: ECONNREFUSED', undefined, true);
    const rail = new MeasuredRail(
      'aggregator',
      scripted([
        { kind: 'accepted' },
        { kind: 'refused', reason: 'PAYER_NOT_FOUND', failureClass: 'invalid_recipient' },
        { kind: 'refused', reason: 'SERVICE_DECLINING', failureClass: 'partner_unavailable', retryElsewhere: true },
        unreachable,
        new RailUnavailable('POST /collection: HTTP 503', 503),
        new RailUnavailable('POST /collection: timeout: no complete answer within 5000 ms'),
      ]),
      log,
    );
    expect(await rail.submit('collection', request)).toEqual({ kind: 'accepted' });
    expect((await rail.submit('collection', request)).kind).toBe('refused');
    expect(await rail.submit('collection', request)).toMatchObject({ retryElsewhere: true });
    await expect(rail.submit('collection', request)).rejects.toBe(unreachable);
    await expect(rail.submit('collection', request)).rejects.toMatchObject({ status: 503 });
    await expect(rail.submit('collection', request)).rejects.toThrow(/timeout/);
    expect(await rail.status('collection', request.referenceId)).toEqual({ status: 'pending' });
    await log.close();

    const rows = await sql<{ partner: string; call: string; outcome: string; http_status: number | null; latency_ms: number }>(
      `select partner, call, outcome, http_status, latency_ms from partner_calls order by id`,
    );
    expect(rows.map((r) => [r.partner, r.call, r.outcome, r.http_status])).toEqual([
      ['aggregator', 'submit', 'answered', null],
      ['aggregator', 'submit', 'refused_final', null],
      ['aggregator', 'submit', 'refused_elsewhere', null],
      ['aggregator', 'submit', 'not_reached', null],
      ['aggregator', 'submit', 'server_error', 503],
      ['aggregator', 'submit', 'timeout', null],
      ['aggregator', 'status', 'answered', null],
    ]);
    expect(rows.every((r) => r.latency_ms >= 0)).toBe(true);
    expect(warnings).toEqual([]);

    const health = (await partnerHealthWindow(orm.em.fork(), S.windowMs)).aggregator;
    expect(health).toMatchObject({ calls: 7, successRate: 3 / 7, errorShare: 4 / 7 });
  });

  test('a write that fails is a warning, never the call\'s failure', async () => {
    const warnings: unknown[] = [];
    const log = new PartnerCallLog(orm, { warn: (...args: unknown[]) => warnings.push(args) } as never, 3_600_000);
    // A partner the table refuses (its check): the batch insert fails.
    const rail = new MeasuredRail('nobody' as PartnerName, scripted([{ kind: 'accepted' }]), log);
    expect(await rail.submit('collection', request)).toEqual({ kind: 'accepted' });
    await expect(log.close()).resolves.toBeUndefined();
    expect(warnings).toHaveLength(1);
    expect(await sql(`select 1 from partner_calls`)).toEqual([]);
  });

  test('calls older than a day are pruned', async () => {
    const now = new Date();
    await insertPartnerCalls(orm, [...calls('momo', 'answered', 3, new Date(now.getTime() - 90_000_000)), ...calls('momo', 'answered', 2, now)]);
    expect(await prunePartnerCalls(orm.em.fork(), now)).toBe(3);
    expect(await sql(`select 1 from partner_calls`)).toHaveLength(2);
  });
});

describe('the evaluator', () => {
  const state = async (partner: PartnerName) => (await partnerStates(orm.em.fork())).find((b) => b.partner === partner)!;

  test('opens a breaker at the threshold, half-opens it after the cooldown, closes it on an answered probe; reopens on a failed one', async () => {
    const t0 = new Date();
    const at = (ms: number) => new Date(t0.getTime() + ms);
    // Closed for an hour: the whole window counts.
    await sql(`update partner_breakers set since = ? where partner = 'momo'`, [at(-3_600_000).toISOString()]);
    // 9 calls, all erring: below the minimum, nothing moves.
    await insertPartnerCalls(orm, calls('momo', 'server_error', 9, at(-10_000)));
    expect(await evaluatePartnerBreakers(orm, S, t0)).toEqual([]);
    // The 10th, answered: 9 of 10 erred.
    await insertPartnerCalls(orm, calls('momo', 'answered', 1, at(-5_000)));
    expect(await evaluatePartnerBreakers(orm, S, t0)).toEqual([{ partner: 'momo', from: 'closed', to: 'open', reason: expect.stringContaining('9 of 10 calls erred'), at: t0 }]);
    expect(await partnerAdmits(orm.em.fork(), 'momo')).toBe(false);
    expect(await partnerAdmits(orm.em.fork(), 'aggregator')).toBe(true);

    expect(await evaluatePartnerBreakers(orm, S, at(S.cooldownMs - 1))).toEqual([]);
    expect((await evaluatePartnerBreakers(orm, S, at(S.cooldownMs))).map((t) => t.to)).toEqual(['half_open']);
    // The probe's call is answered: closed, and the errors before it do not open it again.
    await insertPartnerCalls(orm, calls('momo', 'answered', 1, at(S.cooldownMs + 1_000)));
    expect((await evaluatePartnerBreakers(orm, S, at(S.cooldownMs + 2_000))).map((t) => t.to)).toEqual(['closed']);
    expect(await evaluatePartnerBreakers(orm, S, at(S.cooldownMs + 4_000))).toEqual([]);
    expect(await state('momo')).toMatchObject({ state: 'closed' });

    // Again: open, half-open, and a probe that fails opens it again.
    await insertPartnerCalls(orm, calls('momo', 'not_reached', 10, at(S.cooldownMs + 5_000)));
    expect((await evaluatePartnerBreakers(orm, S, at(S.cooldownMs + 6_000))).map((t) => t.to)).toEqual(['open']);
    expect((await evaluatePartnerBreakers(orm, S, at(2 * S.cooldownMs + 6_000))).map((t) => t.to)).toEqual(['half_open']);
    await insertPartnerCalls(orm, calls('momo', 'timeout', 1, at(2 * S.cooldownMs + 7_000)));
    expect((await evaluatePartnerBreakers(orm, S, at(2 * S.cooldownMs + 8_000))).map((t) => t.to)).toEqual(['open']);

    const changes = await sql<{ partner: string; from_state: string; to_state: string }>(`select partner, from_state, to_state from partner_breaker_changes order by id`);
    expect(changes.map((c) => `${c.partner}:${c.from_state}>${c.to_state}`)).toEqual([
      'momo:closed>open',
      'momo:open>half_open',
      'momo:half_open>closed',
      'momo:closed>open',
      'momo:open>half_open',
      'momo:half_open>open',
    ]);
  });

  test('a drained breaker is left alone, whatever the calls say', async () => {
    await drainPartner(orm, 'aggregator', { operator: 'test@ops', reason: 'maintenance window', requestId: 'request_drain_test' });
    await insertPartnerCalls(orm, calls('aggregator', 'server_error', 20, new Date()));
    expect(await evaluatePartnerBreakers(orm, S, new Date())).toEqual([]);
    expect(await state('aggregator')).toMatchObject({ state: 'drained', drained_by: 'test@ops', drained_reason: expect.stringContaining('maintenance window') });
    expect(await partnerAdmits(orm.em.fork(), 'aggregator')).toBe(false);
  });

  test('two workers evaluating at once agree: one change, one history row', async () => {
    await insertPartnerCalls(orm, calls('aggregator', 'timeout', 10, new Date()));
    const now = new Date();
    const [a, b] = await Promise.all([evaluatePartnerBreakers(orm, S, now), evaluatePartnerBreakers(orm, S, now)]);
    expect([...a, ...b].map((t) => `${t.partner}:${t.to}`)).toEqual(['aggregator:open']);
    expect(await sql(`select 1 from partner_breaker_changes`)).toHaveLength(1);
  });
});

describe('a half-open breaker', () => {
  const halfOpen = (partner: PartnerName) => sql(`update partner_breakers set state = 'half_open', since = now(), probe_at = null where partner = ?`, [partner]);

  test('admits one probe of two callers at once', async () => {
    await halfOpen('momo');
    const answers = await Promise.all([0, 1].map(() => orm.em.fork().transactional((em) => partnerAdmits(em, 'momo'))));
    expect(answers.sort()).toEqual([false, true]);
    // And no other until PROBE_INTERVAL_MS has passed.
    expect(await partnerAdmits(orm.em.fork(), 'momo')).toBe(false);
    await sql(`update partner_breakers set probe_at = clock_timestamp() - interval '11 seconds' where partner = 'momo'`);
    expect(await partnerAdmits(orm.em.fork(), 'momo')).toBe(true);
  });

  test('a second caller waits on the first one\'s claim and finds it taken', async () => {
    await halfOpen('aggregator');
    let second: Promise<boolean> | undefined;
    const first = await orm.em.fork().transactional(async (em) => {
      const claimed = await partnerAdmits(em, 'aggregator');
      // The claim is not committed yet: the second caller's update waits on the row.
      second = orm.em.fork().transactional((other) => partnerAdmits(other, 'aggregator'));
      await new Promise((resolve) => setTimeout(resolve, 300));
      return claimed;
    });
    expect(first).toBe(true);
    expect(await second).toBe(false);
  });
});

describe('routing status|drain|resume', () => {
  const cli = (...args: string[]) => execCli(args, cliEnv('partner-breakers-test'));

  test('status as JSON and as a table; drain and resume audited; an unknown partner or a missing reason refused', async () => {
    await insertPartnerCalls(orm, [...calls('momo', 'answered', 3, new Date()), ...calls('momo', 'timeout', 1, new Date())]);
    const status = ok(await cli('routing', 'status', '--json'));
    expect(status).toEqual({
      object: 'list',
      window_ms: S.windowMs,
      data: [
        { partner: 'momo', state: 'closed', since: expect.any(String), reason: null, drained_by: null, calls: 4, success_rate: 0.75, error_share: 0.25, latency_p50_ms: 100, latency_p95_ms: 100 },
        { partner: 'aggregator', state: 'closed', since: expect.any(String), reason: null, drained_by: null, calls: 0, success_rate: null, error_share: null, latency_p50_ms: null, latency_p95_ms: null },
      ],
    });
    const table = await cli('routing', 'status');
    expect(table).toMatchObject({ code: 0, stderr: '' });
    expect(table.stdout).toMatch(/^PARTNER\s+BREAKER\s+SINCE\s+CALLS\s+SUCCESS\s+ERRORS\s+P50\s+P95$/m);
    expect(table.stdout).toMatch(/^momo\s+closed\s+\S+\s+4\s+75\.0%\s+25\.0%\s+100 ms\s+100 ms$/m);

    refused(await cli('routing', 'drain', 'mpesa', '--reason', 'x'), /unknown partner "mpesa": one of momo, aggregator/);
    refused(await cli('routing', 'drain', 'momo'), /--reason is required/);
    refused(await cli('routing', 'resume', 'momo', '--reason', ' '), /--reason is required/);

    const drained = ok(await cli('routing', 'drain', 'momo', '--reason', 'partner maintenance 14:00-15:00', '--operator', 'ops:ama'));
    expect(drained).toMatchObject({ object: 'partner_breaker', partner: 'momo', changed: true, before: { state: 'closed' }, after: { state: 'drained', drained_by: 'ops:ama' }, audit_id: expect.stringMatching(/^aud_/) });
    expect(ok(await cli('routing', 'drain', 'momo', '--reason', 'again', '--operator', 'ops:ama'))).toMatchObject({ changed: false, audit_id: null });
    expect(ok(await cli('routing', 'status', '--json')).data[0]).toMatchObject({ partner: 'momo', state: 'drained', drained_by: 'ops:ama' });
    expect(await partnerAdmits(orm.em.fork(), 'momo')).toBe(false);

    const resumed = ok(await cli('routing', 'resume', 'momo', '--reason', 'maintenance over', '--operator', 'ops:kofi'));
    expect(resumed).toMatchObject({ changed: true, before: { state: 'drained' }, after: { state: 'closed', drained_by: null } });
    expect(await partnerAdmits(orm.em.fork(), 'momo')).toBe(true);

    // This test's own rows (its operators): another file on this jest worker's database may drain momo too (rail-failover).
    const audit = ok(await cli('audit', 'list', '--payment', 'momo'));
    expect(audit.data.filter((r: { operator: string }) => r.operator.startsWith('ops:')).map((r: { action: string; operator: string; reason: string; environment: string; state_before: { state: string }; state_after: { state: string } }) => [r.action, r.operator, r.reason, r.environment, r.state_before.state, r.state_after.state])).toEqual([
      ['partner.resume', 'ops:kofi', 'maintenance over', 'live', 'drained', 'closed'],
      ['partner.drain', 'ops:ama', 'partner maintenance 14:00-15:00', 'live', 'closed', 'drained'],
    ]);
  });
});
