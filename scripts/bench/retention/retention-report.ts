import { fmt, summarize, type Summary } from '../shared/stats';

/**
 * The retention bench's figures and verdict (scripts/bench/retention/retention.ts), pure: what a window's
 * samples summarize to, the during/before ratios, what must fail the run, and the Markdown.
 */

/** Issue 34: the API's p99 while the job runs at most this many times its p99 before. */
export const P99_GOAL_RATIO = 1.2;

export type LoopKind = 'open' | 'closed';
export type WindowName = 'before' | 'during' | 'after';

export interface Sample {
  /** The request's kind in the mix (create, get_charge, balances, events). */
  kind: string;
  ms: number;
  /** Epoch milliseconds: when it was due (open loop) or sent (closed loop), and when it was answered. */
  start?: number;
  end?: number;
}

/** An interval (epoch milliseconds) in which one of the job's batch statements ran (its activity, from the history). */
export interface Interval {
  start: number;
  end: number;
}

/**
 * The samples of a window split by whether they overlapped one of the job's batches: the same
 * window and the same machine, so a change of the machine's load touches both groups alike.
 * Samples without times go to neither.
 */
export function splitByOverlap(samples: readonly Sample[], batches: readonly Interval[]): { overlapping: Sample[]; clear: Sample[] } {
  const sorted = [...batches].sort((a, b) => a.start - b.start);
  const overlapping: Sample[] = [];
  const clear: Sample[] = [];
  for (const s of samples) {
    if (s.start === undefined || s.end === undefined) continue;
    const { start, end } = s;
    (sorted.some((b) => b.start < end && start < b.end) ? overlapping : clear).push(s);
  }
  return { overlapping, clear };
}

export interface WindowRun {
  name: WindowName;
  wallMs: number;
  open: Sample[];
  closed: Sample[];
  errors: string[];
  /** CPU seconds over the window. */
  cpu: { postgres: number; worker: number; temporal: number; api: number; machine: number };
}

/** A set of seeded rows: `mustGo` rows are past their window, the others must all still be there. */
export interface RowGroup {
  table: string;
  label: string;
  where: string;
  seeded: number;
  mustGo: boolean;
}

export interface RetentionBenchRun {
  variant: string;
  windows: WindowRun[];
  /** The job: the workflow's result and how long it ran (start to result). */
  job: { workflowId: string; ms: number; batches: number; continuations: number; deleted: Record<string, number>; plan: { batch: number; pauseMs: number } };
  groups: RowGroup[];
  groupsBefore: number[];
  groupsAfter: number[];
  tablesBefore: Record<string, number>;
  tablesAfter: Record<string, number>;
  rate: number;
  closedConcurrency: number;
  /** The job's batch activities (start to completion), from the last run's history. */
  batches?: Interval[];
}

export function summarizeLoop(samples: readonly Sample[]): Summary {
  return summarize(samples.map((s) => s.ms));
}

/** p99 during (or after) over p99 before; NaN when either is missing. */
export function p99Ratio(before: readonly Sample[], other: readonly Sample[]): number {
  const a = summarizeLoop(before).p99;
  const b = summarizeLoop(other).p99;
  return a > 0 && Number.isFinite(b) ? b / a : NaN;
}

/** What fails the run: a request that failed, a kept row deleted, a row past its window left. */
export function failures(run: RetentionBenchRun): string[] {
  const out: string[] = [];
  for (const w of run.windows) if (w.errors.length) out.push(`${run.variant}: ${w.errors.length} request(s) failed ${w.name} the job, first: ${w.errors[0]}`);
  run.groups.forEach((g, i) => {
    const before = run.groupsBefore[i];
    const after = run.groupsAfter[i];
    if (before !== g.seeded) out.push(`${run.variant}: ${g.table} ${g.label}: ${before} rows before the job, ${g.seeded} seeded`);
    if (!g.mustGo && after !== before) out.push(`${run.variant}: ${g.table} ${g.label} must be kept: ${before - after} of ${before} deleted`);
    if (g.mustGo && after !== 0) out.push(`${run.variant}: ${g.table} ${g.label} is past its window: ${after} of ${before} left after the job`);
  });
  return out;
}

/** Whether the job disturbed the API's p99 beyond the goal, for the open loop (the figure the goal reads). */
export function disturbed(run: RetentionBenchRun): boolean {
  const w = (name: WindowName) => run.windows.find((x) => x.name === name);
  const r = p99Ratio(w('before')?.open ?? [], w('during')?.open ?? []);
  return !(r <= P99_GOAL_RATIO);
}

/**
 * The reading of the open loop: `met` (during within the goal), `not met` (during above it while the
 * window after the job is back within it: the job's doing), or `inconclusive` (the window after the
 * job is above the goal too: the machine's load changed under the run, so the ratio is not the job's).
 */
