import type { InflightCounts } from './inflight-checks';
import type { OmesBaselineResult } from './omes';
import type { ProbeSample } from './inflight-probe';
import type { InflightSample } from './inflight-sampler';
import type { CpuSnapshot } from './procs';
import { fmt, summarize } from './stats';

export interface WindowCpu {
  name: string;
  seconds: number;
  cpu: CpuSnapshot;
  /** CPU seconds of named process trees (the topology's PostgreSQL servers apart). */
  named: Record<string, number>;
}

interface CreateFigures {
  ok: number;
  errorCount: number;
  errors: string[];
  wallS: number;
  latencies: number[];
}

export interface InflightReport {
  variant: string;
  name: string;
  charges: number;
  payouts: number;
  concurrency: number;
  probeRate: number;
  windows: WindowCpu[];
  probe?: ProbeSample[];
  samples: InflightSample[];
  create?: { charges: CreateFigures; payouts: CreateFigures };
  inFlight?: { charges: number; payouts: number };
  resolve?: { afterFirstDueS: number; afterLastDueS: number; open: number };
  approve?: { wallS: number; decided: number; open: number; latencies: number[] };
  counts?: InflightCounts;
  ledger?: string;
  omes?: OmesBaselineResult;
  problems: string[];
  notes: string[];
  loadBefore: number[];
  loadAfter?: number[];
}

export interface RunInfo {
  command: string;
  cpus: number;
  cpuModel: string;
  memGiB: number;
  node: string;
}

const GOAL_RSS_MIB = 1024;
const GOAL_P99_RATIO = 1.2;
const max = (xs: number[]) => xs.filter(Number.isFinite).reduce((a, b) => Math.max(a, b), -Infinity);
const last = (xs: number[]) => xs.filter(Number.isFinite).at(-1) ?? NaN;
const first = (xs: number[]) => xs.filter(Number.isFinite)[0] ?? NaN;

/** p50/p99 of the probe's requests per window, and the ratio of each window's p99 to `before`'s. */
export function probeWindows(samples: readonly ProbeSample[]): Array<{ window: string; count: number; failed: number; p50: number; p99: number; ratio: number }> {
  const names = [...new Set(samples.map((s) => s.window))];
  const rows = names.map((window) => {
    const mine = samples.filter((s) => s.window === window);
    const sum = summarize(mine.map((s) => s.ms));
    return { window, count: mine.length, failed: mine.filter((s) => !s.ok).length, p50: sum.p50, p99: sum.p99, ratio: NaN };
  });
  const before = rows.find((r) => r.window === 'before')?.p99 ?? NaN;
  for (const r of rows) r.ratio = r.p99 / before;
  return rows;
}

