import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { cpuSnapshot, type CpuSnapshot, type CpuTarget } from '../shared/procs';
import { scrapePages } from '../shared/prometheus-text';

/** What the in-flight bench samples every few seconds from outside the processes. */
export interface InflightSample {
  atS: number;
  /** Resident set of the worker process(es), MiB (summed over the topology's two workers). */
  workerRssMiB: number;
  /** The largest of them alone (the goal is per worker process). */
  largestWorkerRssMiB: number;
  /** The SDK's sticky cache, summed over the workers' Prometheus listeners. */
  stickySize: number;
  stickyEvictions: number;
  stickyHits: number;
  stickyMisses: number;
  /** Bytes on disk under each store's folder or files. */
  temporalDiskMiB: number;
  postgresDiskMiB: number;
  load1: number;
  /** CPU seconds so far by process group (differences between samples give each interval's CPU). */
  cpu?: CpuSnapshot;
  /** The API processes' own view (their Prometheus listeners): requests so far, and those slower than 100 ms. */
  apiRequests: number;
  apiSlowerThan100ms: number;
  /** Temporal server's histograms (topology only; NaN elsewhere): sums in seconds and counts so far. */
  temporalPersistenceSumS: number;
  temporalPersistenceCount: number;
  temporalStartSumS: number;
  temporalStartCount: number;
}

export interface SamplerTargets {
  workerPids(): number[];
  metricsPorts: number[];
  /** The API processes' Prometheus listeners (the topology's two APIs). */
  apiMetricsPorts?: number[];
  /** Temporal server's Prometheus listener (the topology). */
  temporalMetricsPort?: number;
  /** Whose CPU to count (scripts/bench/shared/payments.ts cpuTarget). */
  cpuTarget?: () => CpuTarget;
  disk: { temporal: string[]; postgres: string[] };
}

