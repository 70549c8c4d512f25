import os from 'node:os';
import { COUNTER } from './cost-counters';
import type { CostMeasurement } from './cost-measure';
import type { HistoryCount, WorkflowMix } from './cost-history';
import type { PhaseResult } from '../shared/load';
import { fmt, perSecond, summarize } from '../shared/stats';

export type CostColumn = 'charge' | 'payout' | 'bare-start' | 'bare-activity' | 'omes';

export const COLUMN_TITLES: Record<CostColumn, string> = {
  charge: 'charge (with its deliveries)',
  payout: 'payout',
  'bare-start': 'bare: start, returns at once',
  'bare-activity': 'bare: start, one activity',
  omes: 'omes: workflow_with_single_noop_activity',
};

/** One measured phase of the cost mode. */
export interface CostPhase {
  column: CostColumn;
  /** Items completed (charges succeeded and delivered, payouts succeeded, workflows completed). */
  items: number;
  /** The bench's own phase figures (not for omes). */
  result?: PhaseResult;
  /** The charge phase: deliveries expected and made, and first request → last delivery. */
  deliveries?: { expected: number; delivered: number; wallMs: number; perCharge: number };
  /** omes's own completion rate. */
  omes?: { iterations: number; wallS: number; perS: number };
  cost: CostMeasurement;
  /** The workflows the phase started, by type (visibility), or why they could not be listed. */
  workflows?: WorkflowMix | { error: string };
  histories: Array<HistoryCount | { kind: string; workflowId: string; error: string }>;
}

export interface CostVariantReport {
  name: string;
  title: string;
  topology: boolean;
  notes: string[];
  phases: CostPhase[];
  /** Lines for phases that did not run (omes not installed, a failure). */
  skipped: string[];
  profiles: string[];
  failure?: string;
}

const COLUMNS: CostColumn[] = ['charge', 'payout', 'bare-start', 'bare-activity', 'omes'];
const ms = (s: number) => s * 1000;
const namedCpu = (c: CostMeasurement['cpu']) => c.node + c.worker + c.temporal + c.postgres + c.apis;
const counter = (p: CostPhase, label: string) => p.cost.counters.server?.[label] ?? p.cost.counters.sdk?.[label];
const histories = (p: CostPhase) => p.histories.filter((h): h is HistoryCount => 'events' in h);

/**
 * History events per item: for each workflow type the phase started, workflows per item × the
 * events of one of them (all of a charge's: its own, its deliveries', any other it causes). Without
 * the list (visibility failed): the sampled workflows, a charge's deliveries at deliveries per charge.
 */
function historyPerItem(p: CostPhase): number {
  const h = histories(p);
  const mix = p.workflows && !('error' in p.workflows) ? p.workflows : undefined;
  if (mix && p.items > 0) {
    let sum = 0;
    for (const [type, n] of Object.entries(mix.byType)) {
      const one = h.find((x) => x.kind === type);
      if (!one) return NaN;
      sum += (n / p.items) * one.events;
    }
    return sum;
  }
  if (p.column === 'charge') {
    const charge = h.find((x) => x.kind === 'charge');
    const delivery = h.find((x) => x.kind === 'webhook delivery');
    return (charge?.events ?? NaN) + (p.deliveries?.perCharge ?? 0) * (delivery?.events ?? 0);
  }
  return h[0]?.events ?? NaN;
}

