import type { Issue19Report } from '../webhooks/issue19';
import type { PhaseResult } from '../shared/load';
import { fmt, perSecond, ratio, summarize } from '../shared/stats';
import type { WebhookPhaseResult } from '../webhooks/webhooks';

/** One of issue 8's targets, judged on one variant's figures (reported, never asserted). */
export interface TargetLine {
  target: string;
  verdict: 'PASS' | 'FAIL' | 'n/a';
  /** The figures behind the verdict. */
  detail: string;
}

export interface TargetInputs {
  charge?: PhaseResult;
  bareStart?: PhaseResult;
  bareSleep?: PhaseResult;
  webhooksC1?: WebhookPhaseResult;
  webhooksCN?: WebhookPhaseResult;
}

export const SLOW_CREATE_MS = 1000;

const verdict = (ok: boolean | undefined): TargetLine['verdict'] => (ok === undefined ? 'n/a' : ok ? 'PASS' : 'FAIL');
const doneRate = (p: PhaseResult) => perSecond(p.completed, p.completeWallMs);
const allLatencies = (w: WebhookPhaseResult) => Object.values(w.latencyMsByType).flat();

/** Targets of issue 8, in its order. A missing phase gives `n/a`. */
export function judgeTargets(t: TargetInputs): TargetLine[] {
  const lines: TargetLine[] = [];
  {
    const c = t.charge && summarize(t.charge.create.latenciesMs).p99;
    const b = t.bareStart && summarize(t.bareStart.create.latenciesMs).p99;
    const ok = c !== undefined && b !== undefined && b > 0 ? c <= 1.5 * b : undefined;
    lines.push({
      target: 'charge create p99 ≤ 1.5 × bare workflow.start p99',
      verdict: verdict(ok),
      detail: c !== undefined && b !== undefined ? `${fmt(c / b, 2)}× (${fmt(c)} ms vs ${fmt(b)} ms)` : 'not measured',
    });
  }
  {
    const c = t.charge && doneRate(t.charge);
    const b = t.bareSleep && doneRate(t.bareSleep);
    const ok = c !== undefined && b !== undefined && b > 0 ? c >= 0.5 * b : undefined;
    lines.push({
      target: 'charges to succeeded per s ≥ 0.5 × bare "start, sleeps 3 s" completions per s',
      verdict: verdict(ok),
      detail: c !== undefined && b !== undefined ? `${fmt(c / b, 2)}× (${fmt(c)}/s vs ${fmt(b)}/s)` : 'not measured',
    });
  }
  {
    const w = t.webhooksC1;
    const p50 = w && summarize(allLatencies(w)).p50;
    lines.push({
      target: `webhook state change → receiver 2xx p50 ≤ 50 ms at concurrency ${w?.charges.concurrency ?? 1}`,
      verdict: verdict(p50 === undefined || Number.isNaN(p50) ? undefined : p50 <= 50),
      detail: p50 !== undefined ? `${fmt(p50)} ms over ${allLatencies(w!).length} events` : 'not measured',
    });
  }
  {
    const w = t.webhooksCN;
    const p99 = w && summarize(allLatencies(w)).p99;
    lines.push({
      target: `webhook state change → receiver 2xx p99 ≤ 250 ms at concurrency ${w?.charges.concurrency ?? 20}`,
      verdict: verdict(p99 === undefined || Number.isNaN(p99) ? undefined : p99 <= 250),
      detail: p99 !== undefined ? `${fmt(p99)} ms over ${allLatencies(w!).length} events` : 'not measured',
    });
  }
  {
    const w = t.webhooksCN;
    const lat = w?.charges.create.latenciesMs;
    const slow = lat?.filter((ms) => ms > SLOW_CREATE_MS).length;
    lines.push({
      target: `no create slower than 1 s at concurrency ${w?.charges.concurrency ?? 20} with a webhook endpoint subscribed`,
      verdict: verdict(slow === undefined ? undefined : slow === 0),
      detail: lat ? `${slow} of ${lat.length} over 1 s; max ${fmt(summarize(lat).max)} ms` : 'not measured',
    });
  }
  return lines;
}

/** One of issue 19's targets on one variant (reported, never asserted). VOID: a phase behind it lost a delivery. */
export interface Issue19Line {
  target: string;
  measured: string;
  goal: string;
  verdict: 'met' | 'not met' | 'VOID' | 'n/a';
}

/** Deliveries of a phase with a 2xx / (last − first delivery): its throughput while the backlog drained. */
export function capacityPerSecond(w: WebhookPhaseResult): number {
  return perSecond(w.delivered, w.lastDeliveryAtMs - w.firstDeliveryAtMs);
}

/** A phase whose ledger does not balance (a delivery missing at the end of its wait) proves nothing. */
export const isVoid = (w: WebhookPhaseResult | undefined): boolean => !!w && (w.missing > 0 || w.expected === 0);

/** Percentiles where each missing delivery counts as never arriving (+∞), so a starved merchant cannot look fast. */
export function latencyWithMissing(w: WebhookPhaseResult): ReturnType<typeof summarize> {
  return summarize([...allLatencies(w), ...Array<number>(w.missing).fill(Infinity)]);
}

