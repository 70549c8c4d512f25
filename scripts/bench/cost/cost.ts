/**
 * `npm run bench -- --only cost [--variants deployed,topology] [--n 300] [--concurrency 20] [--profile DIR]`
 *
 * Issue 48, the cost of a charge: on fresh servers per variant (startBenchInfra, with the cost
 * mode's opt-ins: pg_stat_statements in PostgreSQL, a known Prometheus port on the dev server, the
 * worker's --cpu-prof under --profile), a charge phase (N sandbox mobile-money charges of a merchant
 * with one webhook endpoint for every event type, each awaited to `succeeded` and its events at the
 * verifying receiver), a payout phase, the bare "start, returns at once" and "start, one activity"
 * workflows and omes's workflow_with_single_noop_activity (when installed), each measured the same
 * way (scripts/bench/cost/cost-measure.ts): CPU by process, Temporal's and the SDK's counters, SQL
 * statements, and one history of each kind. Markdown (scripts/bench/cost/cost-report.ts) on stdout
 * through the launcher. docs/benchmarks.md "The cost of a charge (issue 48)".
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { freePort } from '../../../src/support/free-port';
import { installRuntime, writeWorkflowBundle } from '../../../workers/workflow-bundle';
import { createBareWorker, runBaselinePhase } from '../shared/baseline';
import type { BenchInfra } from '../shared/bench-infra';
import { newMerchantKey, runChargePhase } from '../shared/charges';
import { detectCompletionMode } from '../shared/completion';
import { historiesOf, workflowsStarted } from './cost-history';
import { measureCost, type CostProbes } from './cost-measure';
import { collectProfiles } from './cost-profiles';
import { monotonicUs, startProfiler } from './cost-profiler';
import { renderCostReport, type CostPhase, type CostVariantReport } from './cost-report';
import { openStatStatements, STAT_STATEMENTS_FLAGS } from './cost-sql';
import { startBenchInfra } from '../shared/infra';
import { sendReport } from '../shared/launcher';
import type { PhaseResult } from '../shared/load';
import { omesInstall, runOmesBaseline } from '../omes/omes';
import { fundForPayouts, runPayoutPhase } from '../shared/payouts';
import { cpuSnapshot } from '../shared/procs';
import { fmt } from '../shared/stats';
import { checkTopologyInstall } from '../shared/topology';
import { parseVariants, type Variant } from '../shared/variants';
import { startWebhookBench } from '../webhooks/webhooks';

const { values: args } = parseArgs({
  options: {
    only: { type: 'string' },
    variants: { type: 'string' },
    n: { type: 'string', short: 'n' },
    concurrency: { type: 'string', short: 'c' },
    profile: { type: 'string' },
    timeout: { type: 'string' },
  },
  allowPositionals: true,
});

function positiveInt(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a positive integer, got "${raw}"`);
  return value;
}

const N = positiveInt('n', args.n ?? process.env.N, 300);
const CONCURRENCY = positiveInt('concurrency', args.concurrency ?? process.env.CONCURRENCY, 20);
const VARIANTS = parseVariants(args.variants ?? process.env.BENCH_VARIANTS ?? 'deployed');
const PROFILE_DIR = args.profile ? path.resolve(args.profile) : undefined;
const TIMEOUT_S = positiveInt('timeout', args.timeout ?? process.env.BENCH_TIMEOUT_S, 2700);
const WARMUP = Math.min(10, N);
const DELIVERY_WAIT_MS = 120_000;
const log = (m: string) => console.error(`bench cost: ${m}`);

/** Stops the variant when its worker died: the figures after that would mean nothing. */
function checkPayments(infra: BenchInfra): void {
  const failure = infra.payments.failure();
  if (failure) throw new Error(failure);
}

function failures(r: PhaseResult): string[] {
  return [...r.create.errors, ...r.completeErrors, ...(r.completed !== r.n ? [`${r.completed}/${r.n} completed`] : [])];
}

/** Machine CPU busy over one second, as a share of every core (other processes' load before a variant). */
async function machineBusy(): Promise<number> {
  const a = cpuSnapshot().machine;
  await new Promise((resolve) => setTimeout(resolve, 1000));
  return (cpuSnapshot().machine - a) / os.cpus().length;
}

