import type { InflightCounts } from './inflight-checks';
import type { OmesBaselineResult } from '../omes/omes';
import type { ProbeSample } from './inflight-probe';
import type { InflightSample } from './inflight-sampler';
import type { CpuSnapshot } from '../shared/procs';
import { fmt, summarize } from '../shared/stats';

export interface WindowCpu {
  name: string;
  /** Its start, seconds since the probe's origin (the same clock as the probe's and the sampler's `atS`). */
  fromS?: number;
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
  /** Creates paced at this many a second (open loop, at most `concurrency` in flight); undefined: closed loop. */
  createRate?: number;
  /** What the operator decided for every held payout once the charges ended. */
  decision: 'approve' | 'reject';
  /** Charges on the hosted checkout expiring this many hours after their create; undefined: `pending` charges. */
  chargeExpiryH?: number;
  probeRate: number;
  windows: WindowCpu[];
  probe?: ProbeSample[];
  samples: InflightSample[];
  create?: { charges: CreateFigures; payouts: CreateFigures };
  inFlight?: { charges: number; payouts: number };
  /** From the last create until the workers' tasks no longer waited (scripts/bench/inflight/inflight.ts waitForCatchUp). */
  catchUp?: { caughtUp: boolean; seconds: number; readings: number };
  /** Checkout charges: their customers' declines on the page. */
  customers?: { declined: number; errorCount: number; errors: string[]; wallS: number; latencies: number[] };
  resolve?: { afterFirstDueS: number; afterLastDueS: number; open: number };
  approve?: { decision: 'approve' | 'reject'; wallS: number; decided: number; open: number; latencies: number[] };
  counts?: InflightCounts;
  ledger?: string;
  /** omes on the same server before the load, and (`omes`) after it. */
  omesBefore?: OmesBaselineResult;
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
  // In the order the windows began (samples are pushed as their answers arrive).
  const began = new Map<string, number>();
  for (const s of samples) began.set(s.window, Math.min(began.get(s.window) ?? Infinity, s.atS));
  const names = [...began.keys()].sort((a, b) => began.get(a)! - began.get(b)!);
  const rows = names.map((window) => {
    const mine = samples.filter((s) => s.window === window);
    const sum = summarize(mine.map((s) => s.ms));
    return { window, count: mine.length, failed: mine.filter((s) => !s.ok).length, p50: sum.p50, p99: sum.p99, ratio: NaN };
  });
  const before = rows.find((r) => r.window === 'before')?.p99 ?? NaN;
  for (const r of rows) r.ratio = r.p99 / before;
  return rows;
}

/** p50/p99/max of each kind of probe request in each window, and how many took over `slowMs`. */
export function probeKinds(samples: readonly ProbeSample[], slowMs: number): Array<{ window: string; kind: string; count: number; p50: number; p99: number; max: number; slow: number }> {
  const rows = [];
  for (const window of [...new Set(samples.map((s) => s.window))]) {
    for (const kind of [...new Set(samples.map((s) => s.kind))]) {
      const ms = samples.filter((s) => s.window === window && s.kind === kind).map((s) => s.ms);
      if (!ms.length) continue;
      const sum = summarize(ms);
      rows.push({ window, kind, count: ms.length, p50: sum.p50, p99: sum.p99, max: sum.max, slow: ms.filter((m) => m > slowMs).length });
    }
  }
  return rows;
}

export interface TimelineRow {
  fromS: number;
  count: number;
  p50: number;
  p99: number;
  max: number;
  /** Probe requests over `slowMs`, by kind. */
  slowByKind: Record<string, number>;
  /** From the samples that fall in the slice (differences between the first and last): CPU % of one core, the APIs' own slow answers, Temporal's mean latencies. */
  cpuPct?: { machine: number; worker: number; temporal: number; postgres: number; apis: number };
  apiSlow: number;
  persistenceMeanMs: number;
  startMeanMs: number;
}

