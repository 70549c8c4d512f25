/**
 * `npm run bench -- --only retention [--variants deployed,topology] [--rows 100000] [--rate 20]
 *   [--concurrency 1 (0: none)] [--window 30] [--warmup 10] [--notifications N] [--idempotency N] [--rate-limits N]`
 *
 * Issue 34, Retention: "`npm run bench` shows that the job does not disturb the API's p99". For each
 * variant, fresh servers (scripts/bench/shared/infra.ts: `npm start`'s or the topology's), the retention
 * Schedule paused (so its hourly tick never runs inside a window), a data set past its windows and
 * one that must stay (scripts/bench/retention/retention-seed.ts; --rows ended webhook deliveries older than 90
 * days, with two attempts each), then the API under load in three windows: before the job (--window
 * seconds), during it (a real run through Temporal and the variant's worker, `runRetentionNow`, as
 * `retention run` starts it, with the worker's own settings), and after it (--window seconds). In
 * each window an open loop (--rate requests a second of the mix in retention-load.ts, latency from
 * when each was due) and beside it a closed loop (--concurrency requests in flight). Markdown on
 * stdout (through the launcher); exit code 1 if a request failed, a row that must stay was deleted or
 * a row past its window was left.
 */
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { retentionScheduleId, runRetentionNow } from '../../../src/temporal/retention-schedule';
import { newMerchantKey } from '../shared/charges';
import { startBenchInfra, type BenchInfra } from '../shared/infra';
import { cpuTarget } from '../shared/payments';
import { cpuDelta, cpuSnapshot } from '../shared/procs';
import { apiMix, closedLoop, openLoop, type LoopResult } from './retention-load';
import { failures, P99_GOAL_RATIO, p99Ratio, renderRun, verdict, type Interval, type RetentionBenchRun, type WindowName, type WindowRun } from './retention-report';
import { countGroups, countTables, seedRetentionSet } from './retention-seed';
import { parseVariants } from '../shared/variants';

const { values: args } = parseArgs({
  options: {
    only: { type: 'string' },
    variants: { type: 'string' },
    rows: { type: 'string' },
    notifications: { type: 'string' },
    idempotency: { type: 'string' },
    'rate-limits': { type: 'string' },
    rate: { type: 'string' },
    concurrency: { type: 'string' },
    window: { type: 'string' },
    warmup: { type: 'string' },
  },
  allowPositionals: true,
});

function count(name: string, raw: string | undefined, fallback: number, min = 1): number {
  if (raw === undefined || raw === '') return fallback;
  const v = Number(raw);
  if (!Number.isInteger(v) || v < min) throw new Error(`--${name} must be an integer of at least ${min}, got "${raw}"`);
  return v;
}

// 100,000 deliveries (with 1/6, 1/3, 1/3 as many notifications, keys, counters): about 180 batches, a few minutes on a busy 2-core machine.
const ROWS = count('rows', args.rows, 100_000);
const SIZES = {
  deliveries: ROWS,
  notifications: count('notifications', args.notifications, Math.ceil(ROWS / 6), 0),
  idempotency: count('idempotency', args.idempotency, Math.ceil(ROWS / 3), 0),
  rateLimits: count('rate-limits', args['rate-limits'], Math.ceil(ROWS / 3), 0),
};
const RATE = count('rate', args.rate, 20);
/** 0: no closed loop (its creates alone can keep a 2-core machine busy). */
const CONCURRENCY = count('concurrency', args.concurrency, 1, 0);
const WINDOW_S = count('window', args.window, 30);
const WARMUP_S = count('warmup', args.warmup, 10, 0);
const VARIANTS = parseVariants(args.variants ?? 'deployed');

const log = (m: string) => console.error(`bench retention: ${m}`);

/** Pauses the variant's retention Schedule (the worker creates it at its start): the only run in the bench is the one it starts. */
async function pauseSchedule(infra: BenchInfra): Promise<void> {
  const handle = infra.temporal.client.schedule.getHandle(retentionScheduleId(infra.taskQueue));
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      await handle.pause('retention bench: the bench starts its own run');
      return;
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`the retention Schedule ${retentionScheduleId(infra.taskQueue)} did not appear within 120 s: ${String(error)}`);
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}

/** Both loops side by side until `until` settles (or `ms` passes when it is a number). */
async function window(infra: BenchInfra, name: WindowName, key: string, until: number | Promise<unknown>): Promise<WindowRun> {
  const target = cpuTarget(infra.payments);
  const cpu0 = cpuSnapshot(target);
  const t0 = performance.now();
  let done = false;
  const timer = typeof until === 'number' ? setTimeout(() => (done = true), until) : undefined;
  if (typeof until !== 'number') void until.finally(() => (done = true)).catch(() => undefined);
  const open = apiMix(infra.apiUrl, key);
  const closed = apiMix(infra.apiUrl, key);
  let o: LoopResult;
  let c: LoopResult;
  try {
    [o, c] = await Promise.all([openLoop(RATE, () => done, open.send, open.kindOf), closedLoop(CONCURRENCY, () => done, closed.send, closed.kindOf)]);
  } finally {
    clearTimeout(timer);
    await Promise.all([open.close(), closed.close()]);
  }
  const wallMs = performance.now() - t0;
  const d = cpuDelta(cpu0, cpuSnapshot(target));
  log(`${name}: ${o.samples.length} open + ${c.samples.length} closed requests in ${(wallMs / 1000).toFixed(1)} s, ${o.errors.length + c.errors.length} errors`);
  return { name, wallMs, open: o.samples, closed: c.samples, errors: [...o.errors, ...c.errors], cpu: { postgres: d.postgres, worker: d.worker, temporal: d.temporal, api: d.node + d.apis, machine: d.machine } };
}

