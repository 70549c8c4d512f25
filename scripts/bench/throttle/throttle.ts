/**
 * `npm run bench -- --only throttle [--variants deployed] [--runs 3] [--n 100] [--rate 5] [--in-flight 2] [--create-rate 20]`
 *
 * Issue 49, the per-endpoint throttle, on fresh servers per variant (startBenchInfra: `deployed` is
 * `npm start`'s shape), `--runs` times on the same servers with new merchants each run:
 *
 * 1. quiet alone: a merchant with an unthrottled endpoint (transaction.created), 20 charges paced at
 *    4/s; create answered → its event's 2xx at the receiver, p50/p99;
 * 2. throttled: a merchant whose endpoint has `max_per_second` = --rate gets --n charges at once
 *    (8 in flight, open loop: as fast as the API takes them), and 5 s after the last create, while
 *    the backlog waits, a second quiet merchant does phase 1 again; the rate the receiver saw (first → last 2xx), the most 2xx in any 1 s window,
 *    attempts (every delivery should succeed at attempt 1: waiting is not failing), and the quiet
 *    merchant's latency beside phase 1's (fairness);
 * 3. in flight: an endpoint with `max_in_flight` = --in-flight, the receiver holding each request
 *    200 ms, --n / 2 charges at once: the most requests under way at the receiver at once.
 *
 * Markdown on stdout through the launcher. docs/benchmarks.md "Webhook throttle (issue 49)".
 */
import { bucketRefusals, peakInWindow } from './throttle-figures';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import type { BenchInfra } from '../shared/bench-infra';
import { newMerchantKey } from '../shared/charges';
import { apiCall as api, createCharges } from '../shared/paced-charges';
import { startBenchInfra } from '../shared/infra';
import { runBenchChild, sendReport } from '../shared/launcher';
import { cpuSnapshot } from '../shared/procs';
import { fmt, percentile } from '../shared/stats';
import { parseVariants } from '../shared/variants';
import { startReceiver, type WebhookReceiver } from '../webhooks/receiver';

