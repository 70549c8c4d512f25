import os from 'node:os';
import type { PhaseResult } from './load';
import type { CpuSnapshot } from './procs';
import { fmt, perSecond, ratio, summarize } from './stats';
import type { WebhookPhaseResult } from './webhooks';

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

const table = (head: string[], body: string[][]) =>
  [`| ${head.join(' | ')} |`, `|${head.map((_, i) => (i === 0 ? ':--' : '--:')).join('|')}|`, ...body.map((r) => `| ${r.join(' | ')} |`)].join('\n');

/** Markdown tables: per phase, then the ratios of the charge phase to the bare baselines, then webhooks. */
export function renderReport(phases: MeasuredPhase[], header: string[], footer: string[], webhooks?: WebhookPhaseResult): string {
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
  if (webhooks) out.push('', ...renderWebhooks(webhooks));
  out.push('', ...footer);
  return out.join('\n');
}

/** The "Webhooks" section: delivery rate, state change → receiver 2xx latency and its stages, checks, CPU. */
export function renderWebhooks(w: WebhookPhaseResult): string[] {
  const c = w.charges;
  const s = summarize(c.create.latenciesMs);
  const spanMs = w.lastDeliveryAtMs - w.firstDeliveryAtMs;
  const cores = os.cpus().length;
  const out = [
    '### Webhooks',
    '',
    `One endpoint (all event types) of a fresh merchant on a local node:http receiver; outbox relay poll ${w.pollMs} ms. ` +
      'Latency = receiver 2xx send time − event created_at (workflow time of the state change), first delivery of each event.',
    '',
    table(
      ['phase', 'create p50 ms', 'p95 ms', 'p99 ms', 'max ms', 'creates/s', 'wall to done s', 'done/s', 'done', 'errors'],
      [[
        c.name,
        fmt(s.p50),
        fmt(s.p95),
        fmt(s.p99),
        fmt(s.max),
        fmt(perSecond(c.create.values.length, c.create.wallMs)),
        fmt(c.completeWallMs / 1000, 2),
        fmt(perSecond(c.completed, c.completeWallMs)),
        `${c.completed}/${c.n}`,
        String(c.create.errors.length + c.completeErrors.length),
      ]],
    ),
    '',
    table(
      ['deliveries', 'events expected', 'missing', 'duplicates', 'bad signatures', 'deliveries/s (first → last delivery)', 'deliveries/s (first POST → last delivery)', 'peak in 1 s', 'wall s'],
      [[
        String(w.requests),
        String(w.expected),
        String(w.missing),
        String(w.duplicates),
        String(w.badSignatures),
        fmt(perSecond(w.requests, spanMs)),
        fmt(perSecond(w.requests, w.lastDeliveryAtMs - w.startedAtMs)),
        String(w.peakPerSecond),
        fmt(w.wallMs / 1000, 2),
      ]],
    ),
    '',
    table(
      ['state change → receiver 2xx', 'count', 'p50 ms', 'p95 ms', 'p99 ms', 'max ms', 'mean ms'],
      Object.keys(w.latencyMsByType)
        .sort((a, b) => (a === 'transaction.created' ? -1 : b === 'transaction.created' ? 1 : a.localeCompare(b)))
        .map((type) => {
          const l = summarize(w.latencyMsByType[type]);
          return [type, String(l.count), fmt(l.p50), fmt(l.p95), fmt(l.p99), fmt(l.max), fmt(l.mean)];
        }),
    ),
    '',
    table(
      ['stage (first attempt)', 'count', 'p50 ms', 'p95 ms', 'p99 ms', 'max ms', 'mean ms'],
      w.stagesMs.map(({ stage, values }) => {
        const l = summarize(values);
        return [stage, String(l.count), fmt(l.p50), fmt(l.p95), fmt(l.p99), fmt(l.max), fmt(l.mean)];
      }),
    ),
    '',
    table(
      ['phase (CPU seconds during the phase)', 'Node process', 'temporal dev server', 'postgres', 'other', 'machine busy', 'Node main-thread ELU'],
      [[
        'charges + webhooks',
        fmt(w.cpu.node),
        fmt(w.cpu.temporal),
        fmt(w.cpu.postgres),
        fmt(Math.max(0, w.cpu.machine - w.cpu.node - w.cpu.temporal - w.cpu.postgres)),
        `${fmt((100 * w.cpu.machine) / ((w.wallMs / 1000) * cores), 0)} % of ${cores} cores`,
        `${fmt(100 * w.elu, 0)} %`,
      ]],
    ),
  ];
  const notes: string[] = [];
  if (w.timedOut) notes.push('- the wait for deliveries timed out');
  if (w.unexpected) notes.push(`- ${w.unexpected} received event ids are not events of this merchant`);
  if (w.strays) notes.push(`- ${w.strays} requests to unknown receiver paths`);
  const errors = [...c.create.errors, ...c.completeErrors].slice(0, 3).map((e) => `- charge: ${e}`);
  notes.push(...errors, ...w.problems.map((p) => `- ${p}`));
  out.push('', `Peak RSS at the end of the webhook phase: Node process ${fmt(w.peakRss.node, 0)} MiB; Temporal dev server ${fmt(w.peakRss.temporal, 0)} MiB.`);
  if (notes.length) out.push('', 'Webhook problems:', ...notes);
  return out;
}
