import type { PhaseResult } from '../shared/load';
import type { WebhookBench, WebhookPhaseResult } from './webhooks';

/**
 * Issue 19's phases ("Webhooks at the engine's throughput"), on one variant's servers, after the
 * `start-activity` baseline and the webhook warm-up:
 *
 * 1. capacity: one merchant with `capacityEndpoints` endpoints (every event type), `capacityCharges`
 *    charges at `concurrency`, so that a delivery backlog builds up; deliveries/s over first → last
 *    delivery, beside bare one-activity workflows/s;
 * 2. latency at concurrency 4: `latencyCharges` charges, one endpoint on transaction.succeeded;
 * 3. latency at concurrency 1: `sequentialCharges` charges one after another, same endpoint set-up;
 * 3b. latency at a fixed offered rate: for each of `pacedRates` (charges/s), `pacedCharges` charges,
 *    one created every 1000/rate ms (at most 4 in flight), same endpoint set-up. The issue's
 *    "concurrency" bounds the creates in flight, not the rate: a create answers in about 16 ms, so
 *    c=1 already offers 50–60 charges/s, which keeps a 2-core machine 70–90 % busy; these phases show
 *    the latency below that, where the offered rate is known;
 * 4. fairness: a quiet merchant (`quietCharges` at concurrency 2, transaction.succeeded, fast
 *    receiver) alone; then a noisy merchant's `noisyEvents` charges (transaction.succeeded, receiver
 *    answers after `noisyDelayMs`, endpoint timeout_seconds `noisyTimeoutS`) all sent and succeeded;
 *    then a second quiet merchant the same way while that backlog is in flight; then the noisy
 *    deliveries so far, and up to `noisyWaitMs` for the rest (not more).
 *
 * Every phase but the noisy one keeps an exact ledger (sent = delivered + missing); a phase with a
 * missing delivery is VOID (scripts/bench/main/targets.ts) and makes the exit code 1.
 */
export interface Issue19Options {
  concurrency: number;
  capacityCharges: number;
  capacityEndpoints: number;
  latencyCharges: number;
  sequentialCharges: number;
  /** Offered rates (charges/s) of the paced latency phases; empty: none. */
  pacedRates: number[];
  pacedCharges: number;
  quietCharges: number;
  noisyEvents: number;
  noisyDelayMs: number;
  noisyTimeoutS: number;
  /** Longest wait for the deliveries of a latency phase once its charges are done. */
  deliveryWaitMs: number;
  /** Longest wait for a quiet phase's deliveries once its charges are done (a delivery not in by then is missing). */
  quietWaitMs: number;
  noisyWaitMs: number;
  log(message: string): void;
}

export interface NoisyResult {
  /** The noisy ledger at the end of its (bounded) wait: reported as in flight, never VOID. */
  result: WebhookPhaseResult;
  /** Noisy (event, endpoint) pairs delivered when the quiet phase with noise ended. */
  deliveredWhenQuietEnded: number;
}

/** Filled phase by phase, so that a variant that fails half-way still reports what it measured. */
export interface Issue19Report {
  options: Omit<Issue19Options, 'log'>;
  bareActivity?: PhaseResult;
  capacity?: WebhookPhaseResult;
  latencyC4?: WebhookPhaseResult;
  latencyC1?: WebhookPhaseResult;
  /** The paced latency phases, in `pacedRates` order. */
  paced?: Array<{ rate: number; w: WebhookPhaseResult }>;
  quietAlone?: WebhookPhaseResult;
  quietWithNoisy?: WebhookPhaseResult;
  noisy?: NoisyResult;
}

const SUCCEEDED = ['transaction.succeeded'];
/** Capacity wait: at least the usual wait, and enough for 10 deliveries/s. */
const capacityWaitMs = (deliveries: number, floorMs: number) => Math.max(floorMs, deliveries * 100);

