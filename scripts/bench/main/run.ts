/**
 * The measurement (BENCH_INNER=1 child of scripts/bench.ts): for each variant, fresh servers, then
 * (a) N charges through the API to `succeeded`, (a') N payouts through the API to `succeeded` (a
 * funded merchant, below the review threshold), (b) N bare workflows of four kinds on the same
 * server, (c) charges with one webhook endpoint at concurrency 1 and at CONCURRENCY, (d) issue 19's
 * webhook phases (scripts/bench/webhooks/issue19.ts: capacity, latency at c=4 and c=1, fairness); then the
 * Markdown report, sent to the launcher. `--only webhooks` keeps the warm-ups, the `start-activity`
 * baseline and (d); `--only ratelimit` (deployed only, unless --variants) keeps issue 20's rate-limit
 * phase (scripts/bench/ratelimit/ratelimit.ts), which the full run makes first on each variant. Exit code 1 if any request, workflow or delivery failed (a VOID phase included).
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { COMPLETION_DELAY_MS } from '../../../src/domain/sandbox-outcome';
import { freePort } from '../../../src/support/free-port';
import { installRuntime } from '../../../workers/workflow-bundle';
import { createBareWorker, runBaselinePhase, type BaselineKind } from '../shared/baseline';
import { newMerchantKey, runChargePhase } from '../shared/charges';
import { detectCompletionMode } from '../shared/completion';
import { startBenchInfra, type BenchInfra } from '../shared/infra';
import { sendReport } from '../shared/launcher';
import type { PhaseResult } from '../shared/load';
import { fundForPayouts, runPayoutPhase } from '../shared/payouts';
import { cpuDelta, cpuSnapshot, peakRss } from '../shared/procs';
import { cpuTarget } from '../shared/payments';
import { checkTopologyInstall } from '../shared/topology';
import { StartupError } from '../../../src/support/startup-error';
import { machineLine, renderRun, type MeasuredPhase, type VariantReport } from './report';
import { fmt } from '../shared/stats';
import { judgeTargets, type TargetInputs } from './targets';
import { parseVariants, type Variant } from '../shared/variants';
import { startWebhookBench, webhookPhaseFailed, type WebhookPhaseResult } from '../webhooks/webhooks';
import { runIssue19, type Issue19Options } from '../webhooks/issue19';
import { runRateLimitBench } from '../ratelimit/ratelimit';
import { isVoid } from './targets';

function positiveInt(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return value;
}

const { values: args } = parseArgs({
  options: {
    n: { type: 'string', short: 'n' },
    concurrency: { type: 'string', short: 'c' },
    variants: { type: 'string' },
    'n-sequential': { type: 'string' },
    timeout: { type: 'string' },
    'skip-webhooks': { type: 'boolean' },
    only: { type: 'string' },
    'capacity-charges': { type: 'string' },
    'capacity-endpoints': { type: 'string' },
    'n-latency': { type: 'string' },
    'quiet-charges': { type: 'string' },
    'noisy-events': { type: 'string' },
    'noisy-delay': { type: 'string' },
    'quiet-wait': { type: 'string' },
    'noisy-wait': { type: 'string' },
    'paced-rates': { type: 'string' },
    'n-paced': { type: 'string' },
    'n-ratelimit': { type: 'string' },
  },
});
const ONLY = args.only ?? process.env.BENCH_ONLY ?? '';
if (ONLY !== '' && ONLY !== 'webhooks' && ONLY !== 'ratelimit') throw new Error(`--only / BENCH_ONLY: "webhooks" or "ratelimit", got "${ONLY}"`);
/** `--only webhooks`: the warm-ups, the start-activity baseline and issue 19's phases, nothing else. */
const ONLY_WEBHOOKS = ONLY === 'webhooks';
/** `--only ratelimit`: the rate-limit phase alone (issue 20), on `deployed` unless --variants says otherwise. */
const ONLY_RATELIMIT = ONLY === 'ratelimit';
/** Measured pairs of the rate-limit phase. */
const N_RATELIMIT = positiveInt('N_RATELIMIT', args['n-ratelimit'] ?? process.env.N_RATELIMIT, 300);
if (ONLY_WEBHOOKS && args['skip-webhooks']) throw new Error('--only webhooks and --skip-webhooks exclude each other');
const N = positiveInt('N', args.n ?? process.env.N, 1000);
const CONCURRENCY = positiveInt('CONCURRENCY', args.concurrency ?? process.env.CONCURRENCY, 20);
/** Charges of the concurrency-1 webhook phase. */
const N_SEQUENTIAL = positiveInt('N_SEQUENTIAL', args['n-sequential'] ?? process.env.N_SEQUENTIAL, 100);
const VARIANTS = parseVariants(args.variants ?? process.env.BENCH_VARIANTS ?? (ONLY_RATELIMIT ? 'deployed' : 'deployed,single,tuned'));
/** Hard limit for the whole run; past it the servers are stopped, the report so far is printed and the exit code is 2. */
const TIMEOUT_S = positiveInt('BENCH_TIMEOUT_S', args.timeout ?? process.env.BENCH_TIMEOUT_S, 2700);
const WARMUP = Math.min(10, N);
const DELIVERY_WAIT_MS = 120_000;
const NOISY_DELAY_S = positiveInt('NOISY_DELAY_S', args['noisy-delay'] ?? process.env.NOISY_DELAY_S, 30);
/** Issue 19's phases (scripts/bench/webhooks/issue19.ts); the defaults are the issue's sizes. */
const ISSUE19: Omit<Issue19Options, 'log'> = {
  concurrency: CONCURRENCY,
  capacityCharges: positiveInt('N_CAPACITY', args['capacity-charges'] ?? process.env.N_CAPACITY, 150),
  capacityEndpoints: positiveInt('CAPACITY_ENDPOINTS', args['capacity-endpoints'] ?? process.env.CAPACITY_ENDPOINTS, 10),
  latencyCharges: positiveInt('N_LATENCY', args['n-latency'] ?? process.env.N_LATENCY, 300),
  sequentialCharges: N_SEQUENTIAL,
  pacedRates: (args['paced-rates'] ?? process.env.PACED_RATES ?? '5,10,20')
    .split(',')
    .filter((r) => r.trim() !== '')
    .map((r) => positiveInt('PACED_RATES', r.trim(), 1)),
  pacedCharges: positiveInt('N_PACED', args['n-paced'] ?? process.env.N_PACED, 100),
  quietCharges: positiveInt('N_QUIET', args['quiet-charges'] ?? process.env.N_QUIET, 100),
  noisyEvents: positiveInt('N_NOISY', args['noisy-events'] ?? process.env.N_NOISY, 1000),
  noisyDelayMs: NOISY_DELAY_S * 1000,
  // The endpoint's timeout_seconds: as long as the answer takes, at most the API's maximum (30).
  noisyTimeoutS: Math.min(30, NOISY_DELAY_S),
  deliveryWaitMs: DELIVERY_WAIT_MS,
  quietWaitMs: positiveInt('QUIET_WAIT_S', args['quiet-wait'] ?? process.env.QUIET_WAIT_S, 180) * 1000,
  noisyWaitMs: positiveInt('NOISY_WAIT_S', args['noisy-wait'] ?? process.env.NOISY_WAIT_S, 60) * 1000,
};