/** One delivery workflow of the merchant (workflow id = delivery id), for when visibility cannot list the phase's workflows. */
async function oneDelivery(infra: BenchInfra, merchantId: string): Promise<string | undefined> {
  const rows = await infra.orm.em.getConnection().execute<{ id: string }[]>(`select id from webhook_deliveries where merchant_id = ? order by created_at limit 1`, [merchantId]);
  return rows[0]?.id;
}

async function runVariant(variant: Variant, benchSdkPort: number, report: CostVariantReport): Promise<void> {
  const busy = await machineBusy();
  report.notes.push(`Machine busy in the second before this variant: ${fmt(100 * busy, 0)} % of ${os.cpus().length} cores; load average ${os.loadavg().map((l) => l.toFixed(2)).join(', ')}.`);
  const workerProfileDir = PROFILE_DIR && !variant.topology ? path.join(PROFILE_DIR, `${variant.name}-worker`) : undefined;
  // With profiles, the worker runs a bundle written here (WORKFLOW_BUNDLE_PATH, the same code it would
  // bundle itself), so that the summary can name each workflow-thread frame's module.
  const bundle = workerProfileDir ? path.join(PROFILE_DIR!, `${variant.name}-workflow-bundle.js`) : undefined;
  if (bundle) await writeWorkflowBundle(bundle);
  const infra = await startBenchInfra(variant, log, {
    postgresFlags: STAT_STATEMENTS_FLAGS,
    temporalMetrics: true,
    ...(workerProfileDir ? { workerEnv: { NODE_OPTIONS: [process.env.NODE_OPTIONS, '--cpu-prof', `--cpu-prof-dir=${workerProfileDir}`].filter(Boolean).join(' '), WORKFLOW_BUNDLE_PATH: bundle } } : {}),
    topologyEnv: { TOPOLOGY_PG_STAT_STATEMENTS: '1' },
  });
  stopCurrent = () => infra.stop();
  const sql = await openStatStatements(infra.postgresAdminUrls ?? {});
  const probes: CostProbes = { infra, sdkPorts: [...(infra.payments.metricsPorts ?? []), benchSdkPort], sql };
  let chargeWindowUs: [number, number] | undefined;
  const cpuMsPerCharge = { bench: NaN, worker: NaN };
  try {
    report.notes.push(
      `Temporal counters from ${infra.temporalMetricsPort ? `the server's /metrics on port ${infra.temporalMetricsPort}` : 'nowhere (no listener)'}; SDK counters from ${probes.sdkPorts.length} listener(s) (${infra.payments.metricsPorts?.length ?? 0} of the payments worker process(es), 1 of the bench process, which runs the bare worker); pg_stat_statements on ${Object.keys(infra.postgresAdminUrls ?? {}).join(', ') || 'no server'}.`,
    );
    const client = infra.temporal.client;

    // Completion: result() of the charge workflow when it ends with the charge (no GET polling in the API's figures).
    const probe = await newMerchantKey(infra, 'Bench cost probe');
    const first = await runChargePhase(infra, Math.min(3, N), CONCURRENCY, { key: probe.key, name: 'completion probe', referencePrefix: 'bench-cost-probe', completion: 'poll' });
    const completion = await detectCompletionMode(infra, first.create.values);
    report.notes.push(completion.mode === 'result' ? `Charges awaited through result() of their workflow: ${completion.why}.` : `Charges awaited by polling GET /v1/charges/{id} (those GETs are in the API's and PostgreSQL's figures): ${completion.why}.`);

    // 1. Warm-up and 2. the charge phase: a merchant with one endpoint for every event type.
    const webhooks = await startWebhookBench(infra, { completion: completion.mode, waitTimeoutMs: DELIVERY_WAIT_MS, log });
    try {
      await webhooks.warmup(WARMUP, CONCURRENCY);
      const load = await webhooks.load([{ events: [] }]);
      log(`${variant.name}: charge phase: ${N} charges at ${CONCURRENCY}, each awaited and delivered`);
      let profileFile: string | undefined;
      const from = new Date();
      const { value: wh, cost } = await measureCost(probes, async () => {
        // The profiler and the window inside the measured span: the counters' scrapes stay outside.
        const profiler = PROFILE_DIR ? await startProfiler(path.join(PROFILE_DIR, `${variant.name}-bench-charge.cpuprofile`)) : undefined;
        const t0 = monotonicUs();
        await load.charges('charge: POST /v1/charges', N, CONCURRENCY);
        const collected = await load.collect(DELIVERY_WAIT_MS, { stages: false });
        chargeWindowUs = [t0, monotonicUs()];
        profileFile = await profiler?.stop();
        return collected;
      });
      if (profileFile) report.notes.push(`Bench process profile of the charge phase: ${profileFile}.`);
      cpuMsPerCharge.bench = (1000 * cost.cpu.node) / Math.max(1, wh.charges.completed);
      cpuMsPerCharge.worker = (1000 * cost.cpu.worker) / Math.max(1, wh.charges.completed);
      const workflows = await workflowsStarted(client, from, new Date());
      const deliveryId = await oneDelivery(infra, load.merchantId);
      const phase: CostPhase = {
        column: 'charge',
        items: wh.charges.completed,
        result: wh.charges,
        deliveries: { expected: wh.expected, delivered: wh.delivered, wallMs: wh.wallMs, perCharge: wh.charges.completed ? wh.delivered / wh.charges.completed : NaN },
        cost,
        workflows,
        histories: await historiesOf(client, workflows, { charge: wh.charges.create.values[0], ...(deliveryId ? { 'webhook delivery': deliveryId } : {}) }),
      };
      report.phases.push(phase);
      const bad = [...failures(wh.charges), ...(wh.missing ? [`${wh.missing} deliveries missing`] : []), ...(wh.badSignatures ? [`${wh.badSignatures} bad signatures`] : [])];
      if (bad.length) report.notes.push(`Charge phase problems: ${bad.slice(0, 3).join('; ')}.`);
      checkPayments(infra);
      log(`${variant.name}: charges: ${wh.charges.completed}/${N} succeeded, ${wh.delivered}/${wh.expected} deliveries, ${fmt(cost.wallMs / 1000, 1)} s`);
    } finally {
      await webhooks.close();
    }

    // 3. Payouts: a funded merchant, as run.ts's payout phase.
    const payer = await newMerchantKey(infra, 'Bench cost payouts');
    await fundForPayouts(infra, payer.id, WARMUP + N);
    await runPayoutPhase(infra, WARMUP, CONCURRENCY, { key: payer.key, name: 'payout warm-up', referencePrefix: 'bench-cost-payout-warm' });
    log(`${variant.name}: payout phase: ${N} payouts`);
    const payoutsFrom = new Date();
    const payouts = await measureCost(probes, () => runPayoutPhase(infra, N, CONCURRENCY, { key: payer.key, name: 'payout: POST /v1/payouts', referencePrefix: 'bench-cost-payout' }));
    const payoutWorkflows = await workflowsStarted(client, payoutsFrom, new Date());
    report.phases.push({ column: 'payout', items: payouts.value.completed, result: payouts.value, cost: payouts.cost, workflows: payoutWorkflows, histories: await historiesOf(client, payoutWorkflows, { payout: payouts.value.create.values[0] }) });
    if (failures(payouts.value).length) report.notes.push(`Payout phase problems: ${failures(payouts.value).slice(0, 3).join('; ')}.`);
    checkPayments(infra);

    // 4. Bare workflows on the same server: the bare worker in this process, its own task queue.
    const bare = await createBareWorker(infra);
    await bare.run();
    try {
      await runBaselinePhase(infra, bare, 'start', WARMUP, CONCURRENCY, 0);
      for (const kind of ['start', 'start-activity'] as const) {
        log(`${variant.name}: bare ${kind}: ${N} workflows`);
        const bareFrom = new Date();
        const m = await measureCost(probes, () => runBaselinePhase(infra, bare, kind, N, CONCURRENCY, 0));
        const workflows = await workflowsStarted(client, bareFrom, new Date());
        report.phases.push({ column: kind === 'start' ? 'bare-start' : 'bare-activity', items: m.value.completed, result: m.value, cost: m.cost, workflows, histories: await historiesOf(client, workflows, { [m.value.name]: m.value.create.values[0] }) });
        if (failures(m.value).length) report.notes.push(`${m.value.name} problems: ${failures(m.value).slice(0, 3).join('; ')}.`);
      }
    } finally {
      await bare.stop();
    }

    let omesReady = true;
    try {
      omesInstall();
    } catch (error) {
      omesReady = false;
      report.skipped.push(error instanceof Error ? error.message : String(error));
    }
    if (omesReady) {
      log(`${variant.name}: omes: ${N} iterations`);
      const omesFrom = new Date();
      const o = await measureCost(probes, () => runOmesBaseline({ temporalAddress: infra.temporalAddress, namespace: infra.config.temporalNamespace, iterations: N, maxConcurrent: CONCURRENCY, log }));
      const workflows = await workflowsStarted(client, omesFrom, new Date());
      report.phases.push({ column: 'omes', items: o.value.iterations, omes: { iterations: o.value.iterations, wallS: o.value.wallS, perS: o.value.workflowsPerSecond }, cost: o.cost, workflows, histories: await historiesOf(client, workflows, {}) });
      report.notes.push(`omes: its worker (a process of its own) is in "other"; its warm-up iteration, worker start and stop are inside the phase's CPU; ${o.value.failed} failed.`);
    }
  } finally {
    await sql.close();
    log(`${variant.name}: stopping its servers`);
    await infra.stop();
    stopCurrent = undefined;
  }
  if (PROFILE_DIR) report.profiles.push(...collectProfiles({ dir: PROFILE_DIR, variant: variant.name, workerDir: workerProfileDir, bundle, chargeWindowUs, cpuMsPerCharge }));
}


