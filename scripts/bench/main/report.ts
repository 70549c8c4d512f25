import os from 'node:os';
import type { PhaseResult } from '../shared/load';
import type { CpuSnapshot, PeakRss } from '../shared/procs';
import { fmt, perSecond, ratio, summarize } from '../shared/stats';
import type { Issue19Report } from '../webhooks/issue19';
import { renderRateLimit, type RateLimitBench } from '../ratelimit/ratelimit';
import { isVoid, judgeIssue19, SLOW_CREATE_MS, type Issue19Line, type TargetLine } from './targets';
import type { WebhookPhaseResult } from '../webhooks/webhooks';

export interface MeasuredPhase {
  result: PhaseResult;
  cpu: CpuSnapshot;
  /** Fixed timer inside each workflow (0 for none). */
  delayMs: number;
  /** Event-loop utilisation of this process's main thread (API, load, in-process workers) during the phase. */
  elu: number;
}

/** Everything measured on one variant's servers. */
export interface VariantReport {
  name: string;
  title: string;
  notes: string[];
  /** The charge phase first (when `charged`), then the bare baselines. */
  phases: MeasuredPhase[];
  /** Whether phases[0] is the charge phase (not with `--only webhooks`). */
  charged: boolean;
  /** The payout create phase (none when the variant stopped before it), shown beside the charge phase. */
  payouts: MeasuredPhase[];
  webhooks: Array<{ title: string; result: WebhookPhaseResult }>;
  /** Issue 19's phases, when they ran (filled phase by phase). */
  issue19?: Issue19Report;
  /** Issue 20's rate-limit phase, when it ran. */
  rateLimit?: RateLimitBench;
  targets: TargetLine[];
  rss: PeakRss;
  wallS: number;
  /** Why the variant stopped early or is not trustworthy (worker exited, setup failed). */
  failure?: string;
}

export function machineLine(): string {
  const cpus = os.cpus();
  return `${cpus.length} × ${cpus[0]?.model.trim() ?? 'unknown CPU'}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB RAM, ${os.type()} ${os.release()}, Node ${process.version}`;
}

const table = (head: string[], body: string[][]) =>
  [`| ${head.join(' | ')} |`, `|${head.map((_, i) => (i === 0 ? ':--' : '--:')).join('|')}|`, ...body.map((r) => `| ${r.join(' | ')} |`)].join('\n');

const slow = (latencies: readonly number[]) => String(latencies.filter((ms) => ms > SLOW_CREATE_MS).length);
const cores = () => os.cpus().length;

function cpuRow(name: string, cpu: CpuSnapshot, wallMs: number, elu: number): string[] {
  return [
    name,
    fmt(cpu.node),
    fmt(cpu.worker),
    fmt(cpu.temporal),
    fmt(cpu.postgres),
    fmt(cpu.apis),
    fmt(Math.max(0, cpu.machine - cpu.node - cpu.worker - cpu.temporal - cpu.postgres - cpu.apis)),
    `${fmt((100 * cpu.machine) / ((wallMs / 1000) * cores()), 0)} % of ${cores()} cores`,
    `${fmt(100 * elu, 0)} %`,
  ];
}
const CPU_HEAD = ['phase (CPU seconds during the phase)', 'bench process', 'worker process(es)', 'Temporal server', 'postgres', 'API processes (topology)', 'other', 'machine busy', 'bench main-thread ELU'];

function createRow(r: PhaseResult, delayMs: number): string[] {
  const s = summarize(r.create.latenciesMs);
  return [
    r.name,
    fmt(s.p50),
    fmt(s.p90),
    fmt(s.p99),
    fmt(s.max),
    slow(r.create.latenciesMs),
    fmt(perSecond(r.create.values.length, r.create.wallMs)),
    fmt(r.completeWallMs / 1000, 2),
    fmt(perSecond(r.completed, r.completeWallMs)),
    delayMs ? fmt(perSecond(r.completed, r.completeWallMs - delayMs)) : '–',
    `${r.completed}/${r.n}`,
    String(r.create.errors.length + r.completeErrors.length),
    fmt(r.historyLength, 0),
  ];
}
const CREATE_HEAD = ['phase', 'create p50 ms', 'p90 ms', 'p99 ms', 'max ms', '> 1 s', 'creates/s', 'wall to done s', 'done/s', 'done/s after delay', 'done', 'errors', 'history events'];