const log = (message: string) => console.error(`bench: ${message}`);
const reports: VariantReport[] = [];
const runStarted = performance.now();
let header: string[] = [];

/** Share of the machine busy over one second (other processes' load). */
async function machineBusy(): Promise<number> {
  const a = cpuSnapshot().machine;
  await new Promise((resolve) => setTimeout(resolve, 1000));
  return (cpuSnapshot().machine - a) / os.cpus().length;
}

async function measure(infra: BenchInfra, delayMs: number, run: () => Promise<PhaseResult>): Promise<MeasuredPhase> {
  const before = cpuSnapshot(cpuTarget(infra.payments));
  const elu = performance.eventLoopUtilization();
  const result = await run();
  const phase = { result, cpu: cpuDelta(before, cpuSnapshot(cpuTarget(infra.payments))), delayMs, elu: performance.eventLoopUtilization(elu).utilization };
  log(`${infra.variant.name}: ${result.name}: ${result.completed}/${result.n} done in ${fmt(result.completeWallMs / 1000, 2)} s`);
  return phase;
}

function phaseFailed(r: PhaseResult): boolean {
  return r.create.errors.length > 0 || r.completeErrors.length > 0 || r.completed !== r.n;
}

/** Fails the variant when its worker died: the figures after that would mean nothing. */
function checkPayments(infra: BenchInfra): void {
  const failure = infra.payments.failure();
  if (failure) throw new Error(failure);
}