/** CPU-ms per item of each process group and the counts per item, one row each. */
function budgetRows(topology: boolean, sqlServers: string[]): Array<[string, (p: CostPhase) => number, number]> {
  const perItem = (f: (p: CostPhase) => number) => (p: CostPhase) => (p.items > 0 ? f(p) / p.items : NaN);
  type Reading = CostPhase['cost']['sql'][number];
  const sql = (f: (r: Reading) => number, server?: string) => (p: CostPhase) => {
    const readings = p.cost.sql.filter((r) => !r.unavailable && (server === undefined || r.server === server));
    return readings.length ? readings.reduce((s, r) => s + f(r), 0) : NaN;
  };
  // One server: its figures; several (the topology): each apart, then their sum.
  const sqlRows = (label: string, f: (r: Reading) => number, digits: number): Array<[string, (p: CostPhase) => number, number]> =>
    sqlServers.length > 1 ? [...sqlServers.map((server): [string, (p: CostPhase) => number, number] => [`${label}: ${server}`, perItem(sql(f, server)), digits]), [`${label}: both`, perItem(sql(f)), digits]] : [[label, perItem(sql(f)), digits]];
  return [
    [topology ? 'API CPU-ms (both API processes, the proxy, the fake partner, the supervisor)' : 'API CPU-ms (the bench process: API, load generator, receiver, bare worker)', perItem((p) => ms(topology ? p.cost.cpu.apis : p.cost.cpu.node)), 2],
    ...(topology ? ([['bench process CPU-ms (load generator, receiver, bare worker)', perItem((p) => ms(p.cost.cpu.node)), 2]] as Array<[string, (p: CostPhase) => number, number]>) : []),
    [topology ? 'worker CPU-ms (both worker processes)' : 'worker process CPU-ms', perItem((p) => ms(p.cost.cpu.worker)), 2],
    [topology ? 'Temporal CPU-ms (server and its UI)' : 'Temporal CPU-ms (dev server)', perItem((p) => ms(p.cost.cpu.temporal)), 2],
    [topology ? 'PostgreSQL CPU-ms (service and Temporal)' : 'PostgreSQL CPU-ms', perItem((p) => ms(p.cost.cpu.postgres)), 2],
    ['other CPU-ms (machine minus the above)', perItem((p) => ms(p.cost.cpu.machine - namedCpu(p.cost.cpu))), 2],
    ['**total CPU-ms (the named processes)**', perItem((p) => ms(namedCpu(p.cost.cpu))), 2],
    ['workflow tasks (server: RespondWorkflowTaskCompleted)', perItem((p) => counter(p, COUNTER.workflowTasks) ?? NaN), 2],
    ['activity tasks (server: RespondActivityTaskCompleted)', perItem((p) => counter(p, COUNTER.activityTasks) ?? NaN), 2],
    ['local activities (SDK)', perItem((p) => counter(p, COUNTER.localActivities) ?? NaN), 2],
    ['workflows started', perItem((p) => (p.workflows && !('error' in p.workflows) ? Object.values(p.workflows.byType).reduce((a, b) => a + b, 0) : NaN)), 2],
    ['history events (workflows per item × fetchHistory of one of each type)', historyPerItem, 1],
    ['persistence requests (server, every namespace)', perItem((p) => counter(p, COUNTER.persistence) ?? NaN), 1],
    ['of which namespace default', perItem((p) => counter(p, COUNTER.persistenceDefault) ?? NaN), 1],
    ...sqlRows('SQL statements (pg_stat_statements)', (r) => r.calls, 1),
    ...sqlRows('SQL exec ms', (r) => r.execMs, 2),
  ];
}

function phaseLine(p: CostPhase): string {
  const r = p.result;
  if (!r) return `| ${COLUMN_TITLES[p.column]} | ${p.items} | | | | | | ${fmt(p.omes?.perS ?? NaN, 1)} | | ${fmt(p.cost.load1, 2)} |`;
  const s = summarize(r.create.latenciesMs);
  const over1s = r.create.latenciesMs.filter((l) => l > 1000).length;
  const errors = r.create.errors.length + r.completeErrors.length;
  const deliveries = p.deliveries ? `${p.deliveries.delivered}/${p.deliveries.expected} (${fmt(perSecond(p.items, p.deliveries.wallMs), 1)} charges/s to the last delivery)` : '';
  return `| ${COLUMN_TITLES[p.column]} | ${p.items}/${r.n}${errors ? ` (${errors} errors)` : ''} | ${fmt(s.p50)} | ${fmt(s.p99)} | ${fmt(s.max)} | ${over1s} | ${fmt(perSecond(r.create.values.length, r.create.wallMs), 1)} | ${fmt(perSecond(r.completed, r.completeWallMs), 1)} | ${deliveries} | ${fmt(p.cost.load1, 2)} |`;
}

const cell = (s: string) => s.replace(/\|/g, '\\|');

