import type { PhaseResult } from './load';
import { fmt, perSecond, summarize } from './stats';
import type { WebhookPhaseResult } from './webhooks';

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