/**
 * The charge phase, the payout phase beside it, and the bare baselines: latency and rates, CPU, the
 * charge ÷ baseline ratios, and payout ÷ charge.
 */
function renderPhases(phases: MeasuredPhase[], payouts: MeasuredPhase[], charged: boolean): string[] {
  const charge = charged ? phases[0] : undefined;
  const bare = charged ? phases.slice(1) : phases;
  const rows = charge ? [charge, ...payouts, ...bare] : [...payouts, ...bare];
  const out = [table(CREATE_HEAD, rows.map((p) => createRow(p.result, p.delayMs)))];
  out.push('', table(CPU_HEAD, rows.map((p) => cpuRow(p.result.name, p.cpu, p.result.completeWallMs, p.elu))));
  if (charge && bare.length) {
    const c = summarize(charge.result.create.latenciesMs);
    const cRate = perSecond(charge.result.create.values.length, charge.result.create.wallMs);
    const cDone = perSecond(charge.result.completed, charge.result.completeWallMs);
    out.push('', table(
      ['charge ÷ baseline', 'create p50', 'p90', 'p99', 'creates/s', 'done/s', 'wall to done'],
      bare.map(({ result: b }) => {
        const s = summarize(b.create.latenciesMs);
        return [
          b.name,
          ratio(c.p50, s.p50),
          ratio(c.p90, s.p90),
          ratio(c.p99, s.p99),
          ratio(cRate, perSecond(b.create.values.length, b.create.wallMs)),
          ratio(cDone, perSecond(b.completed, b.completeWallMs)),
          ratio(charge.result.completeWallMs, b.completeWallMs),
        ];
      }),
    ));
  }
  if (charge && payouts.length) {
    const c = summarize(charge.result.create.latenciesMs);
    const cRate = perSecond(charge.result.create.values.length, charge.result.create.wallMs);
    const cDone = perSecond(charge.result.completed, charge.result.completeWallMs);
    out.push('', table(
      ['payout ÷ charge', 'create p50', 'p90', 'p99', 'creates/s', 'done/s'],
      payouts.map(({ result: p }) => {
        const s = summarize(p.create.latenciesMs);
        return [p.name, ratio(s.p50, c.p50), ratio(s.p90, c.p90), ratio(s.p99, c.p99), ratio(perSecond(p.create.values.length, p.create.wallMs), cRate), ratio(perSecond(p.completed, p.completeWallMs), cDone)];
      }),
    ));
  }
  const firstErrors = rows.flatMap((p) => [...p.result.create.errors, ...p.result.completeErrors].slice(0, 3).map((e) => `- ${p.result.name}: ${e}`));
  if (firstErrors.length) out.push('', 'First errors:', ...firstErrors);
  return out;
}