function rssMiB(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** Sum of `du -sb` over paths that exist (PostgreSQL's folders may belong to the postgres account: du runs as this user, as root when the bench does). */
function diskMiB(paths: string[]): number {
  const present = paths.filter((p) => fs.existsSync(p));
  if (present.length === 0) return NaN;
  try {
    const out = execFileSync('du', ['-sb', ...present], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    return out.split('\n').filter(Boolean).reduce((sum, line) => sum + Number(line.split('\t')[0]), 0) / 1024 / 1024;
  } catch (error) {
    // du exits 1 when a file vanished mid-walk (a WAL segment recycled); its partial output is still the figure.
    const out = (error as { stdout?: string }).stdout ?? '';
    const lines = out.split('\n').filter(Boolean);
    return lines.length ? lines.reduce((sum, line) => sum + Number(line.split('\t')[0]), 0) / 1024 / 1024 : NaN;
  }
}

/**
 * The sum of one metric's samples (every label set, or those whose labels include each of `labels`,
 * e.g. `le="0.1"`) in a Prometheus text page.
 */
export function metricSum(page: string, name: string, labels: readonly string[] = []): number {
  let sum = 0;
  let seen = false;
  for (const line of page.split('\n')) {
    if (!line.startsWith(name)) continue;
    const rest = line.slice(name.length);
    if (!(rest.startsWith('{') || rest.startsWith(' ') || rest.startsWith('_total'))) continue;
    if (labels.length) {
      const set = rest.startsWith('{') ? rest.slice(1, rest.indexOf('}')) : '';
      if (!labels.every((l) => set.split(',').includes(l))) continue;
    }
    const value = Number(line.trim().split(/\s+/).at(-1));
    if (Number.isFinite(value)) {
      sum += value;
      seen = true;
    }
  }
  return seen ? sum : NaN;
}


/** A metric summed over the pages scraped; a counter the SDK has not yet incremented is absent from its page, that is 0 (NaN when no page answered). */
const sumOver = (pages: string[], name: string, labels: readonly string[] = []) => {
  const answered = pages.filter((p) => p !== '');
  if (answered.length === 0) return NaN;
  return answered.map((p) => metricSum(p, name, labels)).reduce((a, b) => a + (Number.isFinite(b) ? b : 0), 0);
};

// The frontend's own figure (history reports the same call again, inside it).
const START = ['operation="StartWorkflowExecution"', 'service_name="frontend"'];

/** The workers' schedule-to-start so far (the SDK's histograms, milliseconds), summed over their listeners. */
export interface ScheduleToStart {
  workflowSumMs: number;
  workflowCount: number;
  activitySumMs: number;
  activityCount: number;
}

export async function scheduleToStart(ports: number[]): Promise<ScheduleToStart> {
  const pages = await scrapePages(ports);
  return {
    workflowSumMs: sumOver(pages, 'temporal_workflow_task_schedule_to_start_latency_sum'),
    workflowCount: sumOver(pages, 'temporal_workflow_task_schedule_to_start_latency_count'),
    activitySumMs: sumOver(pages, 'temporal_activity_schedule_to_start_latency_sum'),
    activityCount: sumOver(pages, 'temporal_activity_schedule_to_start_latency_count'),
  };
}

/**
 * Whether the workers had caught up between two readings: the tasks they started in between (workflow
 * and activity tasks apart) waited `limitMs` or less on average from schedule to start; no task at all
 * is caught up too. NaN figures (no listener answered) are never caught up.
 */
export function caughtUp(from: ScheduleToStart, to: ScheduleToStart, limitMs: number): boolean {
  const ok = (sum: number, count: number) => Number.isFinite(sum) && Number.isFinite(count) && (count === 0 || sum / count <= limitMs);
  return ok(to.workflowSumMs - from.workflowSumMs, to.workflowCount - from.workflowCount) && ok(to.activitySumMs - from.activitySumMs, to.activityCount - from.activityCount);
}

/** Samples every `everyMs` until stopped; `samples` grows in place, each at seconds since `originMs` (performance.now()). */
export function startSampler(targets: SamplerTargets, everyMs: number, originMs = performance.now()) {
  const samples: InflightSample[] = [];
  let stopped = false;
  const take = async () => {
    const [pages, apiPages, temporalPages] = await Promise.all([scrapePages(targets.metricsPorts), scrapePages(targets.apiMetricsPorts ?? []), scrapePages(targets.temporalMetricsPort ? [targets.temporalMetricsPort] : [])]);
    const apiRequests = sumOver(apiPages, 'payments_http_request_duration_seconds_count');
    const rss = targets.workerPids().map(rssMiB);
    samples.push({
      atS: (performance.now() - originMs) / 1000,
      workerRssMiB: rss.reduce((a, b) => a + b, 0),
      largestWorkerRssMiB: Math.max(0, ...rss),
      stickySize: sumOver(pages, 'temporal_sticky_cache_size'),
      stickyEvictions: sumOver(pages, 'temporal_sticky_cache_total_forced_eviction'),
      stickyHits: sumOver(pages, 'temporal_sticky_cache_hit'),
      stickyMisses: sumOver(pages, 'temporal_sticky_cache_miss'),
      temporalDiskMiB: diskMiB(targets.disk.temporal),
      postgresDiskMiB: diskMiB(targets.disk.postgres),
      load1: os.loadavg()[0],
      cpu: targets.cpuTarget ? cpuSnapshot(targets.cpuTarget()) : undefined,
      apiRequests,
      apiSlowerThan100ms: apiRequests - sumOver(apiPages, 'payments_http_request_duration_seconds_bucket', ['le="0.1"']),
      temporalPersistenceSumS: sumOver(temporalPages, 'persistence_latency_sum'),
      temporalPersistenceCount: sumOver(temporalPages, 'persistence_latency_count'),
      temporalStartSumS: sumOver(temporalPages, 'service_latency_sum', START),
      temporalStartCount: sumOver(temporalPages, 'service_latency_count', START),
    });
  };
  const loop = (async () => {
    while (!stopped) {
      await take();
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    samples,
    take,
    async stop() {
      stopped = true;
      await loop;
      await take();
    },
  };
}