function ratios(byColumn: Map<CostColumn, CostPhase>): string[] {
  const charge = byColumn.get('charge');
  const bareAct = byColumn.get('bare-activity');
  const bareStart = byColumn.get('bare-start');
  const cpuPer = (p?: CostPhase) => (p && p.items > 0 ? namedCpu(p.cost.cpu) / p.items : NaN);
  const rate = (p?: CostPhase) => (p?.result ? perSecond(p.result.completed, p.result.completeWallMs) : NaN);
  const p99 = (p?: CostPhase) => (p?.result ? summarize(p.result.create.latenciesMs).p99 : NaN);
  const r = (a: number, b: number) => (Number.isFinite(a) && Number.isFinite(b) && b > 0 ? a / b : NaN);
  const cpuRatio = r(cpuPer(charge), cpuPer(bareAct));
  const rateRatio = r(rate(charge), rate(bareAct));
  const p99Ratio = r(p99(charge), p99(bareStart));
  const over1s = charge?.result ? charge.result.create.latenciesMs.filter((l) => l > 1000).length : NaN;
  const verdict = (ok: boolean | undefined) => (ok === undefined ? 'n/a' : ok ? 'met' : 'not met');
  const known = (v: number) => (Number.isFinite(v) ? v : undefined);
  return [
    '| issue 48 ratio | measured | target | verdict |',
    '|:--|--:|--:|:--|',
    `| CPU per completed charge (with deliveries) ÷ CPU per bare one-activity workflow | ${fmt(cpuRatio, 2)} (${fmt(ms(cpuPer(charge)), 1)} ÷ ${fmt(ms(cpuPer(bareAct)), 1)} ms) | ≤ 2.2 | ${verdict(known(cpuRatio) === undefined ? undefined : cpuRatio <= 2.2)} |`,
    `| charge completions/s ÷ bare one-activity completions/s | ${fmt(rateRatio, 2)} (${fmt(rate(charge), 1)} ÷ ${fmt(rate(bareAct), 1)}) | ≥ 0.4 | ${verdict(known(rateRatio) === undefined ? undefined : rateRatio >= 0.4)} |`,
    `| charge create p99 ÷ bare start p99 | ${fmt(p99Ratio, 2)} (${fmt(p99(charge))} ÷ ${fmt(p99(bareStart))} ms) | ≤ 1.5 | ${verdict(known(p99Ratio) === undefined ? undefined : p99Ratio <= 1.5)} |`,
    `| charge creates over 1 s | ${Number.isFinite(over1s) ? over1s : 'n/a'} | 0 | ${verdict(Number.isFinite(over1s) ? over1s === 0 : undefined)} |`,
  ];
}