function variantSection(r: InflightReport): string[] {
  const out = [`### ${r.variant}`, ''];
  out.push(`Load: ${r.charges} charges (\`sandbox_outcome: pending\`) and ${r.payouts} payouts (\`held_for_review\`) at concurrency ${r.concurrency}; probe ${r.probeRate} requests/s open loop (a second merchant: create, read, balances, list, in turn). Load average before ${r.loadBefore.map((l) => fmt(l, 2)).join(', ')}; after ${r.loadAfter?.map((l) => fmt(l, 2)).join(', ') ?? 'n/a'}.`, '');
  if (r.create) {
    const c = r.create.charges;
    const p = r.create.payouts;
    const cs = summarize(c.latencies);
    const ps = summarize(p.latencies);
    out.push('| creates (closed loop) | ok | failed | wall s | per s | p50 ms | p99 ms |', '|:--|--:|--:|--:|--:|--:|--:|');
    out.push(`| charges | ${c.ok} | ${c.errorCount} | ${fmt(c.wallS)} | ${fmt(c.ok / c.wallS)} | ${fmt(cs.p50)} | ${fmt(cs.p99)} |`);
    out.push(`| payouts | ${p.ok} | ${p.errorCount} | ${fmt(p.wallS)} | ${fmt(p.ok / p.wallS)} | ${fmt(ps.p50)} | ${fmt(ps.p99)} |`, '');
  }
  if (r.inFlight) out.push(`In flight once created (database): ${r.inFlight.charges} charges, ${r.inFlight.payouts} payouts.`, '');
  const probe = probeWindows(r.probe ?? []);
  const cpuBy = new Map(r.windows.map((w) => [w.name, w]));
  out.push('| window | s | probe requests | not 200 | p50 ms | p99 ms | p99 ÷ before | CPU % worker | Temporal | postgres | API(s) | bench process | machine |', '|:--|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|');
  for (const w of probe) {
    const cpu = cpuBy.get(w.window);
    const pct = (v: number | undefined) => (cpu && v !== undefined ? fmt((100 * v) / cpu.seconds, 0) : 'n/a');
    out.push(
      `| ${w.window} | ${cpu ? fmt(cpu.seconds, 0) : 'n/a'} | ${w.count} | ${w.failed} | ${fmt(w.p50)} | ${fmt(w.p99)} | ${fmt(w.ratio, 2)}× | ${pct(cpu?.cpu.worker)} | ${pct(cpu?.cpu.temporal)} | ${pct(cpu?.cpu.postgres)} | ${pct(cpu?.cpu.apis)} | ${pct(cpu?.cpu.node)} | ${pct(cpu?.cpu.machine)} |`,
    );
  }
  const names = [...new Set(r.windows.flatMap((w) => Object.keys(w.named)))];
  if (names.length) {
    out.push('', `| window | ${names.map((n) => `CPU % ${n}`).join(' | ')} |`, `|:--|${names.map(() => '--:').join('|')}|`);
    for (const w of r.windows) out.push(`| ${w.name} | ${names.map((n) => fmt((100 * (w.named[n] ?? NaN)) / w.seconds, 0)).join(' | ')} |`);
  }
  out.push('', 'CPU % is of one core over the window (the machine has 2); "Temporal" is the dev server, or the topology\'s server and UI server; "postgres" every PostgreSQL process (the topology: the service\'s and Temporal\'s).', '');
  const s = r.samples;
  const rss = s.map((x) => x.largestWorkerRssMiB);
  const rssAll = s.map((x) => x.workerRssMiB);
  out.push('| sampled every few seconds | first | peak | last |', '|:--|--:|--:|--:|');
  out.push(`| worker RSS MiB (the largest worker process) | ${fmt(first(rss), 0)} | ${fmt(max(rss), 0)} | ${fmt(last(rss), 0)} |`);
  out.push(`| worker RSS MiB (every worker process together) | ${fmt(first(rssAll), 0)} | ${fmt(max(rssAll), 0)} | ${fmt(last(rssAll), 0)} |`);
  out.push(`| sticky cache size (workflows) | ${fmt(first(s.map((x) => x.stickySize)), 0)} | ${fmt(max(s.map((x) => x.stickySize)), 0)} | ${fmt(last(s.map((x) => x.stickySize)), 0)} |`);
  out.push(`| sticky cache forced evictions (counter) | ${fmt(first(s.map((x) => x.stickyEvictions)), 0)} | | ${fmt(last(s.map((x) => x.stickyEvictions)), 0)} |`);
  out.push(`| sticky cache hits / misses (counters, last) | | | ${fmt(last(s.map((x) => x.stickyHits)), 0)} / ${fmt(last(s.map((x) => x.stickyMisses)), 0)} |`);
  out.push(`| Temporal store on disk MiB | ${fmt(first(s.map((x) => x.temporalDiskMiB)))} | ${fmt(max(s.map((x) => x.temporalDiskMiB)))} | ${fmt(last(s.map((x) => x.temporalDiskMiB)))} |`);
  out.push(`| service PostgreSQL on disk MiB | ${fmt(first(s.map((x) => x.postgresDiskMiB)))} | ${fmt(max(s.map((x) => x.postgresDiskMiB)))} | ${fmt(last(s.map((x) => x.postgresDiskMiB)))} |`);
  out.push(`| load average (1 min) | ${fmt(first(s.map((x) => x.load1)), 2)} | ${fmt(max(s.map((x) => x.load1)), 2)} | ${fmt(last(s.map((x) => x.load1)), 2)} |`, '');
  if (r.resolve) out.push(`Resolution: every charge ended ${fmt(r.resolve.afterFirstDueS, 0)} s after the first timer was due, ${fmt(r.resolve.afterLastDueS, 0)} s after the last was due (${r.resolve.open} still open).`);
  if (r.approve) {
    const a = summarize(r.approve.latencies);
    out.push(`Payouts approved through the operator's path (decidePayout): ${r.approve.decided} in ${fmt(r.approve.wallS)} s including their completion (approval p50 ${fmt(a.p50)} ms, p99 ${fmt(a.p99)} ms; ${r.approve.open} not finished).`);
  }
  if (r.counts) {
    out.push('', `Counted at the end: charges ${JSON.stringify(r.counts.chargesByStatus)}; payouts ${JSON.stringify(r.counts.payoutsByStatus)}; events ${JSON.stringify(r.counts.eventsByType)}; resources with a repeated event type: ${r.counts.duplicateEvents}. Ledger check: ${r.ledger}.`);
  }
  if (r.omes) {
    const o = r.omes;
    const createRate = r.create ? r.create.charges.ok / r.create.charges.wallS : NaN;
    const resolving = r.windows.find((w) => w.name === 'resolving');
    const endRate = resolving && r.create ? r.create.charges.ok / resolving.seconds : NaN;
    out.push('', `omes \`${o.scenario}\` on the same server after the load (TypeScript worker, ${o.installed}): ${o.iterations} iterations, ${o.failed} failed, ${fmt(o.workflowsPerSecond)} workflows/s (closed loop, ${r.concurrency} in flight).`);
    out.push('', '| divided by omes | per s | ÷ omes |', '|:--|--:|--:|');
    out.push(`| charges created (POST /v1/charges, closed loop) | ${fmt(createRate)} | ${fmt(createRate / o.workflowsPerSecond, 2)}× |`);
    out.push(`| charges ended by their timers (the resolving window) | ${fmt(endRate)} | ${fmt(endRate / o.workflowsPerSecond, 2)}× |`);
  }
  const inFlight = probe.find((w) => w.window === 'in flight');
  out.push('', '| goal | figure | result |', '|:--|--:|:--|');
  out.push(`| RSS of each worker process at most ${GOAL_RSS_MIB} MiB | ${fmt(max(rss), 0)} MiB | ${max(rss) <= GOAL_RSS_MIB ? 'PASS' : 'FAIL'} |`);
  out.push(`| API p99 with everything in flight ≤ ${GOAL_P99_RATIO} × before | ${inFlight ? fmt(inFlight.ratio, 2) : 'n/a'}× | ${inFlight && inFlight.ratio <= GOAL_P99_RATIO ? 'PASS' : 'FAIL'} |`);
  out.push(`| nothing lost, ledger check balanced | ${r.problems.length} problems | ${r.problems.length === 0 ? 'PASS' : 'FAIL'} |`);
  if (r.counts) {
    const expired = r.counts.chargesByStatus.expired ?? 0;
    out.push(`| every pending charge failed/timeout after its ten minutes (the spec), none expired | ${expired} expired | ${expired === 0 ? 'PASS' : 'FAIL'} |`);
  }
  for (const p of r.problems) out.push(`- problem: ${p}`);
  for (const n of r.notes) out.push(`- note: ${n}`);
  out.push('');
  return out;
}

export function renderInflight(reports: InflightReport[], run: RunInfo): string {
  const out = ['## Payments in flight (issue 34)', '', `\`npm run bench -- ${run.command}\`; ${run.cpus} × ${run.cpuModel}, ${fmt(run.memGiB, 1)} GiB, Node ${run.node}.`, ''];
  for (const r of reports) out.push(...variantSection(r));
  return out.join('\n');
}
