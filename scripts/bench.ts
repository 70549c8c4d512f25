/**
 * npm run bench [-- --n 300 --concurrency 20]   (or N=… CONCURRENCY=… npm run bench)
 *
 * Isolated servers (embedded PostgreSQL in a temp dir, in-memory Temporal dev server, sandbox API on
 * an ephemeral loopback port), then (a) N charges through the API to `succeeded` and (b) N bare
 * workflows of three kinds on the same server, and a Markdown report with the ratios; then, unless
 * --skip-webhooks, (c) N more charges with the outbox relay running and one webhook endpoint on a
 * local receiver (scripts/bench/webhooks.ts). See docs/benchmarks.md.
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { COMPLETION_DELAY_MS } from '../src/domain/sandbox-outcome';
import { randomBase62 } from '../src/support/new-id';
import { createPaymentsWorker, installRuntime } from '../workers/create-worker';
import { createBareWorker, runBaselinePhase, type BaselineKind } from './bench/baseline';
import { runChargePhase } from './bench/charges';
import { startBenchInfra, type BenchInfra } from './bench/infra';
import { cpuDelta, cpuSnapshot, peakRss } from './bench/procs';
import { machineLine, renderReport, type MeasuredPhase } from './bench/report';
import { fmt } from './bench/stats';
import { runWebhookPhase, webhookPhaseFailed, type WebhookPhaseResult } from './bench/webhooks';

function positiveInt(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return value;
}

const { values: args } = parseArgs({
  options: { n: { type: 'string', short: 'n' }, concurrency: { type: 'string', short: 'c' }, timeout: { type: 'string' }, 'skip-webhooks': { type: 'boolean' } },
});
const N = positiveInt('N', args.n ?? process.env.N, 300);
const CONCURRENCY = positiveInt('CONCURRENCY', args.concurrency ?? process.env.CONCURRENCY, 20);
/** Hard limit for the whole run; past it the servers are stopped and the process exits non-zero. */
const TIMEOUT_S = positiveInt('BENCH_TIMEOUT_S', args.timeout ?? process.env.BENCH_TIMEOUT_S, 900);
const WARMUP = Math.min(10, N);

const log = (message: string) => console.error(`bench: ${message}`);

async function measure(delayMs: number, run: () => Promise<MeasuredPhase['result']>): Promise<MeasuredPhase> {
  const before = cpuSnapshot();
  const elu = performance.eventLoopUtilization();
  const result = await run();
  const phase = { result, cpu: cpuDelta(before, cpuSnapshot()), delayMs, elu: performance.eventLoopUtilization(elu).utilization };
  log(`${result.name}: ${result.completed}/${result.n} done in ${fmt(result.completeWallMs / 1000, 2)} s`);
  return phase;
}

/** Share of the machine busy over one second before anything starts (other processes' load). */
async function machineBusyBefore(): Promise<number> {
  const a = cpuSnapshot().machine;
  await new Promise((resolve) => setTimeout(resolve, 1000));
  return (cpuSnapshot().machine - a) / os.cpus().length;
}

async function main(infraRef: { current?: BenchInfra }): Promise<number> {
  const idle = await machineBusyBefore();
  const taskQueue = `bench-payments-${randomBase62(8)}`;
  installRuntime(); // before the dev server: TestWorkflowEnvironment instantiates the SDK runtime
  log(`N=${N} CONCURRENCY=${CONCURRENCY}; starting PostgreSQL and the Temporal dev server`);
  const infra = (infraRef.current = await startBenchInfra(taskQueue, 10));
  const phases: MeasuredPhase[] = [];

  log('bundling workflows, starting the payments worker');
  const payments = await createPaymentsWorker({
    orm: infra.orm,
    address: infra.temporalAddress,
    namespace: 'default',
    taskQueue,
    secretBox: infra.deps.secretBox,
    webhooks: infra.deps.webhooks,
  });
  const bare = await createBareWorker(infra);
  const paymentsDone = payments.worker.run();
  try {
    log(`warm-up: ${WARMUP} charges`);
    await runChargePhase(infra, WARMUP, CONCURRENCY);
    phases.push(await measure(COMPLETION_DELAY_MS, () => runChargePhase(infra, N, CONCURRENCY)));
  } finally {
    payments.worker.shutdown();
    await paymentsDone;
    await payments.connection.close();
  }

  log('baseline: bare workflows on their own worker');
  await bare.run();
  try {
    await runBaselinePhase(infra, bare, 'start', WARMUP, CONCURRENCY, 0);
    const kinds: Array<[BaselineKind, number]> = [['start', 0], ['start-sleep', COMPLETION_DELAY_MS], ['update-with-start-sleep', COMPLETION_DELAY_MS]];
    for (const [kind, delay] of kinds) phases.push(await measure(delay, () => runBaselinePhase(infra, bare, kind, N, CONCURRENCY, delay)));
  } finally {
    await bare.stop();
  }

  const rss = peakRss();
  let webhooks: WebhookPhaseResult | undefined;
  if (!args['skip-webhooks']) {
    webhooks = await runWebhookPhase(infra, { taskQueue, n: N, concurrency: CONCURRENCY, warmup: WARMUP, waitTimeoutMs: 120_000, log });
    log(`webhooks: ${webhooks.delivered}/${webhooks.expected} events delivered, ${webhooks.badSignatures} bad signatures, ${webhooks.duplicates} duplicates`);
  }
  console.log(
    renderReport(
      phases,
      [
        `N=${N}, CONCURRENCY=${CONCURRENCY}, warm-up ${WARMUP} per worker; latencies in ms; completion via workflow handle result(), no API polling.`,
        `Machine busy in the second before the run: ${fmt(100 * idle, 0)} % (other processes).`,
      ],
      [
        `Machine: ${machineLine()}.`,
        `Peak RSS: Node process (API + workers + load) ${fmt(rss.node, 0)} MiB; Temporal dev server ${fmt(rss.temporal, 0)} MiB.`,
        `"done/s after delay" divides by the wall-clock minus the fixed ${COMPLETION_DELAY_MS / 1000} s timer; "other" is machine CPU outside these three (kernel threads, other processes).`,
      ],
      webhooks,
    ),
  );
  const failed = phases.some((p) => p.result.create.errors.length || p.result.completeErrors.length || p.result.completed !== p.result.n);
  return failed || (webhooks && webhookPhaseFailed(webhooks)) ? 1 : 0;
}

const infraRef: { current?: BenchInfra } = {};
let stopping: Promise<void> | undefined;
const stopInfra = () => (stopping ??= infraRef.current?.stop() ?? Promise.resolve());
const abort = (why: string) => {
  log(`${why}; stopping`);
  const forced = setTimeout(() => process.exit(3), 30_000);
  forced.unref();
  void stopInfra().finally(() => process.exit(2));
};
const deadline = setTimeout(() => abort(`over BENCH_TIMEOUT_S=${TIMEOUT_S}`), TIMEOUT_S * 1000);
deadline.unref();
process.once('SIGINT', () => abort('interrupted'));
process.once('SIGTERM', () => abort('terminated'));

main(infraRef)
  .then(async (code) => {
    await stopInfra();
    process.exit(code);
  })
  .catch(async (error) => {
    console.error(error);
    await stopInfra();
    process.exit(1);
  });