const { values: args } = parseArgs({
  options: { only: { type: 'string' }, variants: { type: 'string' }, runs: { type: 'string' }, n: { type: 'string' }, rate: { type: 'string' }, 'in-flight': { type: 'string' }, 'create-rate': { type: 'string' } },
  allowPositionals: true,
});
const int = (name: string, raw: string | undefined, fallback: number) => {
  const value = raw === undefined ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a positive integer, got "${raw}"`);
  return value;
};
const RUNS = int('runs', args.runs, 3);
const N = int('n', args.n, 100);
const RATE = int('rate', args.rate, 5);
const IN_FLIGHT = int('in-flight', args['in-flight'], 2);
/** Charges/s of the bursts (open loop, paced); absent: as fast as 8 connections go. */
const CREATE_RATE = args['create-rate'] === undefined ? undefined : int('create-rate', args['create-rate'], 1);
const BURST_INTERVAL_MS = CREATE_RATE ? 1000 / CREATE_RATE : 0;
const HOLD_MS = 200;
const QUIET_CHARGES = 20;
const QUIET_INTERVAL_MS = 250;
const QUIET_AFTER_MS = 5_000;
const log = (m: string) => console.error(`bench throttle: ${new Date().toISOString().slice(11, 19)} ${m}`);

interface Endpoint {
  path: string;
  id: string;
  merchantKey: string;
  merchantId: string;
}

async function endpoint(infra: BenchInfra, pool: Pool, rx: WebhookReceiver, name: string, settings: Record<string, unknown>, delayMs = 0): Promise<Endpoint> {
  const merchant = await newMerchantKey(infra, name);
  const path = `/throttle/${merchant.id}`;
  const ep = await api(pool, merchant.key, 'POST', '/v1/webhook-endpoints', { url: `${rx.url}${path}`, subscribed_events: ['transaction.created'], ...settings });
  rx.register(path, ep.secret as string, { delayMs });
  return { path, id: ep.id as string, merchantKey: merchant.key, merchantId: merchant.id };
}

/** transaction.created event ids of these charges, with their created_at. */
async function createdEvents(infra: BenchInfra, chargeIds: string[]): Promise<Map<string, number>> {
  const rows = await infra.orm.em.getConnection().execute<{ id: string; created_at: Date }[]>(
    `select id, created_at from events where type = 'transaction.created' and resource_id = any(?::text[])`,
    [`{${chargeIds.join(',')}}`],
  );
  return new Map(rows.map((r) => [r.id, new Date(r.created_at).getTime()]));
}

interface Delivered {
  delivered: number;
  missing: number;
  duplicates: number;
  badSignatures: number;
  /** 2xx send times, first per event, ascending. */
  times: number[];
  /** When those requests' headers arrived at the receiver, ascending. */
  arrivals: number[];
  /** Event created_at → first 2xx, ms. */
  latencies: number[];
}

async function delivered(infra: BenchInfra, rx: WebhookReceiver, ep: Endpoint, chargeIds: string[], waitMs: number): Promise<Delivered> {
  const events = await createdEvents(infra, chargeIds);
  await rx.waitFor(ep.path, new Set(events.keys()), waitMs);
  const first = rx.firstByEvent(ep.path);
  const all = rx.deliveries(ep.path);
  const times: number[] = [];
  const arrivals: number[] = [];
  const latencies: number[] = [];
  for (const [id, createdAt] of events) {
    const d = first.get(id);
    if (!d) continue;
    times.push(d.sentAtMs);
    arrivals.push(d.arrivedAtMs);
    latencies.push(d.sentAtMs - createdAt);
  }
  return {
    delivered: times.length,
    missing: events.size - times.length,
    duplicates: all.length - first.size,
    badSignatures: all.filter((d) => !d.signatureOk).length,
    times: times.sort((a, b) => a - b),
    arrivals: arrivals.sort((a, b) => a - b),
    latencies: latencies.sort((a, b) => a - b),
  };
}



/** Deliveries of the endpoint by status and attempt count (waiting must not count as a failed attempt), once none is pending (10 s at most). */
async function attempts(infra: BenchInfra, endpointId: string): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const [pending] = await infra.orm.em.getConnection().execute<{ n: string }[]>(`select count(*) as n from webhook_deliveries where endpoint_id = ? and status = 'pending'`, [endpointId]);
    if (Number(pending!.n) === 0) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const rows = await infra.orm.em.getConnection().execute<{ status: string; attempt_count: number; n: string }[]>(
    `select status, attempt_count, count(*) as n from webhook_deliveries where endpoint_id = ? group by 1, 2 order by 1, 2`,
    [endpointId],
  );
  return rows.map((r) => `${r.n} ${r.status}@${r.attempt_count}`).join(', ');
}

/** Where a quiet merchant's latency went, p50 / p99 ms: event → delivery row (the relay), row → attempt 1 recorded as begun (the workflow), attempt begun → recorded (the send). */
async function stages(infra: BenchInfra, endpointId: string): Promise<string> {
  const rows = await infra.orm.em.getConnection().execute<{ relay: number; start: number; send: number }[]>(
    `select extract(epoch from d.created_at - e.created_at) * 1000 as relay, extract(epoch from a.attempted_at - d.created_at) * 1000 as start,
            extract(epoch from d.updated_at - a.attempted_at) * 1000 as send
     from webhook_deliveries d join events e on e.id = d.event_id join webhook_attempts a on a.delivery_id = d.id and a.attempt = 1 where d.endpoint_id = ?`,
    [endpointId],
  );
  const pp = (xs: number[]) => { const sorted = xs.map(Number).sort((a, b) => a - b); return `${fmt(percentile(sorted, 50), 0)} / ${fmt(percentile(sorted, 99), 0)}`; };
  return `relay ${pp(rows.map((r) => r.relay))}, workflow ${pp(rows.map((r) => r.start))}, send ${pp(rows.map((r) => r.send))}`;
}

/**
 * The instants the worker let the endpoint's first attempts go (webhook_attempts.sent_at, the
 * database's clock: the throttle's count) and, per event, how long from then until the request
 * arrived at the receiver, ms. What the throttle holds is the first; the second is the road and the receiver after it.
 */
async function letGo(infra: BenchInfra, endpointId: string, rx: WebhookReceiver, path: string): Promise<{ times: number[]; toReceiver: number[] }> {
  const rows = await infra.orm.em.getConnection().execute<{ event_id: string; sent_at: Date | null }[]>(
    `select d.event_id, a.sent_at from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id where d.endpoint_id = ? and a.sent_at is not null`,
    [endpointId],
  );
  const first = rx.firstByEvent(path);
  const toReceiver = rows.flatMap((r) => {
    const got = first.get(r.event_id);
    return got ? [got.arrivedAtMs - new Date(r.sent_at!).getTime()] : [];
  });
  return { times: rows.map((r) => new Date(r.sent_at!).getTime()).sort((a, b) => a - b), toReceiver: toReceiver.sort((a, b) => a - b) };
}

interface RunRow {
  run: number;
  quietAlone: Delivered;
  throttled: Delivered;
  throttledRate: number;
  /** The rate over the sends after the quiet phase ended (the burst's charges long settled). */
  steadyRate: number;
  /** The control: the quiet merchant beside the same burst to an unlimited endpoint. */
  quietBesideOpen: Delivered;
  throttledPeak: number;
  /** The most sends let go in any 1 s by the database's instants (the throttle's own count). */
  letGoPeak: number;
  /** The most requests arriving at the receiver in any 1 s (before the receiver's own work on them). */
  arrivalPeak: number;
  /** Arrivals a token-bucket receiver (max_per_second a second, burst max_per_second) would have refused. */
  bucketRefused: number;
  /** Let go → arrived at the receiver, ms, ascending. */
  letGoToReceiver: number[];
  throttledAttempts: string;
  quietBeside: Delivered;
  /** Throttled events not yet delivered when the quiet merchant's phase ended (the backlog it ran beside). */
  waitingWhenQuietEnded: number;
  inFlight: Delivered;
  inFlightMost: number;
  inFlightRate: number;
  inFlightAttempts: string;
}

const rateOf = (times: number[]) => (times.length > 1 ? ((times.length - 1) * 1000) / (times[times.length - 1]! - times[0]!) : NaN);

async function oneRun(infra: BenchInfra, pool: Pool, rx: WebhookReceiver, run: number): Promise<RunRow> {
  const quiet1 = await endpoint(infra, pool, rx, `Bench throttle quiet ${run}a`, {});
  const ids1 = await createCharges(pool, quiet1.merchantKey, QUIET_CHARGES, 2, QUIET_INTERVAL_MS, 'throttle');
  const quietAlone = await delivered(infra, rx, quiet1, ids1, 30_000);
  log(`run ${run}: quiet alone p99 ${fmt(percentile(quietAlone.latencies, 99), 0)} ms`);

  // The control: the same burst to an endpoint without limits, and a quiet merchant as long after it.
  // What a burst's charges cost the machine (their creates, their 3 s completions) is in both; what
  // the throttle's waiting adds is the difference.
  const open = await endpoint(infra, pool, rx, `Bench throttle unlimited ${run}`, {});
  const quiet0 = await endpoint(infra, pool, rx, `Bench throttle quiet ${run}c`, {});
  const openBurst = await createCharges(pool, open.merchantKey, N, 8, BURST_INTERVAL_MS, 'throttle');
  await new Promise((r) => setTimeout(r, QUIET_AFTER_MS));
  const quietBesideOpen = await delivered(infra, rx, quiet0, await createCharges(pool, quiet0.merchantKey, QUIET_CHARGES, 2, QUIET_INTERVAL_MS, 'throttle'), 30_000);
  await delivered(infra, rx, open, openBurst, 60_000);
  log(`run ${run}: control: quiet beside an unthrottled burst p99 ${fmt(percentile(quietBesideOpen.latencies, 99), 0)} ms; stages: ${await stages(infra, quiet0.id)}`);
  await new Promise((r) => setTimeout(r, QUIET_AFTER_MS));

  const slow = await endpoint(infra, pool, rx, `Bench throttle limited ${run}`, { max_per_second: RATE });
  const quiet2 = await endpoint(infra, pool, rx, `Bench throttle quiet ${run}b`, {});
  const burst = await createCharges(pool, slow.merchantKey, N, 8, BURST_INTERVAL_MS, 'throttle');
  // The quiet merchant goes once the burst's creates (and their charges' 3 s sandbox completion) are
  // over, while the throttled backlog waits: what it meets is the waiting, not the creating.
  await new Promise((r) => setTimeout(r, QUIET_AFTER_MS));
  const ids2 = await createCharges(pool, quiet2.merchantKey, QUIET_CHARGES, 2, QUIET_INTERVAL_MS, 'throttle');
  const quietBeside = await delivered(infra, rx, quiet2, ids2, 30_000);
  const waitingWhenQuietEnded = N - rx.firstByEvent(slow.path).size;
  log(`run ${run}: quiet beside the throttled backlog, stages: ${await stages(infra, quiet2.id)}`);
  const quietEndedAt = Date.now();
  const throttled = await delivered(infra, rx, slow, burst, (N / RATE) * 2000 + 60_000);
  log(`run ${run}: throttled ${throttled.delivered}/${N} at ${fmt(rateOf(throttled.times), 2)}/s; quiet beside p99 ${fmt(percentile(quietBeside.latencies, 99), 0)} ms`);

  const sent = await letGo(infra, slow.id, rx, slow.path);
  log(`run ${run}: most in any 1 s: let go ${peakInWindow(sent.times, 1000)}, arrived ${peakInWindow(throttled.arrivals, 1000)}, answered 2xx ${peakInWindow(throttled.times, 1000)}; a token bucket would refuse ${bucketRefusals(throttled.arrivals, RATE)}; let go → arrived p50 / p99 ${fmt(percentile(sent.toReceiver, 50), 0)} / ${fmt(percentile(sent.toReceiver, 99), 0)} ms`);

  const held = await endpoint(infra, pool, rx, `Bench throttle in-flight ${run}`, { max_in_flight: IN_FLIGHT }, HOLD_MS);
  const inFlightIds = await createCharges(pool, held.merchantKey, Math.max(2, Math.floor(N / 2)), 8, BURST_INTERVAL_MS, 'throttle');
  const inFlight = await delivered(infra, rx, held, inFlightIds, N * HOLD_MS * 2 + 60_000);
  log(`run ${run}: in flight ${inFlight.delivered}/${inFlightIds.length}`);
  // Each request was under way from HOLD_MS before its 200 until the 200.
  const intervals = rx.deliveries(held.path).map((d) => d.sentAtMs);
  const inFlightMost = peakInWindow(intervals.sort((a, b) => a - b), HOLD_MS);
  return {
    run,
    quietAlone,
    throttled,
    throttledRate: rateOf(throttled.times),
    steadyRate: rateOf(throttled.times.filter((t) => t >= quietEndedAt)),
    quietBesideOpen,
    throttledPeak: peakInWindow(throttled.times, 1000),
    letGoPeak: peakInWindow(sent.times, 1000),
    arrivalPeak: peakInWindow(throttled.arrivals, 1000),
    bucketRefused: bucketRefusals(throttled.arrivals, RATE),
    letGoToReceiver: sent.toReceiver,
    throttledAttempts: await attempts(infra, slow.id),
    quietBeside,
    waitingWhenQuietEnded,
    inFlight,
    inFlightMost,
    inFlightRate: rateOf(inFlight.times),
    inFlightAttempts: await attempts(infra, held.id),
  };
}

const spread = (values: number[], digits = 1) => {
  const ok = values.filter(Number.isFinite);
  return ok.length ? `${fmt(Math.min(...ok), digits)}–${fmt(Math.max(...ok), digits)}` : 'n/a';
};

function render(variant: string, rows: RunRow[], notes: string[]): string {
  const p = (d: Delivered, q: number) => fmt(percentile(d.latencies, q), 0);
  const lines = [
    `## Webhook throttle (issue 49): ${variant}`,
    '',
    ...notes.map((n) => `- ${n}`),
    '',
    `| run | throttled (max_per_second ${RATE}): delivered / missing / dup / bad sig | rate seen (/s): all / after the quiet phase | most in any 1 s: let go / arrived / answered 2xx | a token bucket (${RATE}/s, burst ${RATE}) at the receiver would refuse | let go → arrived p50 / p99 (ms) | attempts | quiet alone p50 / p99 (ms) | quiet after an unlimited burst p50 / p99 (ms) | quiet beside the throttled backlog p50 / p99 (ms) | backlog still waiting at its end | in flight (max ${IN_FLIGHT}): delivered / missing | most under way at once | rate (/s) | attempts |`,
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.run} | ${r.throttled.delivered} / ${r.throttled.missing} / ${r.throttled.duplicates} / ${r.throttled.badSignatures} | ${fmt(r.throttledRate, 2)} / ${fmt(r.steadyRate, 2)} | ${r.letGoPeak} / ${r.arrivalPeak} / ${r.throttledPeak} | ${r.bucketRefused} | ${fmt(percentile(r.letGoToReceiver, 50), 0)} / ${fmt(percentile(r.letGoToReceiver, 99), 0)} | ${r.throttledAttempts} | ${p(r.quietAlone, 50)} / ${p(r.quietAlone, 99)} | ${p(r.quietBesideOpen, 50)} / ${p(r.quietBesideOpen, 99)} | ${p(r.quietBeside, 50)} / ${p(r.quietBeside, 99)} | ${r.waitingWhenQuietEnded} | ${r.inFlight.delivered} / ${r.inFlight.missing} | ${r.inFlightMost} | ${fmt(r.inFlightRate, 2)} | ${r.inFlightAttempts} |`,
    ),
    '',
    `Spread over ${rows.length} runs: throttled rate ${spread(rows.map((r) => r.throttledRate), 2)} /s (limit ${RATE}); most in any 1 s let go (the database's instants) ${spread(rows.map((r) => r.letGoPeak), 0)}, arrived at the receiver ${spread(rows.map((r) => r.arrivalPeak), 0)}, answered 2xx ${spread(rows.map((r) => r.throttledPeak), 0)}; a token bucket (${RATE}/s, burst ${RATE}) at the receiver would refuse ${spread(rows.map((r) => r.bucketRefused), 0)}; throttled rate after the quiet phase ${spread(rows.map((r) => r.steadyRate), 2)} /s; quiet p99 alone ${spread(rows.map((r) => percentile(r.quietAlone.latencies, 99)), 0)} ms, after an unlimited burst ${spread(rows.map((r) => percentile(r.quietBesideOpen.latencies, 99)), 0)} ms, beside the throttled backlog ${spread(rows.map((r) => percentile(r.quietBeside.latencies, 99)), 0)} ms; in flight at most ${spread(rows.map((r) => r.inFlightMost), 0)} (limit ${IN_FLIGHT}).`,
  ];
  return lines.join('\n');
}

