import type { CheckResult } from './checks/check';
import type { DrainOutcome } from './drain';
import type { InjectedFault } from './faults';
import type { LoadGenerator } from './load';
import type { RequestLog } from './request-log';
import type { FaultKind } from './schedule';

export interface ChaosSummary {
  seed: number;
  faults: number;
  requests: number;
  payments_checked: number;
  violations: number;
  /** Per fault kind injected: its longest recovery in seconds (null: one did not recover). */
  longest_recovery_s: Partial<Record<FaultKind, number | null>>;
  mode: 'short' | 'full';
  temporal: 'server' | 'dev';
  duration_s: number;
  not_applicable: FaultKind[];
  /** The history check (checks/history.ts): acknowledged creates whose resource is gone; keys that made more than one resource; resources with another amount than asked or acknowledged. */
  acknowledged_lost: number | null;
  duplicates_by_key: number | null;
  amount_mismatches: number | null;
}

export function longestRecovery(faults: InjectedFault[]): Partial<Record<FaultKind, number | null>> {
  const out: Partial<Record<FaultKind, number | null>> = {};
  for (const f of faults) {
    const prev = out[f.kind];
    out[f.kind] = prev === null || f.recoveryS === null ? null : Math.max(prev ?? 0, f.recoveryS);
  }
  return out;
}

function statusCounts(log: RequestLog): string {
  const counts = new Map<string, number>();
  for (const r of log.records) counts.set(String(r.status || 'no answer'), (counts.get(String(r.status || 'no answer')) ?? 0) + 1);
  return [...counts].sort().map(([s, n]) => `${s}: ${n}`).join(', ');
}

/** The report's lines; the last is one JSON object (ChaosSummary). */
export function reportLines(input: {
  summary: ChaosSummary;
  faults: InjectedFault[];
  log: RequestLog;
  load: LoadGenerator;
  checks: CheckResult[];
  drain: DrainOutcome;
}): string[] {
  const { summary, faults, log, load, checks, drain } = input;
  const lines: string[] = [];
  lines.push(`chaos run: seed ${summary.seed}, ${summary.mode} mode, Temporal ${summary.temporal}, load for ${summary.duration_s} s`);
  lines.push(`faults injected: ${faults.length}${summary.not_applicable.length ? ` (not applicable here: ${summary.not_applicable.join(', ')})` : ''}`);
  for (const f of faults) {
    const what = `${f.kind}${f.target ? ` ${f.target}` : ''}${f.pids.length ? ` pid ${f.pids.slice(0, 3).join(',')}${f.pids.length > 3 ? ` +${f.pids.length - 3}` : ''}` : ''}`;
    const rec = f.recoveryS === null ? 'NOT recovered' : `recovered in ${f.recoveryS} s${f.restarted ? ' (restarted)' : ''}`;
    lines.push(`  #${f.n} ${new Date(f.startedAt).toISOString()} ${what}: ${rec}${f.note ? `; ${f.note}` : ''}`);
  }
  lines.push(`requests sent: ${log.count()} (load ${log.count('load')}, probes ${log.count('probe')}); answers ${statusCounts(log)}`);
  lines.push(`load: ${Object.entries(load.counts).map(([k, v]) => `${k} ${v}`).join(', ')}; creates answered only after retries ${load.retried}, never answered ${load.gaveUp}; settlement runs refused ${load.settlementFailures.length}`);
  for (const f of load.settlementFailures.slice(0, 3)) lines.push(`  settlement run refused: ${f.slice(0, 200)}`);
  lines.push(`drain after the load: ${drain.settled ? `settled in ${drain.seconds} s` : `still moving after ${drain.seconds} s: ${drain.remaining}`}`);
  lines.push(`payments checked: ${summary.payments_checked}`);
  lines.push(`checks:`);
  for (const c of checks) {
    lines.push(`  [${c.violationCount === 0 ? 'ok' : 'FAIL'}] ${c.name}: ${c.checked} checked, ${c.violationCount} violation(s)`);
    for (const n of c.notes) lines.push(`      ${n}`);
    for (const v of c.violations) lines.push(`      - ${v}`);
  }
  lines.push(`violations: ${summary.violations}`);
  lines.push(`longest recovery per fault kind: ${Object.entries(summary.longest_recovery_s).map(([k, v]) => `${k} ${v === null ? 'not recovered' : `${v} s`}`).join(', ')}`);
  lines.push(JSON.stringify(summary));
  return lines;
}