/** One window cut into `sliceS`-second slices: the probe's latency and slow requests by kind, beside what the sampler saw in the same slice. */
export function windowTimeline(probe: readonly ProbeSample[], samples: readonly InflightSample[], from: number, seconds: number, sliceS: number, slowMs: number): TimelineRow[] {
  const rows: TimelineRow[] = [];
  for (let at = from; at < from + seconds; at += sliceS) {
    const end = Math.min(at + sliceS, from + seconds);
    const mine = probe.filter((p) => p.atS >= at && p.atS < end);
    const sum = summarize(mine.map((p) => p.ms));
    const slowByKind: Record<string, number> = {};
    for (const p of mine) if (p.ms > slowMs) slowByKind[p.kind] = (slowByKind[p.kind] ?? 0) + 1;
    // The sample just before the slice and the last one inside it bound the slice's differences.
    const a = [...samples].reverse().find((x) => x.atS <= at);
    const b = [...samples].reverse().find((x) => x.atS <= end && x.atS > at);
    const d = (f: (x: InflightSample) => number) => (a && b ? f(b) - f(a) : NaN);
    const span = a && b ? b.atS - a.atS : NaN;
    const pct = (f: (c: CpuSnapshot) => number) => (a?.cpu && b?.cpu ? (100 * (f(b.cpu) - f(a.cpu))) / span : NaN);
    rows.push({
      fromS: at - from,
      count: mine.length,
      p50: sum.p50,
      p99: sum.p99,
      max: sum.max,
      slowByKind,
      cpuPct: { machine: pct((c) => c.machine), worker: pct((c) => c.worker), temporal: pct((c) => c.temporal), postgres: pct((c) => c.postgres), apis: pct((c) => c.apis) },
      apiSlow: d((x) => x.apiSlowerThan100ms),
      persistenceMeanMs: (1000 * d((x) => x.temporalPersistenceSumS)) / d((x) => x.temporalPersistenceCount),
      startMeanMs: (1000 * d((x) => x.temporalStartSumS)) / d((x) => x.temporalStartCount),
    });
  }
  return rows;
}

/** The issue's goal window: every probe request from the first create to the end (warm-up and before left out). */
export function wholeRun(samples: readonly ProbeSample[]): { count: number; p99: number; ratio: number } {
  const before = summarize(samples.filter((s) => s.window === 'before').map((s) => s.ms)).p99;
  const mine = samples.filter((s) => s.window !== 'before' && s.window !== 'warm-up').map((s) => s.ms);
  const p99 = summarize(mine).p99;
  return { count: mine.length, p99, ratio: p99 / before };
}

/** What a user scales from: disk and CPU per payment held, from the samples and the windows' CPU. */
function perPayment(r: InflightReport): string[] {
  const held = (r.inFlight?.charges ?? 0) + (r.inFlight?.payouts ?? 0);
  const created = (r.create?.charges.ok ?? 0) + (r.create?.payouts.ok ?? 0);
  if (!held || !r.samples.length) return [];
  const start = r.windows.find((w) => w.name === 'in flight')?.fromS;
  const at = start === undefined ? undefined : [...r.samples].reverse().find((x) => x.atS <= start + 1);
  const s0 = r.samples[0];
  const kib = (f: (x: InflightSample) => number) => (at ? (1024 * (f(at) - f(s0))) / held : NaN);
  const cpuOf = (names: string[]) => r.windows.filter((w) => names.includes(w.name)).reduce((a, w) => a + w.cpu.machine, 0);
  const createCpu = cpuOf(['creating', 'catching up']);
  const endCpu = cpuOf(['resolving', 'approving', 'rejecting']);
  return [
    '',
    '| per payment (a user scales from these) | figure |',
    '|:--|--:|',
    `| Temporal store on disk, growth to the start of "in flight" ÷ ${held} payments waiting | ${fmt(kib((x) => x.temporalDiskMiB))} KiB |`,
    `| service PostgreSQL on disk, the same | ${fmt(kib((x) => x.postgresDiskMiB))} KiB |`,
    `| machine CPU to create one and see it begun ("creating" + "catching up" ÷ ${created} created) | ${fmt((1000 * createCpu) / created)} CPU-ms |`,
    `| machine CPU to end one ("resolving" + the decisions' window ÷ ${created}) | ${fmt((1000 * endCpu) / created)} CPU-ms |`,
  ];
}

const TIMELINE_WINDOWS = ['before', 'catching up', 'in flight'];
const TIMELINE_SLICE_S = 30;