export function verdict(run: RetentionBenchRun): 'met' | 'not met' | 'inconclusive' {
  if (!disturbed(run)) return 'met';
  const w = (name: WindowName) => run.windows.find((x) => x.name === name)?.open ?? [];
  return p99Ratio(w('before'), w('after')) <= P99_GOAL_RATIO ? 'not met' : 'inconclusive';
}

const x = (r: number) => (Number.isFinite(r) ? `${r.toFixed(2)}×` : 'n/a');

export function renderRun(run: RetentionBenchRun): string {
  const out: string[] = [];
  // `--concurrency 0`: the open loop alone.
  const loops = run.closedConcurrency > 0 ? (['open', 'closed'] as const) : (['open'] as const);
  const before = run.windows.find((w) => w.name === 'before');
  out.push(`### ${run.variant}`, '');
  out.push(
    `The job: \`${run.job.workflowId}\` (batch ${run.job.plan.batch}, pause ${run.job.plan.pauseMs} ms) ran ${(run.job.ms / 1000).toFixed(1)} s, ${run.job.batches} batches, ${run.job.continuations} continue-as-new.`,
    '',
  );
  out.push(`| window | loop | requests | wall s | p50 ms | p99 ms | max ms | p99 / before | errors |`, '|---|---|---|---|---|---|---|---|---|');
  for (const w of run.windows) {
    for (const loop of loops) {
      const s = summarizeLoop(w[loop]);
      const label = loop === 'open' ? `open, ${run.rate}/s offered` : `closed, ${run.closedConcurrency} in flight`;
      out.push(`| ${w.name} | ${label} | ${s.count} | ${(w.wallMs / 1000).toFixed(1)} | ${fmt(s.p50)} | ${fmt(s.p99)} | ${fmt(s.max)} | ${w.name === 'before' ? '—' : x(p99Ratio(before?.[loop] ?? [], w[loop]))} | ${w.errors.length} |`);
    }
  }
  const during = run.windows.find((w) => w.name === 'during');
  if (during && run.batches?.length) {
    const busy = run.batches.reduce((sum, b) => sum + (b.end - b.start), 0);
    out.push('', `During the job, by whether a request overlapped one of its ${run.batches.length} batch statements (${(busy / 1000).toFixed(1)} s in all):`, '');
    out.push('| loop | overlapping: requests | p50 ms | p99 ms | clear: requests | p50 ms | p99 ms | p99 overlapping / clear |', '|---|---|---|---|---|---|---|---|');
    for (const loop of loops) {
      const { overlapping, clear } = splitByOverlap(during[loop], run.batches);
      const o = summarizeLoop(overlapping);
      const c = summarizeLoop(clear);
      out.push(`| ${loop} | ${o.count} | ${fmt(o.p50)} | ${fmt(o.p99)} | ${c.count} | ${fmt(c.p50)} | ${fmt(c.p99)} | ${x(p99Ratio(clear, overlapping))} |`);
    }
  }
  out.push('', 'Open loop p99 by request kind (ms):', '');
  const kinds = [...new Set(run.windows.flatMap((w) => w.open.map((s) => s.kind)))].sort();
  out.push(`| kind | ${run.windows.map((w) => w.name).join(' | ')} |`, `|---|${run.windows.map(() => '---').join('|')}|`);
  for (const k of kinds) out.push(`| ${k} | ${run.windows.map((w) => fmt(summarizeLoop(w.open.filter((s) => s.kind === k)).p99)).join(' | ')} |`);
  out.push('', 'CPU seconds in each window (share of one core):', '', '| window | postgres | worker | temporal | API (+ load) | machine busy |', '|---|---|---|---|---|---|');
  for (const w of run.windows) {
    const c = (v: number) => `${v.toFixed(1)} (${w.wallMs > 0 ? Math.round((100 * v * 1000) / w.wallMs) : 0} %)`;
    out.push(`| ${w.name} | ${c(w.cpu.postgres)} | ${c(w.cpu.worker)} | ${c(w.cpu.temporal)} | ${c(w.cpu.api)} | ${c(w.cpu.machine)} |`);
  }
  out.push('', 'Rows (seeded groups, counted before and after the job):', '', '| table | group | must | seeded | before | after |', '|---|---|---|---|---|---|');
  run.groups.forEach((g, i) => out.push(`| ${g.table} | ${g.label} | ${g.mustGo ? 'go' : 'stay'} | ${g.seeded} | ${run.groupsBefore[i]} | ${run.groupsAfter[i]} |`));
  out.push('', '| table | rows before | rows after | deleted (the job says) |', '|---|---|---|---|');
  for (const t of Object.keys(run.tablesBefore)) out.push(`| ${t} | ${run.tablesBefore[t]} | ${run.tablesAfter[t]} | ${run.job.deleted[t] ?? '—'} |`);
  return out.join('\n');
}
