import os from 'node:os';
import type { PhaseResult } from './load';
import type { CpuSnapshot } from './procs';
import { fmt, perSecond, ratio, summarize } from './stats';

export interface MeasuredPhase {
  result: PhaseResult;
  cpu: CpuSnapshot;
  /** Fixed timer inside each workflow (0 for none). */
  delayMs: number;
  /** Event-loop utilisation of this process's main thread (API, load, worker core) during the phase. */
  elu: number;
}

export function machineLine(): string {
  const cpus = os.cpus();
  return `${cpus.length} × ${cpus[0]?.model.trim() ?? 'unknown CPU'}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB RAM, ${os.type()} ${os.release()}, Node ${process.version}`;
}

/** Markdown tables: per phase, then the ratios of the charge phase to the bare baselines. */
export function renderReport(phases: MeasuredPhase[], header: string[], footer: string[]): string {
  const rows = phases.map(({ result: r, delayMs }) => {
    const s = summarize(r.create.latenciesMs);
    const errors = r.create.errors.length + r.completeErrors.length;
    return [
      r.name,
      fmt(s.p50),
      fmt(s.p95),
      fmt(s.p99),
      fmt(s.max),
      fmt(perSecond(r.create.values.length, r.create.wallMs)),
      fmt(r.completeWallMs / 1000, 2),
      fmt(perSecond(r.completed, r.completeWallMs)),
      delayMs ? fmt(perSecond(r.completed, r.completeWallMs - delayMs)) : '–',
      `${r.completed}/${r.n}`,
      String(errors),
      fmt(r.historyLength, 0),
    ];
  });
  const table = (head: string[], body: string[][]) =>
    [`| ${head.join(' | ')} |`, `|${head.map((_, i) => (i === 0 ? ':--' : '--:')).join('|')}|`, ...body.map((r) => `| ${r.join(' | ')} |`)].join('\n');

  const out = [...header, ''];
  out.push(
    table(
      ['phase', 'create p50 ms', 'p95 ms', 'p99 ms', 'max ms', 'creates/s', 'wall to done s', 'done/s', 'done/s after delay', 'done', 'errors', 'history events'],
      rows,
    ),
  );
  const cores = os.cpus().length;
  out.push('', table(
    ['phase (CPU seconds during the phase)', 'Node process', 'temporal dev server', 'postgres', 'other', 'machine busy', 'Node main-thread ELU'],
    phases.map(({ result: r, cpu, elu }) => [
      r.name,
      fmt(cpu.node),
      fmt(cpu.temporal),
      fmt(cpu.postgres),
      fmt(Math.max(0, cpu.machine - cpu.node - cpu.temporal - cpu.postgres)),
      `${fmt((100 * cpu.machine) / ((r.completeWallMs / 1000) * cores), 0)} % of ${cores} cores`,
      `${fmt(100 * elu, 0)} %`,
    ]),
  ));

  const [charge, ...bare] = phases;
  if (charge && bare.length) {
    const c = summarize(charge.result.create.latenciesMs);
    const cRate = perSecond(charge.result.create.values.length, charge.result.create.wallMs);
    const cDone = perSecond(charge.result.completed, charge.result.completeWallMs);
    out.push('', table(
      ['charge ÷ baseline', 'create p50', 'p95', 'p99', 'creates/s', 'done/s', 'wall to done'],
      bare.map(({ result: b }) => {
        const s = summarize(b.create.latenciesMs);
        return [
          b.name,
          ratio(c.p50, s.p50),
          ratio(c.p95, s.p95),
          ratio(c.p99, s.p99),
          ratio(cRate, perSecond(b.create.values.length, b.create.wallMs)),
          ratio(cDone, perSecond(b.completed, b.completeWallMs)),
          ratio(charge.result.completeWallMs, b.completeWallMs),
        ];
      }),
    ));
  }
  const firstErrors = phases.flatMap((p) => [...p.result.create.errors, ...p.result.completeErrors].slice(0, 3).map((e) => `- ${p.result.name}: ${e}`));
  if (firstErrors.length) out.push('', 'First errors:', ...firstErrors);
  out.push('', ...footer);
  return out.join('\n');
}
