/**
 * `npm run bench -- --only inflight [--variants deployed,topology] [--charges 100000] [--payouts 10000]
 *   [--concurrency 20] [--create-rate R] [--decision approve|reject] [--charge-expiry HOURS] [--hold 120] [--probe-rate 8]
 *   [--before 60] [--sample 10] [--timeout 10800]`
 *
 * Issue 34, "100,000 payments in flight": on fresh servers per variant (`deployed` = `npm start`'s,
 * `topology` = `npm run topology`'s), a merchant creates `charges` sandbox charges with
 * `sandbox_outcome: pending` (each waits on its ten-minute timer, then fails with `timeout`) and
 * `payouts` payouts held for review (funded first), through the API at `concurrency`. Meanwhile a
 * second merchant probes the API open loop (`probe-rate` requests a second: create, read, balances,
 * list, in turn), so the p99 of each window (warm-up, before, creating, catching up, in flight,
 * resolving, approving) is what a merchant sees. "catching up" runs from the last create until the
 * workers' tasks no longer wait (waitForCatchUp); "in flight", the goal's window, is the payments
 * waiting on their timers after that. Sampled every `sample` seconds: worker RSS, the SDK's sticky cache (size,
 * forced evictions), disk of Temporal's store and the service's PostgreSQL, load. CPU by process per
 * window. Once every charge ended, the payouts are approved through the operator's audited path
 * (decidePayout, as `npm run cli -- payouts approve`; `--decision reject` rejects them instead, which
 * ends each with less work) and awaited. `--create-rate R` paces the creates open loop at R a second
 * (at most `concurrency` in flight) instead of the closed loop; `--charges 0` holds payouts only, for
 * `--hold` seconds once caught up. `--charge-expiry H` makes the charges bank charges on the hosted
 * checkout, `expires_at` H hours away (issue 48): they wait for their customers, not a timer, for
 * `--hold` seconds once caught up; then every customer declines on the checkout page (the web port,
 * the charge's `action.url`) and each ends `failed/declined`. Then "nothing lost" is checked
 * (scripts/bench/inflight/inflight-checks.ts) and `ledger check` run. Markdown on stdout (via the launcher);
 * omes (`workflow_with_single_noop_activity`, its TypeScript worker; scripts/bench/omes/omes.ts) runs on
 * the same server before the load and after it: the baseline the rates are divided by, and what the
 * load left behind (`--no-omes` leaves both out).
 * Exit 1 if a create failed or anything was lost; missed goals are reported, not asserted.
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { PENDING_TIMEOUT_MS } from '../../../src/domain/sandbox-outcome';
import { decidePayout } from '../../../src/services/decide-payout';
import { randomBase62 } from '../../../src/support/new-id';
import { installRuntime } from '../../../workers/workflow-bundle';
import { chargeBody, newMerchantKey } from '../shared/charges';
import { checkNothingLost, openCharges, openPayouts } from './inflight-checks';
import { startProbe } from './inflight-probe';
import { renderInflight, type InflightReport, type WindowCpu } from './inflight-report';
import { caughtUp, scheduleToStart, startSampler } from './inflight-sampler';
import { startBenchInfra, type BenchInfra } from '../shared/infra';
import { OMES_SCENARIO, omesInstall, runOmesBaseline } from '../omes/omes';
import type { ReportMessage } from '../shared/launcher';
import { runBounded } from '../shared/load';
import { fundForPayouts, PAYOUT_AMOUNT } from '../shared/payouts';
import { cpuTarget } from '../shared/payments';
import { cpuDelta, cpuSnapshot, treeCpuSeconds, type CpuSnapshot } from '../shared/procs';
import { checkTopologyInstall } from '../shared/topology';
import { fmt } from '../shared/stats';
import { parseVariants } from '../shared/variants';

const { values: args } = parseArgs({
  options: {
    only: { type: 'string' },
    variants: { type: 'string' },
    charges: { type: 'string' },
    payouts: { type: 'string' },
    concurrency: { type: 'string', short: 'c' },
    'create-rate': { type: 'string' },
    decision: { type: 'string' },
    hold: { type: 'string' },
    'charge-expiry': { type: 'string' },
    'probe-rate': { type: 'string' },
    before: { type: 'string' },
    sample: { type: 'string' },
    timeout: { type: 'string' },
    'omes-iterations': { type: 'string' },
    'no-omes': { type: 'boolean' },
  },
  allowPositionals: true,
});
const int = (name: string, raw: string | undefined, fallback: number, min = 1) => {
  const value = raw === undefined ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < min) throw new Error(`--${name} must be an integer of at least ${min}, got "${raw}"`);
  return value;
};
const CHARGES = int('charges', args.charges, 100_000, 0);
const PAYOUTS = int('payouts', args.payouts, 10_000, 0);
/** Creates a second, paced open loop; undefined: the closed loop at CONCURRENCY. */
const CREATE_RATE = args['create-rate'] === undefined ? undefined : int('create-rate', args['create-rate'], 0);
const DECISION = (args.decision ?? 'approve') as 'approve' | 'reject';
if (DECISION !== 'approve' && DECISION !== 'reject') throw new Error(`--decision must be approve or reject, got "${String(DECISION)}"`);
/** Hours to each charge's `expires_at`: hosted-checkout charges that wait for their customers; undefined: `pending` charges on their ten-minute timer. */
const CHARGE_EXPIRY_H = args['charge-expiry'] === undefined ? undefined : int('charge-expiry', args['charge-expiry'], 24);
if (CHARGE_EXPIRY_H !== undefined && CHARGE_EXPIRY_H > 24) throw new Error('--charge-expiry is at most 24 (hours): a charge expires within a day of its create');
/** With nothing on a timer (payouts only, or charges waiting for their customers): how long "in flight" lasts once the workers caught up. */
const HOLD_S = int('hold', args.hold, 120);
const CONCURRENCY = int('concurrency', args.concurrency, 20);
const PROBE_RATE = int('probe-rate', args['probe-rate'], 8);
const BEFORE_S = int('before', args.before, 60);
const SAMPLE_S = int('sample', args.sample, 10);
const TIMEOUT_S = int('timeout', args.timeout, 3 * 3600);
/** omes's baseline on the same server after the load (scripts/bench/omes/omes.ts); `--no-omes` leaves it out, and the report says so. */
const OMES_ITERATIONS = int('omes-iterations', args['omes-iterations'], 1000);
const NO_OMES = args['no-omes'] === true;
/** Not counted: the probe's first seconds. */
const WARMUP_S = 30;
/** Caught up: the workers' tasks wait at most this long, on average, from schedule to start. */
const CAUGHT_UP_MS = 100;
const CATCH_UP_POLL_MS = 5000;
const VARIANTS = parseVariants(args.variants ?? 'deployed,topology');
const MTN_GH = '3f9c2b1e-8a4d-4c6e-9b7a-1d2e3f4a5b01';
const log = (m: string) => console.error(`bench inflight: ${m}`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function body(kind: 'charge' | 'payout', i: number): string {
  if (kind === 'charge' && CHARGE_EXPIRY_H !== undefined) {
    // A bank charge without sandbox_outcome: on the hosted checkout until its customer decides or expires_at.
    const expiresAt = new Date(Date.now() + CHARGE_EXPIRY_H * 3_600_000 - 60_000).toISOString();
    return JSON.stringify({ amount: 15000, currency: 'GHS', channel: 'bank', customer: { identifier: 'GH0012345678', name: 'Esi Owusu' }, reference: `inflight-charge-${i}`, expires_at: expiresAt, metadata: {} });
  }
  if (kind === 'charge') return chargeBody(`inflight-charge-${i}`, { metadata: { sandbox_outcome: 'pending' } });
  return JSON.stringify({ currency: 'GHS', channel: 'mobile_money', momo_network_id: MTN_GH, reference: `inflight-payout-${i}`, amount: PAYOUT_AMOUNT, recipient: { identifier: '233241234567', name: 'Kofi Boateng' }, metadata: { sandbox_outcome: 'held_for_review' } });
}

/** POSTs `n` charges or payouts at CONCURRENCY; each must answer 200 with `want` as its status. */
async function create(infra: BenchInfra, key: string, kind: 'charge' | 'payout', n: number, want: readonly string[]) {
  const pool = new Pool(infra.apiUrl, { connections: CONCURRENCY, pipelining: 1 });
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  let done = 0;
  const t0 = performance.now();
  try {
    return await runBounded(n, CONCURRENCY, async (i) => {
      const res = await pool.request({ path: `/v1/${kind}s`, method: 'POST', headers: { ...headers, 'idempotency-key': `inflight-${randomBase62(20)}` }, body: body(kind, i) });
      const text = await res.body.text();
      if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}: ${text.slice(0, 200)}`);
      const created = JSON.parse(text) as { id: string; status: string; action?: { url?: string } | null };
      if (!want.includes(created.status)) throw new Error(`${kind} created as ${created.status}`);
      if (++done % 5000 === 0) log(`${infra.variant.name}: ${done}/${n} ${kind}s created (${((done * 1000) / (performance.now() - t0)).toFixed(1)}/s)`);
      return { id: created.id, checkoutUrl: created.action?.url };
    }, CREATE_RATE ? 1000 / CREATE_RATE : 0);
  } finally {
    await pool.close();
  }
}

/** Every checkout charge's customer declines on its page (POST action.url, decision=decline), at CONCURRENCY, until `deadline`. */
async function customersDecline(urls: Array<string | undefined>, deadline: number): Promise<{ declined: number; errorCount: number; errors: string[]; wallS: number; latencies: number[] }> {
  const done = await runBounded(urls.length, CONCURRENCY, async (i) => {
    const url = urls[i];
    if (!url) throw new Error('the create answered no action.url');
    if (performance.now() > deadline) throw new Error('the bench timeout (--timeout) passed before this customer decided');
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'decision=decline', redirect: 'manual' });
    await res.text();
    if (res.status !== 200) throw new Error(`checkout answered ${res.status}`);
    return i;
  });
  return { declined: done.values.length, errorCount: done.errors.length, errors: done.errors.slice(0, 5), wallS: done.wallMs / 1000, latencies: done.latenciesMs };
}

/** Polls the workers' schedule-to-start until two intervals in a row are caught up, or `untilMs` (performance.now()) passes. */
async function waitForCatchUp(ports: number[], untilMs: number): Promise<{ caughtUp: boolean; seconds: number; readings: number }> {
  const t0 = performance.now();
  if (ports.length === 0) return { caughtUp: false, seconds: 0, readings: 0 };
  let last = await scheduleToStart(ports);
  let inARow = 0;
  let readings = 0;
  while (inARow < 2 && performance.now() < untilMs) {
    await sleep(CATCH_UP_POLL_MS);
    const now = await scheduleToStart(ports);
    readings++;
    inARow = caughtUp(last, now, CAUGHT_UP_MS) ? inARow + 1 : 0;
    last = now;
  }
  return { caughtUp: inARow >= 2, seconds: (performance.now() - t0) / 1000, readings };
}

/** The servers of the variant under way, stopped on Ctrl-C or SIGTERM before the process exits (code 2). */
let current: BenchInfra | undefined;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    log(`${signal}: stopping the servers`);
    const forced = setTimeout(() => process.exit(3), 60_000);
    forced.unref();
    void (current?.stop() ?? Promise.resolve()).finally(() => process.exit(2));
  });
}

async function runVariant(variantName: string): Promise<InflightReport> {
  const variant = VARIANTS.find((v) => v.name === variantName)!;
  const infra = await startBenchInfra(variant, log);
  current = infra;
  const report: InflightReport = { variant: variant.title, name: variant.name, charges: CHARGES, payouts: PAYOUTS, concurrency: CONCURRENCY, createRate: CREATE_RATE, decision: DECISION, chargeExpiryH: CHARGE_EXPIRY_H, probeRate: PROBE_RATE, windows: [], samples: [], problems: [], notes: [], loadBefore: os.loadavg() };
  const cpuWindows: WindowCpu[] = [];
  let mark: { name: string; cpu: CpuSnapshot; named: Record<string, number>; at: number } | undefined;
  const target = () => cpuTarget(infra.payments);
  const omes = () => {
    log(`${variant.name}: omes ${OMES_SCENARIO}, ${OMES_ITERATIONS} iterations at ${CONCURRENCY} in flight, on the same server`);
    return runOmesBaseline({ temporalAddress: infra.temporalAddress, namespace: infra.config.temporalNamespace, iterations: OMES_ITERATIONS, maxConcurrent: CONCURRENCY, log: (l) => log(`${variant.name}: omes: ${l}`) });
  };
  if (!NO_OMES) report.omesBefore = await omes();
  const probeMerchant = await newMerchantKey(infra, 'Inflight probe');
  const loadMerchant = await newMerchantKey(infra, 'Inflight load');
  await fundForPayouts(infra, loadMerchant.id, PAYOUTS);
  // The probe's charge to read back: one completed charge of its own.
  const seed = await fetch(`${infra.apiUrl}/v1/charges`, {
    method: 'POST',
    headers: { authorization: `Bearer ${probeMerchant.key}`, 'content-type': 'application/json', 'idempotency-key': `seed-${randomBase62(16)}` },
    body: chargeBody('probe-seed', { amount: 1000 }),
  });
  const seedCharge = (await seed.json()) as { id: string };
  const workerPids = () => {
    const t = target();
    return typeof t === 'object' ? t.worker : t !== undefined ? [t] : [process.pid];
  };
  if (!infra.payments.metricsPorts?.length) report.notes.push('the worker runs in the bench process without its own metrics listener: no sticky cache figures');
  const t0 = performance.now();
  const sampler = startSampler(
    { workerPids, metricsPorts: infra.payments.metricsPorts ?? [], apiMetricsPorts: infra.payments.apiMetricsPorts, temporalMetricsPort: infra.payments.temporalMetricsPort, cpuTarget: target, disk: infra.disk ?? { temporal: [], postgres: [] } },
    SAMPLE_S * 1000,
    t0,
  );
  const probe = startProbe({ apiUrl: infra.apiUrl, key: probeMerchant.key, rate: PROBE_RATE, chargeId: seedCharge.id, originMs: t0 });
  const window = (name: string) => {
    const now = { name, cpu: cpuSnapshot(target()), named: treeCpuSeconds(infra.payments.namedTrees?.() ?? {}), at: performance.now() };
    if (mark) {
      const from = mark.named;
      const named = Object.fromEntries(Object.entries(now.named).map(([k, v]) => [k, v - (from[k] ?? NaN)]));
      cpuWindows.push({ name: mark.name, fromS: (mark.at - t0) / 1000, seconds: (now.at - mark.at) / 1000, cpu: cpuDelta(mark.cpu, now.cpu), named });
    }
    mark = now;
    probe.setWindow(name);
    log(`${variant.name}: window "${name}" at ${((now.at - t0) / 1000).toFixed(0)} s`);
  };
  const failed = () => infra.payments.failure();
  try {
    // The probe's first requests open connections and warm the APIs' code paths: not counted in "before".
    window('warm-up');
    await sleep(WARMUP_S * 1000);
    window('before');
    await sleep(BEFORE_S * 1000);
    window('creating');
    // Payouts first: they wait for a decision however long the charges take, so once the last charge
    // is created everything is in flight together until the first charge's timer is due.
    const payouts = await create(infra, loadMerchant.key, 'payout', PAYOUTS, ['held_for_review']);
    const createStart = performance.now();
    const charges = await create(infra, loadMerchant.key, 'charge', CHARGES, ['pending', 'awaiting_action']);
    const chargesDone = performance.now();
    if (CHARGE_EXPIRY_H === undefined && chargesDone > createStart + PENDING_TIMEOUT_MS) report.notes.push(`creating the charges took ${((chargesDone - createStart) / 1000).toFixed(0)} s, longer than their ten-minute timer: the first had ended before the last was created, so they were never all in flight at once (fewer charges, or a faster machine)`);
    report.create = {
      charges: { ok: charges.values.length, errors: charges.errors.slice(0, 5), errorCount: charges.errors.length, wallS: charges.wallMs / 1000, latencies: charges.latenciesMs },
      payouts: { ok: payouts.values.length, errors: payouts.errors.slice(0, 5), errorCount: payouts.errors.length, wallS: payouts.wallMs / 1000, latencies: payouts.latenciesMs },
    };
    if (charges.errors.length || payouts.errors.length) report.problems.push(`creates failed: ${charges.errors.length} charges, ${payouts.errors.length} payouts (first: ${[...charges.errors, ...payouts.errors][0]})`);
    // Every charge's timer is due PENDING_TIMEOUT_MS after its create; the first ones fire at firstDue.
    const firstDue = createStart + PENDING_TIMEOUT_MS;
    const lastDue = chargesDone + PENDING_TIMEOUT_MS;
    // The workers are still working through the creates' first tasks when the last create answers
    // (closed-loop creates outpace them): "catching up" lasts until the tasks they start wait no more
    // than CAUGHT_UP_MS from schedule to start, twice running; then "in flight" is the payments
    // waiting on their timers, and only that.
    // Charges on a timer bound the catching up and the hold; payouts and checkout charges wait for a person.
    const timed = CHARGE_EXPIRY_H === undefined && charges.values.length > 0;
    const deadline = t0 + TIMEOUT_S * 1000;
    window('catching up');
    report.catchUp = await waitForCatchUp(infra.payments.metricsPorts ?? [], timed ? firstDue - 60_000 : deadline);
    if (!report.catchUp.caughtUp) report.notes.push(`the workers had not caught up a minute before the first timer was due (${fmt(report.catchUp.seconds, 0)} s after the last create): "in flight" includes their backlog`);
    window('in flight');
    report.inFlight = { charges: await openCharges(infra.orm, loadMerchant.id), payouts: await openPayouts(infra.orm, loadMerchant.id) };
    // Until the first charge's timer is due; with nothing on a timer, HOLD_S.
    const holdUntil = timed ? firstDue - 5000 : performance.now() + HOLD_S * 1000;
    while (performance.now() < holdUntil) {
      if (failed()) throw new Error(failed());
      await sleep(Math.min(5000, holdUntil - performance.now()));
    }
    window('resolving');
    const resolvingStart = performance.now();
    if (!timed && charges.values.length) report.customers = await customersDecline(charges.values.map((c) => c.checkoutUrl), deadline);
    let open = Infinity;
    while (open > 0 && performance.now() < deadline) {
      await sleep(5000);
      if (failed()) throw new Error(failed());
      open = await openCharges(infra.orm, loadMerchant.id);
    }
    const resolved = performance.now();
    // Timed charges: from their first and last due times; checkout charges: from the first customer's decline.
    report.resolve = timed ? { afterFirstDueS: (resolved - firstDue) / 1000, afterLastDueS: (resolved - lastDue) / 1000, open } : { afterFirstDueS: (resolved - resolvingStart) / 1000, afterLastDueS: NaN, open };
    if (open > 0) report.problems.push(`${open} charges still in flight at the bench's timeout`);
    window(DECISION === 'approve' ? 'approving' : 'rejecting');
    const approveStart = performance.now();
    // Past the bench's deadline no more decisions are sent: the ones left are counted as not decided.
    const decided = await runBounded(payouts.values.length, CONCURRENCY, async (i) => {
      if (performance.now() > deadline) throw new Error('the bench timeout (--timeout) passed before this decision');
      return decidePayout(infra.orm, infra.temporal, payouts.values[i].id, DECISION, 'in-flight bench', 30_000, 'bench');
    });
    if (decided.errors.length) report.problems.push(`${decided.errors.length} payout decisions (${DECISION}) failed (first: ${decided.errors[0]})`);
    let openP = Infinity;
    while (openP > 0 && performance.now() < deadline) {
      await sleep(2000);
      openP = await openPayouts(infra.orm, loadMerchant.id);
    }
    report.approve = { decision: DECISION, wallS: (performance.now() - approveStart) / 1000, decided: decided.values.length, open: openP, latencies: decided.latenciesMs };
    window('after');
    await sleep(Math.min(BEFORE_S, 30) * 1000);
    window('end');
    await probe.stop();
    await sampler.stop();
    if (NO_OMES) report.notes.push('omes not run (--no-omes): no baseline divisor');
    else report.omes = await omes();
    const lost = await checkNothingLost(infra.orm, loadMerchant.id, charges.values.length, payouts.values.length, DECISION, CHARGE_EXPIRY_H === undefined ? 'timeout' : 'declined');
    report.problems.push(...lost.problems);
    report.counts = lost.counts;
    report.ledger = lost.ledger;
    if (failed()) report.problems.push(failed()!);
  } catch (error) {
    report.problems.push(`stopped: ${error instanceof Error ? error.message : String(error)}`);
    await probe.stop().catch(() => undefined);
    await sampler.stop().catch(() => undefined);
  } finally {
    report.windows = cpuWindows;
    report.probe = probe.samples;
    report.samples = sampler.samples;
    report.loadAfter = os.loadavg();
    current = undefined;
    await infra.stop();
  }
  return report;
}

async function main() {
  installRuntime();
  if (VARIANTS.some((v) => v.topology)) checkTopologyInstall();
  if (!NO_OMES) omesInstall();
  log(`charges=${CHARGES}${CHARGE_EXPIRY_H === undefined ? ' (pending)' : ` (checkout, expiring in ${CHARGE_EXPIRY_H} h)`} payouts=${PAYOUTS} concurrency=${CONCURRENCY} create-rate=${CREATE_RATE ?? 'closed loop'} decision=${DECISION} probe=${PROBE_RATE}/s variants=${VARIANTS.map((v) => v.name).join(',')}`);
  const reports: InflightReport[] = [];
  for (const v of VARIANTS) reports.push(await runVariant(v.name));
  const markdown = renderInflight(reports, { command: process.argv.slice(2).join(' '), cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model ?? '', memGiB: os.totalmem() / 2 ** 30, node: process.version });
  const code = reports.some((r) => r.problems.length) ? 1 : 0;
  // The Temporal runtime keeps the process alive: exit once the report is out.
  if (process.send) process.send({ report: markdown } satisfies ReportMessage, () => process.exit(code));
  else process.stdout.write(`${markdown}\n`, () => process.exit(code));
}

void main().catch((error) => {
  console.error(`bench inflight: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