const infraRef: { current?: BenchInfra } = {};
/** The variant under way, so that a run stopped early still reports what it measured. */
const reportRef: { current?: VariantReport } = {};

async function runVariant(variant: Variant): Promise<VariantReport> {
  const t0 = performance.now();
  const busy = await machineBusy();
  const report: VariantReport = { name: variant.name, title: variant.title, notes: [], phases: [], charged: !ONLY_WEBHOOKS && !ONLY_RATELIMIT, payouts: [], webhooks: [], targets: [], rss: peakRss(), wallS: NaN };
  const inputs: TargetInputs = {};
  reportRef.current = report;
  log(variant.topology ? `${variant.name}: starting the production topology` : `${variant.name}: starting PostgreSQL and the Temporal dev server (${variant.persistentDevServer ? 'on disk' : 'in memory'})`);
  let infra: BenchInfra | undefined;
  try {
    infra = infraRef.current = await startBenchInfra(variant, log);
    report.notes.push(`Machine busy in the second before this variant: ${fmt(100 * busy, 0)} % (other processes).`);
    const merchant = await newMerchantKey(infra, 'Bench');

    if (!ONLY_WEBHOOKS) {
      log(`${variant.name}: rate limits: ${N_RATELIMIT} pairs of GET /v1/balances, limiter on and off`);
      report.rateLimit = await runRateLimitBench(infra, (await newMerchantKey(infra, 'Bench rate limit')).key, N_RATELIMIT);
      if (ONLY_RATELIMIT) return report;
    }

    log(`${variant.name}: warm-up: ${WARMUP} charges`);
    const warm = await runChargePhase(infra, WARMUP, CONCURRENCY, { key: merchant.key, name: 'warm-up', referencePrefix: 'bench-warm', completion: 'poll' });
    if (phaseFailed(warm)) throw new Error(`warm-up failed: ${[...warm.create.errors, ...warm.completeErrors][0] ?? 'not every charge succeeded'}`);
    const completion = await detectCompletionMode(infra, warm.create.values.slice(0, 3));
    report.notes.push(
      completion.mode === 'result'
        ? `Charges awaited through result() of the workflow whose id is the charge id: ${completion.why}.`
        : `Charges awaited by polling GET /v1/charges/{id} every 100 ms from ${COMPLETION_DELAY_MS / 1000} s after each create: ${completion.why}.`,
    );
    report.notes.push(`Outbox relay poll: ${infra.config.webhooks.outboxPollMs} ms${process.env.WEBHOOK_OUTBOX_POLL_MS ? ' (WEBHOOK_OUTBOX_POLL_MS is set in this environment)' : ' (default)'}; LOG_LEVEL ${infra.config.logLevel}.`);

    if (!ONLY_WEBHOOKS) {
      const charge = await measure(infra, COMPLETION_DELAY_MS, () =>
        runChargePhase(infra!, N, CONCURRENCY, { key: merchant.key, name: 'charge: POST /v1/charges', referencePrefix: 'bench', completion: completion.mode }),
      );
      report.phases.push(charge);
      inputs.charge = charge.result;
      checkPayments(infra);

      // Payouts the same way, for a merchant funded first (every create accepted, none held for review).
      const payer = await newMerchantKey(infra, 'Bench payouts');
      const funded = await fundForPayouts(infra, payer.id, WARMUP + N);
      log(`${variant.name}: warm-up: ${WARMUP} payouts (merchant funded with ${funded} minor units)`);
      const warmPayouts = await runPayoutPhase(infra, WARMUP, CONCURRENCY, { key: payer.key, name: 'payout warm-up', referencePrefix: 'bench-payout-warm' });
      if (phaseFailed(warmPayouts)) throw new Error(`payout warm-up failed: ${[...warmPayouts.create.errors, ...warmPayouts.completeErrors][0] ?? 'not every payout succeeded'}`);
      report.payouts.push(await measure(infra, COMPLETION_DELAY_MS, () => runPayoutPhase(infra!, N, CONCURRENCY, { key: payer.key, name: 'payout: POST /v1/payouts', referencePrefix: 'bench-payout' })));
      checkPayments(infra);
    }

    const issue19 = !args['skip-webhooks'];
    log(`${variant.name}: baseline: bare workflows on their own worker and task queue`);
    const bare = await createBareWorker(infra);
    await bare.run();
    try {
      await runBaselinePhase(infra, bare, 'start', WARMUP, CONCURRENCY, 0);
      const kinds: Array<[BaselineKind, number]> = ONLY_WEBHOOKS
        ? [['start-activity', 0]]
        : [['start', 0], ...(issue19 ? [['start-activity', 0] as [BaselineKind, number]] : []), ['start-sleep', COMPLETION_DELAY_MS], ['update-with-start-sleep', COMPLETION_DELAY_MS]];
      for (const [kind, delay] of kinds) {
        const phase = await measure(infra, delay, () => runBaselinePhase(infra!, bare, kind, N, CONCURRENCY, delay));
        report.phases.push(phase);
        if (kind === 'start') inputs.bareStart = phase.result;
        if (kind === 'start-sleep') inputs.bareSleep = phase.result;
        if (kind === 'start-activity') (report.issue19 ??= { options: ISSUE19 }).bareActivity = phase.result;
      }
    } finally {
      await bare.stop();
    }
    checkPayments(infra);

    if (!args['skip-webhooks']) {
      const webhooks = await startWebhookBench(infra, { completion: completion.mode, waitTimeoutMs: DELIVERY_WAIT_MS, log });
      try {
        await webhooks.warmup(WARMUP, CONCURRENCY);
        const phases: Array<[string, number, number]> = ONLY_WEBHOOKS
          ? []
          : [
              [`charges with a webhook endpoint, concurrency 1 (${N_SEQUENTIAL} charges one after another)`, N_SEQUENTIAL, 1],
              [`charges with a webhook endpoint, concurrency ${CONCURRENCY}`, N, CONCURRENCY],
            ];
        for (const [title, n, c] of phases) {
          const result: WebhookPhaseResult = await webhooks.phase(`charge with webhook endpoint (c=${c}): POST /v1/charges`, n, c);
          log(`${variant.name}: webhooks at c=${c}: ${result.delivered}/${result.expected} events delivered, ${result.badSignatures} bad signatures, ${result.duplicates} duplicates`);
          report.webhooks.push({ title, result });
          if (c === 1) inputs.webhooksC1 = result;
          else inputs.webhooksCN = result;
          checkPayments(infra);
        }
        await runIssue19(webhooks, { ...ISSUE19, log }, (report.issue19 ??= { options: ISSUE19 }), variant.name);
        checkPayments(infra);
      } finally {
        await webhooks.close();
      }
    }
  } catch (error) {
    report.failure = error instanceof Error ? error.message : String(error);
    log(`${variant.name}: failed: ${report.failure}`);
  } finally {
    report.rss = peakRss(cpuTarget(infra?.payments));
    report.targets = judgeTargets(inputs);
    report.wallS = (performance.now() - t0) / 1000;
    log(`${variant.name}: stopping its servers`);
    await infra?.stop();
    infraRef.current = undefined;
    reportRef.current = undefined;
  }
  return report;
}