function timelineSection(r: InflightReport, slowMs: number): string[] {
  const out: string[] = [];
  const kinds = probeKinds(r.probe ?? [], slowMs);
  if (kinds.length) {
    out.push(`| window | probe request | n | p50 ms | p99 ms | max ms | over ${fmt(slowMs, 0)} ms |`, '|:--|:--|--:|--:|--:|--:|--:|');
    for (const k of kinds) out.push(`| ${k.window} | ${k.kind} | ${k.count} | ${fmt(k.p50)} | ${fmt(k.p99)} | ${fmt(k.max)} | ${k.slow} |`);
    out.push('');
  }
  for (const w of r.windows.filter((x) => TIMELINE_WINDOWS.includes(x.name) && x.fromS !== undefined)) {
    const rows = windowTimeline(r.probe ?? [], r.samples, w.fromS!, w.seconds, TIMELINE_SLICE_S, slowMs);
    out.push(`"${w.name}" in ${TIMELINE_SLICE_S} s slices (probe requests over ${fmt(slowMs, 0)} ms, i.e. 1.2 × the p99 before, by kind; CPU % of one core from the samples in the slice; "API > 100 ms": answers the APIs themselves timed over 100 ms; Temporal's mean persistence and StartWorkflowExecution latency where its metrics answer):`, '');
    out.push('| from s | n | p50 ms | p99 ms | max ms | slow probe requests | machine % | worker % | Temporal % | postgres % | API(s) % | API > 100 ms | Temporal persistence ms | StartWorkflow ms |', '|--:|--:|--:|--:|--:|:--|--:|--:|--:|--:|--:|--:|--:|--:|');
    for (const x of rows) {
      const slow = Object.entries(x.slowByKind).map(([k, n]) => `${n} ${k}`).join(', ') || '—';
      const c = x.cpuPct;
      out.push(`| ${fmt(x.fromS, 0)} | ${x.count} | ${fmt(x.p50)} | ${fmt(x.p99)} | ${fmt(x.max)} | ${slow} | ${fmt(c?.machine ?? NaN, 0)} | ${fmt(c?.worker ?? NaN, 0)} | ${fmt(c?.temporal ?? NaN, 0)} | ${fmt(c?.postgres ?? NaN, 0)} | ${fmt(c?.apis ?? NaN, 0)} | ${fmt(x.apiSlow, 0)} | ${fmt(x.persistenceMeanMs, 2)} | ${fmt(x.startMeanMs, 1)} |`);
    }
    out.push('');
  }
  return out;
}