/**
 * When each batch statement ran: its activity's start and completion in the workflow's history (the
 * last run of the chain; a run of fewer than 500 batches has only one). The server's clock, on this
 * machine the same as the bench's.
 */
async function batchIntervals(infra: BenchInfra, workflowId: string): Promise<Interval[]> {
  const { events } = await infra.temporal.client.workflow.getHandle(workflowId).fetchHistory();
  const ms = (t: { seconds?: unknown; nanos?: number | null } | null | undefined) => (t ? Number(t.seconds ?? 0) * 1000 + (t.nanos ?? 0) / 1e6 : NaN);
  const started = new Map<string, number>();
  const out: Interval[] = [];
  for (const e of events ?? []) {
    if (e.activityTaskStartedEventAttributes) started.set(String(e.activityTaskStartedEventAttributes.scheduledEventId), ms(e.eventTime));
    const done = e.activityTaskCompletedEventAttributes;
    if (done) {
      const start = started.get(String(done.scheduledEventId));
      if (start !== undefined) out.push({ start, end: ms(e.eventTime) });
    }
  }
  return out;
}

async function runVariant(variantName: string): Promise<RetentionBenchRun> {
  const variant = VARIANTS.find((v) => v.name === variantName)!;
  log(`${variant.name}: starting fresh servers`);
  const infra = await startBenchInfra(variant, log);
  try {
    await pauseSchedule(infra);
    const merchant = await newMerchantKey(infra, 'Retention bench load');
    log(`${variant.name}: seeding (${JSON.stringify(SIZES)})`);
    const seeded = await seedRetentionSet(infra.orm, SIZES, log);
    const groupsBefore = await countGroups(infra.orm, seeded.groups);
    const tablesBefore = await countTables(infra.orm);
    if (WARMUP_S > 0) {
      log(`${variant.name}: warm-up ${WARMUP_S} s`);
      await window(infra, 'before', merchant.key, WARMUP_S * 1000);
    }
    const windows: WindowRun[] = [await window(infra, 'before', merchant.key, WINDOW_S * 1000)];
    log(`${variant.name}: starting the retention run (runRetentionNow, through Temporal)`);
    const jobStarted = performance.now();
    const job = runRetentionNow(infra.temporal.client, infra.taskQueue).then((r) => ({ ...r, ms: performance.now() - jobStarted }));
    windows.push(await window(infra, 'during', merchant.key, job));
    const result = await job;
    log(`${variant.name}: the job ran ${(result.ms / 1000).toFixed(1)} s: ${JSON.stringify(result.deleted)}`);
    const batches = await batchIntervals(infra, result.workflowId);
    windows.push(await window(infra, 'after', merchant.key, WINDOW_S * 1000));
    const groupsAfter = await countGroups(infra.orm, seeded.groups);
    const tablesAfter = await countTables(infra.orm);
    return {
      variant: variant.title,
      windows,
      job: { workflowId: result.workflowId, ms: result.ms, batches: result.batches, continuations: result.continuations, deleted: { ...result.deleted }, plan: { batch: result.plan.batch, pauseMs: result.plan.pauseMs } },
      groups: seeded.groups,
      groupsBefore,
      groupsAfter,
      tablesBefore,
      tablesAfter,
      rate: RATE,
      closedConcurrency: CONCURRENCY,
      batches,
    };
  } finally {
    log(`${variant.name}: stopping the servers`);
    await infra.stop();
  }
}

async function main(): Promise<void> {
  const commit = (() => {
    try {
      return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    } catch {
      return 'unknown';
    }
  })();
  const uptime = () => `load average ${os.loadavg().map((l) => l.toFixed(2)).join(', ')}`;
  const out = [
    `## Retention beside the API (\`npm run bench -- --only retention\`)`,
    '',
    `Commit ${commit}; ${os.cpus().length} cores; ${uptime()} at the start. Seeded past their windows: ${SIZES.deliveries} ended deliveries (2 attempts each), ${SIZES.notifications} ended notifications, ${SIZES.idempotency} idempotency keys, ${SIZES.rateLimits} rate-limit counters; windows of ${WINDOW_S} s before and after (warm-up ${WARMUP_S} s); open loop ${RATE} requests/s, closed loop ${CONCURRENCY} in flight, the mix: charge create, GET charge, GET balances, a page of the events walk.`,
    '',
  ];
  const problems: string[] = [];
  for (const v of VARIANTS) {
    const run = await runVariant(v.name);
    out.push(renderRun(run), '');
    const before = run.windows.find((w) => w.name === 'before')!;
    const during = run.windows.find((w) => w.name === 'during')!;
    out.push(
      `Open-loop p99 during / before: ${p99Ratio(before.open, during.open).toFixed(2)}× (goal at most ${P99_GOAL_RATIO}×: **${verdict(run)}**; after / before ${p99Ratio(before.open, run.windows.find((w) => w.name === 'after')!.open).toFixed(2)}×)${CONCURRENCY > 0 ? `; closed loop: ${p99Ratio(before.closed, during.closed).toFixed(2)}×` : ''}.`,
      '',
    );
    problems.push(...failures(run));
  }
  out.push(`${uptime()} at the end.`);
  if (problems.length) out.push('', '**Failures:**', '', ...problems.map((p) => `- ${p}`));
  const report = out.join('\n');
  const code = problems.length ? 1 : 0;
  if (process.send) process.send({ report }, () => process.exit(code));
  else {
    console.log(report);
    process.exit(code);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