function failed(r: VariantReport): boolean {
  const i19 = r.issue19;
  const phases19 = i19 ? [i19.capacity, i19.latencyC4, i19.latencyC1, ...(i19.paced ?? []).map((p) => p.w), i19.quietAlone, i19.quietWithNoisy] : [];
  const void19 = phases19.some(isVoid);
  // The noisy merchant's deliveries are in flight by design: only its charges and signatures count.
  const noisyFailed = !!i19?.noisy && (i19.noisy.result.badSignatures > 0 || phaseFailed(i19.noisy.result.charges));
  const issue19Charges = phases19.some((w) => !!w && (w.badSignatures > 0 || phaseFailed(w.charges)));
  return !!r.failure || !!r.rateLimit?.errors.length || [...r.phases, ...r.payouts].some((p) => phaseFailed(p.result)) || r.webhooks.some((w) => webhookPhaseFailed(w.result)) || void19 || noisyFailed || issue19Charges;
}

function renderAll(extraFooter: string[] = []): string {
  return renderRun(header, reports, [
    `Machine: ${machineLine()}.`,
    '"done/s after delay" divides by the wall-clock minus the fixed 3 s timer. CPU: "bench process" holds the API, the load generator and the bare worker (and, in the single and tuned variants, the payments worker and relay; in `topology` only the load generator, the bare worker and the rate-limit listeners); `topology`: "worker process(es)" is both workers, "Temporal server" the server and its UI server, "postgres" both PostgreSQL servers, "API processes" both APIs, the proxy, the fake partner and the supervisor; "other" is machine CPU outside these (kernel threads, other processes).',
    `Whole run: ${fmt((performance.now() - runStarted) / 1000, 0)} s.`,
    ...extraFooter,
  ]);
}