function variantSection(r: InflightReport): string[] {
  const out = [`### ${r.variant}`, ''];
  const pace = r.createRate ? `paced at ${r.createRate} a second, open loop (at most ${r.concurrency} in flight)` : `closed loop at concurrency ${r.concurrency}`;
  out.push(`Load: ${r.payouts} payouts (\`held_for_review\`), then ${r.charges} charges (${r.chargeExpiryH === undefined ? '\`sandbox_outcome: pending\`' : `bank, on the hosted checkout, \`expires_at\` ${r.chargeExpiryH} h away; afterwards every customer declines on the page`}), created ${pace}; afterwards every payout ${r.decision === 'approve' ? 'approved' : 'rejected'} through the operator's path; probe ${r.probeRate} requests/s open loop (a second merchant: create, read, balances, list, in turn). Load average before ${r.loadBefore.map((l) => fmt(l, 2)).join(', ')}; after ${r.loadAfter?.map((l) => fmt(l, 2)).join(', ') ?? 'n/a'}.`, '');
  if (r.create) {
    const c = r.create.charges;
    const p = r.create.payouts;
    const cs = summarize(c.latencies);
    const ps = summarize(p.latencies);
    out.push(`| creates (${r.createRate ? `paced ${r.createRate}/s` : 'closed loop'}) | ok | failed | wall s | per s | p50 ms | p99 ms |`, '|:--|--:|--:|--:|--:|--:|--:|');
    out.push(`| charges | ${c.ok} | ${c.errorCount} | ${fmt(c.wallS)} | ${fmt(c.ok / c.wallS)} | ${fmt(cs.p50)} | ${fmt(cs.p99)} |`);
    out.push(`| payouts | ${p.ok} | ${p.errorCount} | ${fmt(p.wallS)} | ${fmt(p.ok / p.wallS)} | ${fmt(ps.p50)} | ${fmt(ps.p99)} |`, '');
  }
  if (r.catchUp) out.push(`The workers ${r.catchUp.caughtUp ? 'caught up' : '**had not caught up**'} ${fmt(r.catchUp.seconds, 0)} s after the last create (their tasks' mean schedule-to-start at most 100 ms in two 5 s intervals running; the "catching up" window).`, '');
  if (r.inFlight) out.push(`In flight once caught up (database): ${r.inFlight.charges} charges, ${r.inFlight.payouts} payouts.`, '');
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
  const before = probe.find((w) => w.window === 'before');
  if (before) out.push(...timelineSection(r, GOAL_P99_RATIO * before.p99));
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
  if (r.customers) {
    const c = summarize(r.customers.latencies);
    out.push(`Customers declined on the checkout page: ${r.customers.declined} in ${fmt(r.customers.wallS)} s (p50 ${fmt(c.p50)} ms, p99 ${fmt(c.p99)} ms; ${r.customers.errorCount} failed${r.customers.errors.length ? `, first: ${r.customers.errors[0]}` : ''}).`);
  }
  if (r.resolve && r.chargeExpiryH !== undefined) out.push(`Resolution: every charge ended ${fmt(r.resolve.afterFirstDueS, 0)} s after the customers began to decline (${r.resolve.open} still open).`);
  else if (r.resolve) out.push(`Resolution: every charge ended ${fmt(r.resolve.afterFirstDueS, 0)} s after the first timer was due, ${fmt(r.resolve.afterLastDueS, 0)} s after the last was due (${r.resolve.open} still open).`);
  if (r.approve) {
    const a = summarize(r.approve.latencies);
    out.push(`Payouts ${r.approve.decision === 'approve' ? 'approved' : 'rejected'} through the operator's path (decidePayout): ${r.approve.decided} in ${fmt(r.approve.wallS)} s including their completion (decision p50 ${fmt(a.p50)} ms, p99 ${fmt(a.p99)} ms; ${r.approve.open} not finished).`);
  }
  if (r.counts) {
    out.push('', `Counted at the end: charges ${JSON.stringify(r.counts.chargesByStatus)}; payouts ${JSON.stringify(r.counts.payoutsByStatus)}; events ${JSON.stringify(r.counts.eventsByType)}; resources with a repeated event type: ${r.counts.duplicateEvents}. Ledger check: ${r.ledger}.`);
  }
  if (r.omesBefore && r.omes) out.push('', `omes before the load: ${fmt(r.omesBefore.workflowsPerSecond)} workflows/s (${r.omesBefore.failed} failed); after it: ${fmt(r.omes.workflowsPerSecond)} workflows/s (${r.omes.failed} failed); after ÷ before ${fmt(r.omes.workflowsPerSecond / r.omesBefore.workflowsPerSecond, 2)}×.`);
  out.push(...perPayment(r));
  if (r.omes) {
    const o = r.omes;
    const createRate = r.create ? r.create.charges.ok / r.create.charges.wallS : NaN;
    const resolving = r.windows.find((w) => w.name === 'resolving');
    const endRate = resolving && r.create ? r.create.charges.ok / resolving.seconds : NaN;
    out.push('', `omes \`${o.scenario}\` on the same server after the load (TypeScript worker, ${o.installed}): ${o.iterations} iterations, ${o.failed} failed, ${fmt(o.workflowsPerSecond)} workflows/s (closed loop, ${r.concurrency} in flight).`);
    out.push('', '| divided by omes | per s | ÷ omes |', '|:--|--:|--:|');
    out.push(`| charges created (POST /v1/charges, ${r.createRate ? `paced at ${r.createRate}/s` : 'closed loop'}) | ${fmt(createRate)} | ${fmt(createRate / o.workflowsPerSecond, 2)}× |`);
    out.push(`| charges ended (the resolving window: ${r.chargeExpiryH === undefined ? 'by their timers' : 'their customers declined'}) | ${fmt(endRate)} | ${fmt(endRate / o.workflowsPerSecond, 2)}× |`);
  }
  const inFlight = probe.find((w) => w.window === 'in flight');
  const whole = wholeRun(r.probe ?? []);
  out.push('', '| goal | figure | result |', '|:--|--:|:--|');
  out.push(`| RSS of each worker process at most ${GOAL_RSS_MIB} MiB | ${fmt(max(rss), 0)} MiB | ${max(rss) <= GOAL_RSS_MIB ? 'PASS' : 'FAIL'} |`);
  out.push(`| API p99 over the whole run (creating to the end, ${whole.count} requests) ≤ ${GOAL_P99_RATIO} × before | ${fmt(whole.ratio, 2)}× (${fmt(whole.p99)} ms) | ${whole.ratio <= GOAL_P99_RATIO ? 'PASS' : 'FAIL'} |`);
  out.push(`| (by window, not the goal) API p99 with everything in flight ÷ before | ${inFlight ? fmt(inFlight.ratio, 2) : 'n/a'}× | ${inFlight ? `${fmt(inFlight.p99)} ms` : 'n/a'} |`);
  const catching = probe.find((w) => w.window === 'catching up');
  if (catching) out.push(`| (not a goal) the same while the workers caught up with the creates | ${fmt(catching.ratio, 2)}× | ${fmt(catching.p99)} ms over ${catching.count} requests |`);
  out.push(`| nothing lost, ledger check balanced | ${r.problems.length} problems | ${r.problems.length === 0 ? 'PASS' : 'FAIL'} |`);
  if (r.counts && r.chargeExpiryH === undefined) {
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