/** The servers of the variant under way: an interrupted run stops them (its dev server and worker would outlive it). */
let stopCurrent: (() => Promise<void>) | undefined;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    log(`${signal}: stopping the servers`);
    setTimeout(() => process.exit(2), 30_000).unref();
    void (stopCurrent?.() ?? Promise.resolve()).catch(() => undefined).finally(() => process.exit(2));
  });
}

async function main(): Promise<void> {
  const sections: string[] = [];
  for (const variant of parseVariants(args.variants ?? 'deployed')) {
    const before = cpuSnapshot().machine;
    await new Promise((r) => setTimeout(r, 1000));
    const busy = (cpuSnapshot().machine - before) / os.cpus().length;
    const infra = await startBenchInfra(variant, log);
    stopCurrent = () => infra.stop();
    const rx = await startReceiver();
    const pool = new Pool(infra.apiUrl, { connections: 16 });
    try {
      const rows: RunRow[] = [];
      for (let run = 1; run <= RUNS; run++) rows.push(await oneRun(infra, pool, rx, run));
      sections.push(
        render(variant.name, rows, [
          `${os.cpus().length} cores; machine busy ${fmt(100 * busy, 0)} % in the second before the variant started; load average ${os.loadavg().map((l) => l.toFixed(2)).join(', ')} at the end.`,
          `Throttled phase: ${N} charges created ${CREATE_RATE ? `at ${CREATE_RATE}/s (open loop, at most 8 in flight)` : 'at once (8 in flight, as fast as the API answers)'}, after the same burst to an unlimited endpoint (the control), one transaction.created each to an endpoint with max_per_second ${RATE}; a quiet merchant's ${QUIET_CHARGES} charges paced at ${1000 / QUIET_INTERVAL_MS}/s start ${QUIET_AFTER_MS / 1000} s after the last create, while the backlog waits. Latency: event created_at → the receiver's 2xx.`,
          `In-flight phase: ${Math.max(2, Math.floor(N / 2))} charges ${CREATE_RATE ? `at ${CREATE_RATE}/s` : 'at once'} to an endpoint with max_in_flight ${IN_FLIGHT}; the receiver holds each request ${HOLD_MS} ms, so at most ${(IN_FLIGHT * 1000) / HOLD_MS}/s can be answered.`,
        ]),
      );
    } finally {
      await pool.close();
      await infra.stop();
      await rx.close();
    }
  }
  await sendReport(sections.join('\n\n'));
}

runBenchChild(main);