async function main(): Promise<number> {
  // The bench process's SDK runtime, as in workers/main.ts (the metrics exporter on a free port);
  // before the dev server, which would otherwise create a default runtime.
  installRuntime(undefined, `127.0.0.1:${await freePort()}`);
  if (VARIANTS.some((v) => v.topology)) {
    try {
      checkTopologyInstall();
    } catch (error) {
      if (!(error instanceof StartupError)) throw error;
      log(`topology variant: ${error.message}`);
      return 1;
    }
  }
  header = [
    ONLY_RATELIMIT
      ? `--only ratelimit: issue 20's rate-limit phase alone, ${N_RATELIMIT} measured pairs per variant.`
      : ONLY_WEBHOOKS
      ? `--only webhooks: warm-up ${WARMUP} charges and ${WARMUP} bare starts per variant, N=${N} bare one-activity workflows at CONCURRENCY=${CONCURRENCY}, then issue 19's phases; latencies in ms.`
      : `N=${N}, CONCURRENCY=${CONCURRENCY}; webhook phase at concurrency 1: ${N_SEQUENTIAL} charges; warm-up ${WARMUP} charges and ${WARMUP} bare starts per variant; latencies in ms.`,
    ...(args['skip-webhooks'] || ONLY_RATELIMIT
      ? []
      : [
          `Issue 19: capacity ${ISSUE19.capacityCharges} charges × ${ISSUE19.capacityEndpoints} endpoints at c=${CONCURRENCY}; latency ${ISSUE19.latencyCharges} charges at c=4 and ${ISSUE19.sequentialCharges} at c=1; fairness ${ISSUE19.quietCharges} quiet charges at c=2 (wait ≤ ${ISSUE19.quietWaitMs / 1000} s), ${ISSUE19.noisyEvents} noisy events to a ${NOISY_DELAY_S} s endpoint (wait ≤ ${ISSUE19.noisyWaitMs / 1000} s more).`,
        ]),
    `Variants: ${VARIANTS.map((v) => v.name).join(', ')}; each on fresh servers (new PostgreSQL, new dev server, new worker; \`topology\`: a new topology with its own Temporal server, PostgreSQL servers, workers and APIs). Targets are reported, not asserted.`,
  ];
  log(`N=${N} CONCURRENCY=${CONCURRENCY} variants=${VARIANTS.map((v) => v.name).join(',')}${ONLY ? ` only=${ONLY}` : ''}`);
  for (const variant of VARIANTS) reports.push(await runVariant(variant));
  await sendReport(renderAll());
  return reports.some(failed) ? 1 : 0;
}

let stopping: Promise<void> | undefined;
const stopInfra = () => (stopping ??= infraRef.current?.stop() ?? Promise.resolve());
let aborting = false;
const abort = (why: string) => {
  if (aborting) return;
  aborting = true;
  log(`${why}; stopping`);
  const forced = setTimeout(() => process.exit(3), 30_000);
  forced.unref();
  const partial = reportRef.current;
  void stopInfra()
    .then(() => {
      if (partial && !reports.includes(partial)) {
        partial.failure ??= `stopped early (${why}); the phases after the last one shown did not run`;
        reports.push(partial);
      }
      return sendReport(renderAll([`**Stopped early: ${why}.**${partial ? ` The variant under way (${partial.name}) is shown with the phases it finished.` : ''}`]));
    })
    .finally(() => process.exit(2));
};
const deadline = setTimeout(() => abort(`over BENCH_TIMEOUT_S=${TIMEOUT_S}`), TIMEOUT_S * 1000);
deadline.unref();
// `on`, not `once`: Ctrl-C reaches this process from the terminal and again from the launcher.
process.on('SIGINT', () => abort('interrupted'));
process.on('SIGTERM', () => abort('terminated'));

main()
  .then(async (code) => {
    await stopInfra();
    process.exit(code);
  })
  .catch(async (error) => {
    console.error(error);
    await stopInfra();
    process.exit(1);
  });