/** One webhook phase: its charges, deliveries, state change → receiver 2xx latency and its stages, CPU. */
export function renderWebhooks(title: string, w: WebhookPhaseResult): string[] {
  const c = w.charges;
  const spanMs = w.lastDeliveryAtMs - w.firstDeliveryAtMs;
  const all = Object.values(w.latencyMsByType).flat();
  const latencyRow = (name: string, values: number[]) => {
    const l = summarize(values);
    return [name, String(l.count), fmt(l.p50), fmt(l.p90), fmt(l.p99), fmt(l.max), fmt(l.mean)];
  };
  const out = [
    `#### ${title}`,
    '',
    table(CREATE_HEAD, [createRow(c, 0)]),
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
      ['state change (event created_at) → receiver 2xx', 'count', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms', 'mean ms'],
      [
        latencyRow('all events', all),
        ...Object.keys(w.latencyMsByType)
          .sort((a, b) => (a === 'transaction.created' ? -1 : b === 'transaction.created' ? 1 : a.localeCompare(b)))
          .map((type) => latencyRow(type, w.latencyMsByType[type])),
      ],
    ),
    '',
    w.stagesUnavailable
      ? `Stage split unavailable: ${w.stagesUnavailable}`
      : table(['stage (first attempt)', 'count', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms', 'mean ms'], w.stagesMs.map(({ stage, values }) => latencyRow(stage, values))),
    '',
    table(CPU_HEAD, [cpuRow('charges + webhooks', w.cpu, w.wallMs, w.elu)]),
  ];
  const notes: string[] = [];
  if (w.timedOut) notes.push('- the wait for deliveries timed out');
  if (w.unexpected) notes.push(`- ${w.unexpected} received event ids are not events of this merchant`);
  if (w.strays) notes.push(`- ${w.strays} requests to unknown receiver paths`);
  notes.push(...[...c.create.errors, ...c.completeErrors].slice(0, 3).map((e) => `- charge: ${e}`), ...w.problems.map((p) => `- ${p}`));
  if (notes.length) out.push('', 'Webhook problems:', ...notes);
  return out;
}

function renderVariant(v: VariantReport): string[] {
  const out = [`## ${v.title}`, '', ...v.notes.map((n) => `- ${n}`)];
  if (v.failure) out.push(`- **Failed:** ${v.failure}`);
  if (v.targets.some((t) => t.verdict !== 'n/a')) out.push('', 'Targets (issue 8):', '', ...v.targets.map((t) => `- ${t.verdict} ${t.target}: ${t.detail}`));
  if (v.rateLimit) out.push('', ...renderRateLimit(v.rateLimit));
  if (v.issue19) out.push('', ...renderIssue19(v.issue19));
  if (v.phases.length || v.payouts.length) out.push('', v.charged ? '### Charges, payouts and bare workflows' : '### Bare workflows', '', ...renderPhases(v.phases, v.payouts, v.charged));
  if (v.webhooks.length) {
    out.push('', '### Webhooks', '', `One endpoint (all event types) per phase, for a fresh merchant, on a local node:http receiver; outbox relay poll ${v.webhooks[0].result.pollMs} ms. Latency = receiver 2xx send time − the event's created_at, first delivery of each event.`);
    for (const w of v.webhooks) out.push('', ...renderWebhooks(w.title, w.result));
  }
  const rss = [`bench process ${fmt(v.rss.node, 0)} MiB (whole run so far)`, ...(Number.isFinite(v.rss.worker) ? [`worker process${v.name === 'topology' ? 'es (both)' : ''} ${fmt(v.rss.worker, 0)} MiB`] : []), `Temporal ${v.name === 'topology' ? 'server' : 'dev server'} ${fmt(v.rss.temporal, 0)} MiB`];
  out.push('', `Peak RSS: ${rss.join('; ')}. Variant wall time: ${fmt(v.wallS, 0)} s.`);
  return out;
}

/** The Markdown report: the targets across variants, then each variant's tables. */
export function renderRun(header: string[], variants: VariantReport[], footer: string[]): string {
  const out = ['# npm run bench', '', ...header, ''];
  const with19 = variants.filter((v) => v.issue19);
  if (with19.length) {
    const lines = with19.map((v) => judgeIssue19(v.issue19));
    out.push(
      "## Webhooks at the engine's throughput (issue 19)",
      '',
      table(['target', 'goal', ...with19.map((v) => v.name)], lines[0].map((l, i) => [l.target, l.goal || '–', ...lines.map((ls) => `${ls[i].measured}${ls[i].goal ? ` **${ls[i].verdict}**` : ls[i].verdict === 'VOID' ? ' **VOID**' : ''}`)])),
      '',
    );
  }
  if (variants.length && variants.some((v) => v.targets.some((t) => t.verdict !== 'n/a'))) {
    const names = variants.map((v) => v.name);
    out.push('## Targets (issue 8)', '', table(['target', ...names], variants[0].targets.map((t, i) => [t.target, ...variants.map((v) => `${v.targets[i]?.verdict ?? 'n/a'} ${v.targets[i]?.detail ?? ''}`)])), '');
  }
  for (const v of variants) out.push(...renderVariant(v), '');
  out.push(...footer);
  return out.join('\n');
}

const verdictCell = (l: Issue19Line) => (l.goal ? `**${l.verdict}**` : l.verdict === 'VOID' ? '**VOID**' : '–');

type Ledgered = { name: string; w?: WebhookPhaseResult; endpoints: string };

/** Per phase: sent = delivered + missing over its endpoints; VOID when a delivery is missing. The noisy merchant is in flight. */
function ledgerRows(r: Issue19Report): string[][] {
  const o = r.options;
  const phases: Ledgered[] = [
    { name: 'capacity', w: r.capacity, endpoints: `${o.capacityEndpoints} × every event type` },
    { name: 'latency c=4', w: r.latencyC4, endpoints: '1 × transaction.succeeded' },
    { name: 'latency c=1', w: r.latencyC1, endpoints: '1 × transaction.succeeded' },
    ...(r.paced ?? []).map(({ rate, w }) => ({ name: `latency paced ${rate}/s`, w, endpoints: '1 × transaction.succeeded' })),
    { name: 'fairness: quiet alone', w: r.quietAlone, endpoints: '1 × transaction.succeeded' },
    { name: 'fairness: quiet with the noisy backlog', w: r.quietWithNoisy, endpoints: '1 × transaction.succeeded' },
  ];
  const rows = phases
    .filter((p) => p.w)
    .map(({ name, w, endpoints }) => [name, endpoints, String(w!.expected), String(w!.delivered), String(w!.missing), String(w!.duplicates), String(w!.badSignatures), isVoid(w) ? '**VOID**' : 'ok']);
  if (r.noisy) {
    const n = r.noisy.result;
    const l = n.ledger[0];
    rows.push([
      'fairness: noisy merchant',
      `1 × transaction.succeeded, answers after ${fmt(o.noisyDelayMs / 1000, 0)} s, timeout_seconds ${o.noisyTimeoutS}`,
      String(n.expected),
      String(n.delivered),
      String(n.missing),
      String(n.duplicates),
      String(n.badSignatures),
      `in flight: ${r.noisy.deliveredWhenQuietEnded} delivered when the quiet phase ended, ${n.delivered} after at most ${fmt(o.noisyWaitMs / 1000, 0)} s more; ${l?.received ?? 0} requests received, ${l?.abandoned ?? 0} abandoned by the sender before the ${fmt(o.noisyDelayMs / 1000, 0)} s answer`,
    ]);
  }
  return rows;
}

/** One variant's issue 19 section: the targets table, the ledger, then each phase's detail tables. */
export function renderIssue19(r: Issue19Report): string[] {
  const o = r.options;
  const out = [
    "### Webhooks at the engine's throughput (issue 19)",
    '',
    `Capacity: ${o.capacityCharges} charges at concurrency ${o.concurrency} for one merchant with ${o.capacityEndpoints} endpoints (every event type: ${2 * o.capacityEndpoints} deliveries per charge); ` +
      `baseline: bare workflows that run one no-op activity on their own worker and task queue, at the same concurrency. ` +
      `Latency: ${o.latencyCharges} charges at c=4 and ${o.sequentialCharges} at c=1, one endpoint on transaction.succeeded; a missing delivery counts as +∞. ` +
      (o.pacedRates.length ? `Paced: ${o.pacedCharges} charges at each fixed offered rate (${o.pacedRates.join(', ')} charges/s, at most 4 in flight), same endpoint set-up. ` : '') +
      `Fairness: quiet merchant ${o.quietCharges} charges at c=2 (transaction.succeeded, receiver answers at once; wait capped at ${fmt(o.quietWaitMs / 1000, 0)} s), alone, then again once a noisy merchant's ${o.noisyEvents} charges ` +
      `(transaction.succeeded, receiver answers after ${fmt(o.noisyDelayMs / 1000, 0)} s, timeout_seconds ${o.noisyTimeoutS}) have all succeeded and their deliveries are in flight. Targets are reported, not asserted.`,
    '',
    table(['target', 'measured', 'goal', 'verdict'], judgeIssue19(r).map((l) => [l.target, l.measured, l.goal || '–', verdictCell(l)])),
    '',
    'Ledger (sent = events each endpoint subscribes to = delivered + missing, summed over the endpoints; a phase with a missing delivery is VOID):',
    '',
    table(['phase', 'endpoints', 'sent', 'delivered', 'missing', 'duplicates', 'bad signatures', 'status'], ledgerRows(r)),
  ];
  const details: Array<[string, WebhookPhaseResult | undefined]> = [
    [`Issue 19 capacity: ${o.capacityEndpoints} endpoints, concurrency ${o.concurrency}`, r.capacity],
    ['Issue 19 latency: concurrency 4', r.latencyC4],
    ['Issue 19 latency: concurrency 1', r.latencyC1],
    ...(r.paced ?? []).map(({ rate, w }): [string, WebhookPhaseResult] => [`Issue 19 latency: paced at ${rate} charges/s`, w]),
    ['Issue 19 fairness: quiet merchant alone', r.quietAlone],
    ['Issue 19 fairness: quiet merchant with the noisy backlog', r.quietWithNoisy],
    ['Issue 19 fairness: noisy merchant (in flight)', r.noisy?.result],
  ];
  for (const [title, w] of details) if (w) out.push('', ...renderWebhooks(title, w));
  return out;
}