const reports: CostVariantReport[] = [];
/** Stops the variant under way (a timeout or a signal). */
let stopCurrent: (() => Promise<void>) | undefined;
const header = [
  `N=${N} per phase, CONCURRENCY=${CONCURRENCY}; per variant first ${Math.min(3, N)} charges to see how to await them, then a warm-up of ${WARMUP} charges (with the endpoint), ${WARMUP} payouts and ${WARMUP} bare starts; variants ${VARIANTS.map((v) => v.name).join(', ')}, each on fresh servers; ${os.cpus().length} cores, load average ${os.loadavg().map((l) => l.toFixed(2)).join(', ')} at the start.`,
  'CPU from /proc (scripts/bench/shared/procs.ts) between the first request of a phase and its last completion (for charges: the last delivery at the receiver), divided by the items completed. Nothing is subtracted: the bench process\'s column holds what runs in it. "other" is the machine\'s busy CPU outside the named processes (the kernel, other processes on the machine): the quieter the machine, the nearer to 0. Figures, not assertions.',
];
const footer: string[] = [];

async function main(): Promise<number> {
  const benchSdkPort = await freePort();
  installRuntime(undefined, `127.0.0.1:${benchSdkPort}`);
  if (VARIANTS.some((v) => v.topology)) checkTopologyInstall();
  if (PROFILE_DIR) fs.mkdirSync(PROFILE_DIR, { recursive: true });
  log(`N=${N} CONCURRENCY=${CONCURRENCY} variants=${VARIANTS.map((v) => v.name).join(',')}${PROFILE_DIR ? ` profiles in ${PROFILE_DIR}` : ''}`);
  let failed = false;
  for (const variant of VARIANTS) {
    const report: CostVariantReport = { name: variant.name, title: variant.title, topology: !!variant.topology, notes: [], phases: [], skipped: [], profiles: [] };
    reports.push(report);
    try {
      await runVariant(variant, benchSdkPort, report);
    } catch (error) {
      failed = true;
      report.failure = error instanceof Error ? error.message : String(error);
      log(`${variant.name}: failed: ${report.failure}`);
    }
    if (report.phases.some((p) => p.result && failures(p.result).length > 0)) failed = true;
  }
  await sendReport(renderCostReport(header, reports, footer));
  return failed ? 1 : 0;
}

let aborting = false;
function abort(why: string): void {
  if (aborting) return;
  aborting = true;
  log(`${why}; stopping`);
  setTimeout(() => process.exit(3), 30_000).unref();
  void (stopCurrent?.() ?? Promise.resolve())
    .catch(() => undefined)
    .then(() => sendReport(renderCostReport(header, reports, [...footer, `**Stopped early: ${why}.** The variant under way shows the phases it finished.`])))
    .finally(() => process.exit(2));
}
setTimeout(() => abort(`over --timeout ${TIMEOUT_S} s`), TIMEOUT_S * 1000).unref();
process.on('SIGINT', () => abort('interrupted'));
process.on('SIGTERM', () => abort('terminated'));

main()
  .then((code) => process.exit(code))
  .catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