const ms = (v: number | undefined, capMs?: number) => (v === undefined ? 'not measured' : v === Infinity ? `> ${fmt((capMs ?? NaN) / 1000, 0)} s (missing)` : `${fmt(v)} ms`);

/** Issue 19's targets, in its order; `n/a` where a phase was not measured. */
export function judgeIssue19(r: Issue19Report | undefined): Issue19Line[] {
  const lines: Issue19Line[] = [];
  const judge = (ok: boolean | undefined, ...phases: Array<WebhookPhaseResult | undefined>): Issue19Line['verdict'] =>
    phases.some(isVoid) ? 'VOID' : ok === undefined ? 'n/a' : ok ? 'met' : 'not met';
  {
    const cap = r?.capacity;
    const bare = r?.bareActivity;
    const c = cap && capacityPerSecond(cap);
    const b = bare && perSecond(bare.completed, bare.completeWallMs);
    const backlog = cap ? cap.expected - cap.deliveredBeforeWait : NaN;
    lines.push({
      target: 'capacity: deliveries with a 2xx per s (first → last delivery, backlog draining)',
      measured: cap ? `${fmt(c!)}/s (${cap.delivered} deliveries in ${fmt((cap.lastDeliveryAtMs - cap.firstDeliveryAtMs) / 1000, 1)} s; backlog when the charges were done: ${backlog})` : 'not measured',
      goal: '',
      verdict: judge(undefined, cap),
    });
    lines.push({
      target: `bare one-activity workflows done per s (c=${bare?.concurrency ?? '–'}, same server)`,
      measured: bare ? `${fmt(b!)}/s (${bare.completed}/${bare.n} in ${fmt(bare.completeWallMs / 1000, 1)} s)` : 'not measured',
      goal: '',
      verdict: bare ? (bare.completed === bare.n ? 'n/a' : 'VOID') : 'n/a',
    });
    const ok = c !== undefined && b !== undefined && b > 0 && Number.isFinite(c) ? c >= 0.8 * b : undefined;
    lines.push({
      target: 'capacity ÷ bare one-activity',
      measured: c !== undefined && b !== undefined ? ratio(c, b) : 'not measured',
      goal: '≥ 0.8×',
      verdict: judge(ok, cap),
    });
  }
  for (const [w, c, p, goal] of [
    [r?.latencyC4, 4, 'p50', 50],
    [r?.latencyC4, 4, 'p99', 250],
    [r?.latencyC1, 1, 'p50', 30],
  ] as const) {
    const v = w && latencyWithMissing(w)[p];
    lines.push({
      target: `latency at c=${c} (${w?.charges.n ?? '–'} charges; event created_at → receiver 2xx) ${p}`,
      measured: w ? `${ms(v, w.waitTimeoutMs)} (charges created at ${fmt(perSecond(w.charges.create.values.length, w.charges.create.wallMs))}/s)` : ms(v),
      goal: `≤ ${goal} ms`,
      verdict: judge(v === undefined || Number.isNaN(v) ? undefined : v <= goal, w),
    });
  }
  // Below capacity for certain: a fixed offered rate. The issue's goals, reported beside its own load.
  for (const { rate, w } of r?.paced ?? []) {
    const l = latencyWithMissing(w);
    lines.push({
      target: `latency paced at ${rate} charges/s (${w.charges.n} charges; event created_at → receiver 2xx) p50 / p99`,
      measured: `${ms(l.p50, w.waitTimeoutMs)} / ${ms(l.p99, w.waitTimeoutMs)} (charges created at ${fmt(perSecond(w.charges.create.values.length, w.charges.create.wallMs))}/s)`,
      goal: '≤ 50 / ≤ 250 ms',
      verdict: judge(Number.isNaN(l.p50) || Number.isNaN(l.p99) ? undefined : l.p50 <= 50 && l.p99 <= 250, w),
    });
  }
  {
    const alone = r?.quietAlone && latencyWithMissing(r.quietAlone).p99;
    const noisy = r?.quietWithNoisy && latencyWithMissing(r.quietWithNoisy).p99;
    lines.push({ target: `fairness: quiet merchant p99 alone (${r?.quietAlone?.charges.n ?? '–'} charges, c=2)`, measured: ms(alone, r?.quietAlone?.waitTimeoutMs), goal: '', verdict: judge(undefined, r?.quietAlone) });
    lines.push({
      target: `fairness: quiet merchant p99 with the noisy backlog (${r?.noisy?.result.charges.n ?? '–'} events to a ${fmt((r?.options.noisyDelayMs ?? NaN) / 1000, 0)} s endpoint)`,
      measured: ms(noisy, r?.quietWithNoisy?.waitTimeoutMs),
      goal: '',
      verdict: judge(undefined, r?.quietWithNoisy),
    });
    const ok = alone !== undefined && noisy !== undefined && alone > 0 && !Number.isNaN(noisy) ? noisy <= 1.2 * alone : undefined;
    lines.push({
      target: 'fairness: with noisy ÷ alone (quiet p99)',
      measured: alone !== undefined && noisy !== undefined ? (noisy === Infinity ? '∞ (quiet deliveries missing)' : ratio(noisy, alone)) : 'not measured',
      goal: '≤ 1.2×',
      verdict: judge(ok, r?.quietAlone, r?.quietWithNoisy),
    });
  }
  return lines;
}