function renderVariant(v: CostVariantReport): string[] {
  const byColumn = new Map(v.phases.map((p) => [p.column, p] as const));
  const cols = COLUMNS.filter((c) => byColumn.has(c));
  const out: string[] = [`### ${v.title}`, '', ...v.notes.map((n) => `- ${n}`), ...v.skipped.map((s) => `- Skipped: ${s}`), ''];
  if (v.failure) out.push(`**Failed: ${v.failure}**`, '');
  if (cols.length === 0) return out;
  out.push('Per completed item (charge, payout, workflow); every figure is the phase total divided by the items it completed.', '');
  out.push(`| per item | ${cols.map((c) => COLUMN_TITLES[c]).join(' | ')} |`, `|:--|${cols.map(() => '--:').join('|')}|`);
  for (const [label, f, digits] of budgetRows(v.topology, [...new Set(v.phases.flatMap((p) => p.cost.sql.map((r) => r.server)))])) out.push(`| ${label} | ${cols.map((c) => fmt(f(byColumn.get(c)!), digits)).join(' | ')} |`);
  out.push('', ...ratios(byColumn), '');
  out.push('| phase | done | create p50 | p99 | max | creates > 1 s | creates/s | completions/s (first request → last completion) | deliveries | load avg at end |', '|:--|--:|--:|--:|--:|--:|--:|--:|:--|--:|');
  for (const p of v.phases) out.push(phaseLine(p));
  out.push('');
  // Temporal's and the SDK's other counts, per item.
  const labels = [...new Set(v.phases.flatMap((p) => [...Object.keys(p.cost.counters.server ?? {}), ...Object.keys(p.cost.counters.sdk ?? {})]))];
  if (labels.length) {
    out.push(`| Temporal counts per item | ${cols.map((c) => COLUMN_TITLES[c]).join(' | ')} |`, `|:--|${cols.map(() => '--:').join('|')}|`);
    for (const l of labels) out.push(`| ${l} | ${cols.map((c) => { const p = byColumn.get(c)!; const n = counter(p, l); return n === undefined || p.items === 0 ? 'n/a' : fmt(n / p.items, 2); }).join(' | ')} |`);
    out.push('');
    out.push('Persistence requests by operation, per item (the 10 largest of each phase):', '');
    for (const p of v.phases) {
      const ops = (p.cost.counters.persistenceByOperation ?? []).slice(0, 10);
      if (ops.length) out.push(`- ${COLUMN_TITLES[p.column]}: ${ops.map(([op, n]) => `${op} ${fmt(n / Math.max(1, p.items), 2)}`).join(', ')}`);
    }
    out.push('');
  }
  // The workflows each phase started, and the history of one of each type.
  if (v.phases.some((p) => p.histories.length)) {
    out.push('| phase | workflow type | per item | id (the median of up to 5 sampled) | events | by type |', '|:--|:--|--:|:--|--:|:--|');
    for (const p of v.phases) {
      const mix = p.workflows && !('error' in p.workflows) ? p.workflows : undefined;
      if (p.workflows && 'error' in p.workflows) out.push(`| ${COLUMN_TITLES[p.column]} | (visibility list failed: ${cell(p.workflows.error)}) | | | | |`);
      for (const h of p.histories) {
        const per = mix ? fmt((mix.byType[h.kind] ?? 0) / Math.max(1, p.items), 2) : 'n/a';
        if ('error' in h) out.push(`| ${COLUMN_TITLES[p.column]} | ${h.kind} | ${per} | ${h.workflowId} | n/a | ${cell(h.error)} |`);
        else out.push(`| ${COLUMN_TITLES[p.column]} | ${h.kind} | ${per} | ${h.workflowId} | ${h.events}${h.of && h.of > 1 ? ` (median of ${h.of}: ${h.range?.[0]}–${h.range?.[1]})` : ''} | ${Object.entries(h.byType).sort((a, b) => b[1] - a[1]).map(([t, n]) => `${t} ${n}`).join(', ')} |`);
      }
    }
    out.push('');
  }
  // pg_stat_statements: the top statements of each phase that ran SQL.
  for (const p of v.phases) {
    for (const r of p.cost.sql) {
      if (r.unavailable) {
        out.push(`- pg_stat_statements on ${r.server} (${COLUMN_TITLES[p.column]}): unavailable: ${r.unavailable}`);
        continue;
      }
      if (r.calls === 0) continue;
      const n = Math.max(1, p.items);
      out.push('', `SQL on ${r.server}, ${COLUMN_TITLES[p.column]}: ${fmt(r.calls / n, 1)} statements and ${fmt(r.execMs / n, 2)} exec ms per item (${r.calls} statements, ${fmt(r.execMs, 0)} ms in all). Top ${r.top.length} by execution time:`, '');
      out.push('| statement | calls per item | exec ms per item | rows per call |', '|:--|--:|--:|--:|');
      for (const s of r.top) out.push(`| \`${cell(s.query.length > 160 ? `${s.query.slice(0, 157)}…` : s.query)}\` | ${fmt(s.calls / n, 2)} | ${fmt(s.execMs / n, 3)} | ${fmt(s.rows / Math.max(1, s.calls), 1)} |`);
    }
  }
  out.push('');
  if (v.profiles.length) out.push('#### CPU profiles', '', ...v.profiles, '');
  return out;
}

export function renderCostReport(header: string[], variants: CostVariantReport[], footer: string[]): string {
  return [
    '## The cost of a charge (`npm run bench -- --only cost`, issue 48)',
    '',
    ...header,
    '',
    ...variants.flatMap(renderVariant),
    ...footer,
    `Load average at the end: ${os.loadavg().map((l) => l.toFixed(2)).join(', ')}.`,
  ].join('\n');
}
