/**
 * `npm run bench -- --only fifo [--runs 3] [--n 300] [--paced 100] [--rate 10] [--fail-every 25] [--retry 1s]`
 *
 * Issue 49, ordered delivery (`delivery_order: "fifo"`), on fresh `deployed` servers (startBenchInfra:
 * `npm start`'s shape, the worker and relay in their own process), `--runs` times on the same servers
 * with new merchants each run. The receiver answers 503 to the first request of every
 * `--fail-every`-th event (so each of those is retried, WEBHOOK_RETRY_SCHEDULE `--retry`, and holds
 * the ones behind it) and 200 to everything else, at once. Per run, each phase a new merchant with a
 * FIFO endpoint (transaction.created):
 *
 * 1. burst: --n charges at once (8 in flight, as fast as the API takes them): events/s delivered
 *    (first → last 2xx), latency event created → its first 2xx p50 / p99;
 * 2. paced: --paced charges offered at --rate/s (open loop): the same figures;
 * 3. kill: --n charges at once; once a third of the events are answered 2xx the worker process is
 *    SIGKILLed and a new one started (`PaymentsSide.crash`): the same figures, and how long the
 *    endpoint heard nothing.
 *
 * In every phase: requests out of order (must be 0), duplicates (2xx repeats: at least once after the
 * kill), lost events (must be 0). Markdown on stdout through the launcher. docs/benchmarks.md
 * "Webhook FIFO (issue 49)".
 */
import os from 'node:os';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import type { BenchInfra } from '../shared/bench-infra';
import { newMerchantKey } from '../shared/charges';
import { startBenchInfra } from '../shared/infra';
import { runBenchChild, sendReport } from '../shared/launcher';
import { apiCall, createCharges } from '../shared/paced-charges';
import { cpuSnapshot } from '../shared/procs';
import { fmt, percentile } from '../shared/stats';
import { parseVariants } from '../shared/variants';
import { fifoFigures, rateOf, type FifoEvent, type FifoFigures } from './fifo-order';
import { startFifoReceiver, type FifoReceiver } from './fifo-receiver';
import { fifoStages } from './fifo-stages';