export async function runIssue19(webhooks: WebhookBench, o: Issue19Options, out: Issue19Report, variant: string): Promise<void> {
  const { log } = o;
  const say = (name: string, r: WebhookPhaseResult) =>
    log(`${variant}: ${name}: sent ${r.expected} = delivered ${r.delivered} + missing ${r.missing}; ${r.badSignatures} bad signatures, ${r.duplicates} duplicates`);

  {
    const endpoints = Array.from({ length: o.capacityEndpoints }, () => ({ events: [] as string[] }));
    const load = await webhooks.load(endpoints);
    log(`${variant}: issue 19 capacity: ${o.capacityCharges} charges at concurrency ${o.concurrency}, ${o.capacityEndpoints} endpoints (every event type)`);
    await load.charges(`capacity: ${o.capacityEndpoints} endpoints, c=${o.concurrency}: POST /v1/charges`, o.capacityCharges, o.concurrency);
    // Every charge has two events (created, succeeded), each to every endpoint.
    out.capacity = await load.collect(capacityWaitMs(2 * o.capacityCharges * o.capacityEndpoints, o.deliveryWaitMs));
    say('capacity', out.capacity);
  }
  for (const [key, n, c] of [
    ['latencyC4', o.latencyCharges, 4],
    ['latencyC1', o.sequentialCharges, 1],
  ] as const) {
    const load = await webhooks.load([{ events: SUCCEEDED }]);
    log(`${variant}: issue 19 latency: ${n} charges at concurrency ${c}, one endpoint (transaction.succeeded)`);
    await load.charges(`latency, c=${c}: POST /v1/charges`, n, c);
    out[key] = await load.collect(o.deliveryWaitMs);
    say(`latency c=${c}`, out[key]);
  }
  for (const rate of o.pacedRates) {
    const load = await webhooks.load([{ events: SUCCEEDED }]);
    log(`${variant}: issue 19 latency: ${o.pacedCharges} charges paced at ${rate}/s (at most 4 in flight), one endpoint (transaction.succeeded)`);
    await load.charges(`latency, paced ${rate}/s: POST /v1/charges`, o.pacedCharges, 4, 1000 / rate);
    const w = await load.collect(o.deliveryWaitMs);
    (out.paced ??= []).push({ rate, w });
    say(`latency paced ${rate}/s`, w);
  }
  {
    const quiet = await webhooks.load([{ events: SUCCEEDED }]);
    log(`${variant}: issue 19 fairness: quiet merchant alone, ${o.quietCharges} charges at concurrency 2`);
    await quiet.charges('fairness: quiet merchant alone, c=2: POST /v1/charges', o.quietCharges, 2);
    out.quietAlone = await quiet.collect(o.quietWaitMs);
    say('quiet alone', out.quietAlone);

    const noisy = await webhooks.load([{ events: SUCCEEDED, answerDelayMs: o.noisyDelayMs, timeoutSeconds: o.noisyTimeoutS }]);
    log(`${variant}: issue 19 fairness: noisy merchant, ${o.noisyEvents} charges at concurrency ${o.concurrency} (receiver answers after ${o.noisyDelayMs / 1000} s, timeout_seconds ${o.noisyTimeoutS})`);
    await noisy.charges(`fairness: noisy merchant, c=${o.concurrency}: POST /v1/charges`, o.noisyEvents, o.concurrency);
    const atStart = await noisy.progress();
    log(`${variant}: noisy charges done: ${atStart.delivered}/${atStart.sent} noisy deliveries in; quiet merchant again, ${o.quietCharges} charges at concurrency 2`);

    const quiet2 = await webhooks.load([{ events: SUCCEEDED }]);
    await quiet2.charges('fairness: quiet merchant with the noisy backlog, c=2: POST /v1/charges', o.quietCharges, 2);
    out.quietWithNoisy = await quiet2.collect(o.quietWaitMs);
    say('quiet with noisy', out.quietWithNoisy);

    const deliveredWhenQuietEnded = (await noisy.progress()).delivered;
    log(`${variant}: noisy: ${deliveredWhenQuietEnded} delivered when the quiet phase ended; waiting at most ${o.noisyWaitMs / 1000} s for the rest`);
    out.noisy = { result: await noisy.collect(o.noisyWaitMs, { stages: false }), deliveredWhenQuietEnded };
    say('noisy (in flight)', out.noisy.result);
  }
}