const { values: args } = parseArgs({
  options: { only: { type: 'string' }, variants: { type: 'string' }, runs: { type: 'string' }, n: { type: 'string' }, paced: { type: 'string' }, rate: { type: 'string' }, 'fail-every': { type: 'string' }, retry: { type: 'string' } },
  allowPositionals: true,
});
const int = (name: string, raw: string | undefined, fallback: number) => {
  const value = raw === undefined ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a positive integer, got "${raw}"`);
  return value;
};
const RUNS = int('runs', args.runs, 3);
const N = int('n', args.n, 300);
const PACED = int('paced', args.paced, 100);
const RATE = int('rate', args.rate, 10);
const FAIL_EVERY = int('fail-every', args['fail-every'], 25);
/** The servers' WEBHOOK_RETRY_SCHEDULE: a FIFO head answered 503 waits this (±20 %) before its retry. */
const RETRY = args.retry ?? '1s';
const log = (m: string) => console.error(`bench fifo: ${new Date().toISOString().slice(11, 19)} ${m}`);

interface Endpoint {
  path: string;
  id: string;
  merchantKey: string;
}

async function fifoEndpoint(infra: BenchInfra, pool: Pool, rx: FifoReceiver, name: string): Promise<Endpoint> {
  const merchant = await newMerchantKey(infra, name);
  const path = `/fifo/${merchant.id}`;
  const ep = await apiCall(pool, merchant.key, 'POST', '/v1/webhook-endpoints', { url: `${rx.url}${path}`, subscribed_events: ['transaction.created'], delivery_order: 'fifo' });
  rx.register(path, ep.secret as string, FAIL_EVERY);
  return { path, id: ep.id as string, merchantKey: merchant.key };
}

/** The charges' transaction.created events. */
async function createdEvents(infra: BenchInfra, chargeIds: string[]): Promise<FifoEvent[]> {
  const rows = await infra.orm.em.getConnection().execute<{ id: string; sequence: string; created_at: Date }[]>(
    `select id, sequence, created_at from events where type = 'transaction.created' and resource_id = any(?::text[])`,
    [`{${chargeIds.join(',')}}`],
  );
  return rows.map((r) => ({ id: r.id, sequence: Number(r.sequence), createdAtMs: new Date(r.created_at).getTime() }));
}

/** The endpoint's deliveries by status and attempt count, once none is pending (30 s at most): `300 succeeded@1, 12 succeeded@2`. */
async function deliveryStates(infra: BenchInfra, endpointId: string): Promise<string> {
  const conn = infra.orm.em.getConnection();
  for (let i = 0; i < 300; i++) {
    const [pending] = await conn.execute<{ n: string }[]>(`select count(*) as n from webhook_deliveries where endpoint_id = ? and status = 'pending'`, [endpointId]);
    if (Number(pending!.n) === 0) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const rows = await conn.execute<{ status: string; attempt_count: number; n: string }[]>(
    `select status, attempt_count, count(*) as n from webhook_deliveries where endpoint_id = ? group by 1, 2 order by 1, 2`,
    [endpointId],
  );
  return rows.map((r) => `${r.n} ${r.status}@${r.attempt_count}`).join(', ');
}

interface Phase {
  figures: FifoFigures;
  states: string;
  /** fifoStages: send, record, next, p50/mean ms. */
  stages: string;
}

/** Waits for every event of these charges to be answered 2xx (or the time to run out), then reads the figures. */
async function settle(infra: BenchInfra, rx: FifoReceiver, ep: Endpoint, chargeIds: string[]): Promise<Phase> {
  const events = await createdEvents(infra, chargeIds);
  const holds = Math.ceil(events.length / FAIL_EVERY);
  const all = await rx.waitFor(ep.path, new Set(events.map((e) => e.id)), 120_000 + events.length * 500 + holds * 5_000);
  if (!all) log(`${ep.path}: ${events.length - rx.delivered(ep.path)} of ${events.length} events not delivered in time`);
  const states = await deliveryStates(infra, ep.id);
  return { figures: fifoFigures(events, rx.requests(ep.path)), states, stages: await fifoStages(infra.orm, ep.id, rx.requests(ep.path)) };
}

interface KillPhase extends Phase {
  /** Events answered 2xx when the worker was killed. */
  deliveredAtKill: number;
  /** The merchant's events (of any type) the relay had not fanned out yet just before the kill. */
  undispatchedAtKill: number;
  /** SIGKILL → the new worker polling. */
  restartMs: number;
  /** SIGKILL → the next event answered 2xx. */
  silentMs: number;
}

async function killPhase(infra: BenchInfra, pool: Pool, rx: FifoReceiver, run: number): Promise<KillPhase | undefined> {
  const crash = infra.payments.crash?.bind(infra.payments);
  if (!crash) return undefined;
  const ep = await fifoEndpoint(infra, pool, rx, `Bench fifo kill ${run}`);
  const killAfter = Math.floor(N / 3);
  let killed: Promise<{ at: number; deliveredAtKill: number; undispatchedAtKill: number; restartMs: number }> | undefined;
  // Polled every 20 ms beside the creates: the kill lands while they may still be under way.
  const watcher = setInterval(() => {
    if (killed || rx.delivered(ep.path) < killAfter) return;
    clearInterval(watcher);
    killed = (async () => {
      const deliveredAtKill = rx.delivered(ep.path);
      const [row] = await infra.orm.em.getConnection().execute<{ n: string }[]>(
        `select count(*) as n from events e join webhook_endpoints w on w.merchant_id = e.merchant_id and w.environment = e.environment where w.id = ? and e.dispatched_at is null`,
        [ep.id],
      );
      const at = Date.now();
      await crash();
      return { at, deliveredAtKill, undispatchedAtKill: Number(row!.n), restartMs: Date.now() - at };
    })();
    killed.catch(() => undefined); // awaited below, after the phase
  }, 20);
  try {
    const ids = await createCharges(pool, ep.merchantKey, N, 8, 0, 'fifo-kill');
    const phase = await settle(infra, rx, ep, ids);
    const kill = await (killed ?? Promise.reject(new Error(`the worker was never killed: ${rx.delivered(ep.path)} of ${N} delivered`)));
    const after = rx.requests(ep.path).find((r) => r.status === 200 && r.answeredAtMs > kill.at);
    return { ...phase, ...kill, silentMs: after ? after.answeredAtMs - kill.at : NaN };
  } finally {
    clearInterval(watcher);
  }
}

interface RunRow {
  run: number;
  burst: Phase;
  paced: Phase;
  kill?: KillPhase;
}

async function oneRun(infra: BenchInfra, pool: Pool, rx: FifoReceiver, run: number): Promise<RunRow> {
  const burstEp = await fifoEndpoint(infra, pool, rx, `Bench fifo burst ${run}`);
  const burst = await settle(infra, rx, burstEp, await createCharges(pool, burstEp.merchantKey, N, 8, 0, 'fifo-burst'));
  log(`run ${run}: burst ${burst.figures.delivered}/${N} at ${fmt(rateOf(burst.figures.times), 1)}/s, ${burst.figures.violations} out of order`);
  const pacedEp = await fifoEndpoint(infra, pool, rx, `Bench fifo paced ${run}`);
  const paced = await settle(infra, rx, pacedEp, await createCharges(pool, pacedEp.merchantKey, PACED, 8, 1000 / RATE, 'fifo-paced'));
  log(`run ${run}: paced ${paced.figures.delivered}/${PACED}, p99 ${fmt(percentile(paced.figures.latencies, 99), 0)} ms, ${paced.figures.violations} out of order`);
  const kill = await killPhase(infra, pool, rx, run);
  if (kill) log(`run ${run}: kill ${kill.figures.delivered}/${N}, ${kill.figures.violations} out of order, ${kill.figures.duplicates} duplicates, worker back in ${fmt(kill.restartMs / 1000, 1)} s`);
  return { run, burst, paced, ...(kill ? { kill } : {}) };
}

const spread = (values: number[], digits = 1) => {
  const ok = values.filter(Number.isFinite);
  return ok.length ? `${fmt(Math.min(...ok), digits)}–${fmt(Math.max(...ok), digits)}` : 'n/a';
};
const p = (f: FifoFigures, q: number) => fmt(percentile(f.latencies, q), 0);
const counts = (f: FifoFigures) => `${f.delivered} / ${f.lost} / ${f.violations} / ${f.duplicates} / ${f.badSignatures}`;

function render(variant: string, rows: RunRow[], notes: string[]): string {
  const kills = rows.flatMap((r) => (r.kill ? [r.kill] : []));
  const violations = rows.flatMap((r) => [r.burst, r.paced, ...(r.kill ? [r.kill] : [])]).flatMap((ph) => ph.figures.firstViolations);
  return [
    `## Webhook FIFO (issue 49): ${variant}`,
    '',
    ...notes.map((n) => `- ${n}`),
    '',
    `| run | burst (${N}): delivered / lost / out of order / dup / bad sig | rate (/s) | p50 / p99 (ms) | 503s | deliveries | per event p50/mean: send, record, next (ms) | paced (${PACED} at ${RATE}/s): delivered / lost / out of order / dup / bad sig | created / delivered (/s) | p50 / p99 (ms) | per event p50/mean: send, record, next (ms) | kill (${N}): delivered / lost / out of order / dup / bad sig | 2xx before the kill | not fanned out at the kill | worker back (s) | endpoint silent (s) | rate (/s) | p50 / p99 (ms) | deliveries |`,
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map((r) => {
      const k = r.kill;
      const killCells = k
        ? `${counts(k.figures)} | ${k.deliveredAtKill} | ${k.undispatchedAtKill} | ${fmt(k.restartMs / 1000, 1)} | ${fmt(k.silentMs / 1000, 1)} | ${fmt(rateOf(k.figures.times), 1)} | ${p(k.figures, 50)} / ${p(k.figures, 99)} | ${k.states}`
        : 'no kill (the worker is not a process of its own here) | | | | | | |';
      return `| ${r.run} | ${counts(r.burst.figures)} | ${fmt(rateOf(r.burst.figures.times), 1)} | ${p(r.burst.figures, 50)} / ${p(r.burst.figures, 99)} | ${r.burst.figures.failed} | ${r.burst.states} | ${r.burst.stages} | ${counts(r.paced.figures)} | ${fmt(rateOf(r.paced.figures.created), 2)} / ${fmt(rateOf(r.paced.figures.times), 2)} | ${p(r.paced.figures, 50)} / ${p(r.paced.figures, 99)} | ${r.paced.stages} | ${killCells} |`;
    }),
    '',
    `Spread over ${rows.length} runs: burst ${spread(rows.map((r) => rateOf(r.burst.figures.times)))} events/s, p50 ${spread(rows.map((r) => percentile(r.burst.figures.latencies, 50)), 0)} ms, p99 ${spread(rows.map((r) => percentile(r.burst.figures.latencies, 99)), 0)} ms; paced ${spread(rows.map((r) => rateOf(r.paced.figures.times)), 2)} events/s (offered ${RATE}), p50 ${spread(rows.map((r) => percentile(r.paced.figures.latencies, 50)), 0)} ms, p99 ${spread(rows.map((r) => percentile(r.paced.figures.latencies, 99)), 0)} ms` +
      (kills.length ? `; kill: ${spread(kills.map((k) => rateOf(k.figures.times)))} events/s, p99 ${spread(kills.map((k) => percentile(k.figures.latencies, 99)), 0)} ms, worker back in ${spread(kills.map((k) => k.restartMs / 1000))} s, endpoint silent ${spread(kills.map((k) => k.silentMs / 1000))} s, duplicates ${spread(kills.map((k) => k.figures.duplicates), 0)}` : '') +
      `. Out of order in all: ${rows.reduce((s, r) => s + r.burst.figures.violations + r.paced.figures.violations + (r.kill?.figures.violations ?? 0), 0)}; lost in all: ${rows.reduce((s, r) => s + r.burst.figures.lost + r.paced.figures.lost + (r.kill?.figures.lost ?? 0), 0)}.`,
    ...(violations.length ? ['', `First requests out of order: ${violations.slice(0, 10).join('; ')}.`] : []),
  ].join('\n');
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
  // The servers this process starts read it (the worker process inherits this environment).
  process.env.WEBHOOK_RETRY_SCHEDULE = RETRY;
  const sections: string[] = [];
  for (const variant of parseVariants(args.variants ?? 'deployed')) {
    const loadBefore = os.loadavg();
    const before = cpuSnapshot().machine;
    await new Promise((r) => setTimeout(r, 1000));
    const busy = (cpuSnapshot().machine - before) / os.cpus().length;
    const infra = await startBenchInfra(variant, log);
    stopCurrent = () => infra.stop();
    const rx = await startFifoReceiver();
    const pool = new Pool(infra.apiUrl, { connections: 16 });
    const began = Date.now();
    try {
      const rows: RunRow[] = [];
      for (let run = 1; run <= RUNS; run++) rows.push(await oneRun(infra, pool, rx, run));
      sections.push(
        render(variant.name, rows, [
          `${os.cpus().length} cores; load average ${loadBefore.map((l) => l.toFixed(2)).join(', ')} (1, 5, 15 min) before the servers started, machine busy ${fmt(100 * busy, 0)} % in the second before; load average ${os.loadavg().map((l) => l.toFixed(2)).join(', ')} at the end; ${fmt((Date.now() - began) / 60_000, 1)} min of runs.`,
          `The receiver answers at once: 503 to the first request of every ${FAIL_EVERY}th event (by arrival), 200 to every other request; WEBHOOK_RETRY_SCHEDULE=${RETRY} (each 503 holds the queue about that long, ±20 %). Latency: event created_at → the receiver's first 2xx for it. Rate: events from the first 2xx to the last.`,
          `Burst and kill: ${N} charges as fast as 8 connections go (closed loop); paced: ${PACED} charges offered at ${RATE}/s (open loop, at most 8 in flight). Kill: the worker process SIGKILLed once ${Math.floor(N / 3)} events were answered 2xx, a new one started at once (its start-up is "worker back"); "endpoint silent" is the kill → the next 2xx.`,
          `Per event p50/mean (one send at a time): send = the attempt's time (attempted_at: when the in-turn execution started it, or the workflow scheduled a head's retry) → the receiver's 2xx; record = 2xx → the delivery recorded succeeded; next = recorded → the next event's attempt (within one in-turn execution; a workflow task, a read and a new execution every 50 events).`,
          `Out of order: a request below a sequence already sent (a repeat of the latest event aside), or one sent while an earlier event had no 2xx yet; dup: 2xx answers beyond an event's first (at least once: a worker killed between the 2xx and its record sends again).`,
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
