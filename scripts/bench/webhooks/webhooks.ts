import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import type { BenchInfra } from '../shared/infra';
import { newMerchantKey, runChargePhase } from '../shared/charges';
import type { CompletionMode } from '../shared/completion';
import type { PhaseResult } from '../shared/load';
import { cpuDelta, cpuSnapshot, peakRss, type CpuSnapshot, type PeakRss } from '../shared/procs';
import { cpuTarget } from '../shared/payments';
import { startReceiver, type ReceivedDelivery, type WebhookReceiver } from './receiver';
import { fmt } from '../shared/stats';

/** One endpoint of a webhook load: which events it takes and how the receiver answers it. */
export interface EndpointSpec {
  /** subscribed_events; empty = every type. */
  events: string[];
  /** The receiver holds each request this long before its 200 (a slow endpoint); default 0. */
  answerDelayMs?: number;
  /** The endpoint's timeout_seconds (API field); default: the engine's. */
  timeoutSeconds?: number;
}

/**
 * The ledger of one endpoint, as Hookdeck's load test keeps it: `sent` = the merchant's events that
 * this endpoint subscribes to (each must be delivered once) = `delivered` (a 2xx at the receiver) +
 * `missing` (none by the end of the wait).
 */
export interface EndpointLedger {
  path: string;
  events: string;
  sent: number;
  delivered: number;
  missing: number;
  /** Requests that reached the receiver (attempts, duplicates and abandoned ones included). */
  received: number;
  /** Requests the sender gave up on before the receiver's delayed 200. */
  abandoned: number;
  /** Events delivered before the wait for deliveries began (when the charges were done). */
  deliveredBeforeWait: number;
}

/** One webhook phase: charges of one merchant with one or more endpoints on the local receiver. */
export interface WebhookPhaseResult {
  /** The charges of this phase, created and awaited exactly as in the charge phase. */
  charges: PhaseResult;
  /** Outbox relay poll interval in effect (WEBHOOK_OUTBOX_POLL_MS, default 200). */
  pollMs: number;
  /** Sum over the endpoints: events each endpoint subscribes to (of this merchant, once every charge succeeded). */
  expected: number;
  /** Expected (event, endpoint) pairs the receiver answered with a 2xx at least once. */
  delivered: number;
  /** Per endpoint: sent = delivered + missing. */
  ledger: EndpointLedger[];
  /** (event, endpoint) pairs delivered when the charges were done and the wait began; expected − this = the backlog then. */
  deliveredBeforeWait: number;
  /** How long the wait for deliveries was allowed to take. */
  waitTimeoutMs: number;
  /** Every request the receiver answered 200 for this endpoint (duplicates included). */
  requests: number;
  /** Requests beyond the first for the same event id. */
  duplicates: number;
  badSignatures: number;
  /** Expected events never received before the wait ended. */
  missing: number;
  /** Received event ids that are not events of this merchant. */
  unexpected: number;
  /** Events received before their created_at (a clock or measurement problem). */
  negative: number;
  /** Requests to another path of the receiver (none expected). */
  strays: number;
  timedOut: boolean;
  /** First problems seen (signature failures, missing ids), for the report. */
  problems: string[];
  /** Epoch ms: first charge POST sent, first and last 200 sent by the receiver (first per event and endpoint), the charges done. */
  startedAtMs: number;
  firstDeliveryAtMs: number;
  lastDeliveryAtMs: number;
  chargesDoneAtMs: number;
  /** Highest number of 200s sent by the receiver in any 1 s window. */
  peakPerSecond: number;
  /** Per event type: receiver's first 2xx send time − the event's created_at (per endpoint). */
  latencyMsByType: Record<string, number[]>;
  /** The same latency split at the delivery row's created_at and the first attempt's attempted_at. */
  stagesMs: Array<{ stage: string; values: number[] }>;
  /** Why there is no stage split (the relay's tables changed shape), if there is none. */
  stagesUnavailable?: string;
  cpu: CpuSnapshot;
  elu: number;
  /** From the first charge POST to the last delivery (or the end of the wait). */
  wallMs: number;
  peakRss: PeakRss;
}

/** A merchant with its endpoints, whose charges can be sent now and their deliveries collected later. */
export interface WebhookLoad {
  merchantId: string;
  /** Sends the charges (through the API; paced at one per `intervalMs` when given) and waits until each one succeeded; may be called once. */
  charges(name: string, n: number, concurrency: number, intervalMs?: number): Promise<PhaseResult>;
  /** Events delivered so far / expected so far, over every endpoint. */
  progress(): Promise<{ sent: number; delivered: number }>;
  /** Waits up to `waitTimeoutMs` for every expected delivery, then the figures. */
  collect(waitTimeoutMs: number, options?: { stages?: boolean }): Promise<WebhookPhaseResult>;
}

export interface WebhookBench {
  /** A few charges on their own merchant and endpoint, so the first deliveries' start-up is not measured. */
  warmup(n: number, concurrency: number): Promise<void>;
  /** One endpoint (every event type) for a fresh merchant: charges, then every delivery awaited. */
  phase(name: string, n: number, concurrency: number): Promise<WebhookPhaseResult>;
  /** A fresh merchant with these endpoints (at most WEBHOOK_MAX_ENDPOINTS), each on its own receiver path. */
  load(endpoints: EndpointSpec[]): Promise<WebhookLoad>;
  close(): Promise<void>;
}

export interface WebhookBenchOptions {
  completion: CompletionMode;
  /** How long to wait for the deliveries once every charge has succeeded. */
  waitTimeoutMs: number;
  log(message: string): void;
}

async function merchantEvents(infra: BenchInfra, merchantId: string): Promise<Map<string, { type: string; createdAtMs: number }>> {
  const rows = await infra.orm.em
    .getConnection()
    .execute<{ id: string; type: string; created_ms: number }[]>(
      `select id, type, (extract(epoch from created_at) * 1000)::float8 as created_ms from events where merchant_id = ? and environment = 'sandbox'`,
      [merchantId],
    );
  return new Map(rows.map((r) => [r.id, { type: r.type, createdAtMs: Number(r.created_ms) }]));
}

interface StageRow {
  event_id: string;
  endpoint_id: string;
  event_ms: number;
  fanout_ms: number;
  attempted_ms: number | null;
  duration_ms: number | null;
}

/**
 * Where the time goes, per delivery (first attempt): events.created_at → webhook_deliveries.created_at
 * (relay fan-out) → webhook_attempts.attempted_at (workflow time when the activity was scheduled) →
 * receiver 2xx. The attempt row is written after the 200, so this waits (bounded) for the last ones.
 * It reads the relay's own tables, so it is skipped (with the reason) if they change shape.
 */
async function stageBreakdown(
  infra: BenchInfra,
  merchantId: string,
  firstByEndpoint: ReadonlyMap<string, ReadonlyMap<string, { sentAtMs: number }>>,
): Promise<Array<{ stage: string; values: number[] }>> {
  const conn = infra.orm.em.getConnection();
  const got = (r: StageRow) => firstByEndpoint.get(r.endpoint_id)?.get(r.event_id);
  const query = () =>
    conn.execute<StageRow[]>(
      `select d.event_id, d.endpoint_id, (extract(epoch from e.created_at) * 1000)::float8 as event_ms, (extract(epoch from d.created_at) * 1000)::float8 as fanout_ms,
              (extract(epoch from a.attempted_at) * 1000)::float8 as attempted_ms, a.duration_ms
       from webhook_deliveries d join events e on e.id = d.event_id
       left join webhook_attempts a on a.delivery_id = d.id and a.attempt = 1
       where d.merchant_id = ? and d.replay_of is null`,
      [merchantId],
    );
  let rows = await query();
  for (let i = 0; i < 50 && rows.some((r) => r.attempted_ms === null && got(r)); i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    rows = await query();
  }
  const stages = [
    { stage: 'event created_at → delivery row (relay wake-up + fan-out)', values: [] as number[] },
    { stage: 'delivery row → attempt 1 scheduled (workflow start + first workflow task)', values: [] as number[] },
    { stage: 'attempt 1 scheduled → receiver 2xx (activity dispatch, load + sign, HTTP)', values: [] as number[] },
    { stage: 'of which HTTP request → response (sender duration_ms)', values: [] as number[] },
  ];
  for (const r of rows) {
    const first = got(r);
    if (!first || r.attempted_ms === null) continue;
    stages[0].values.push(r.fanout_ms - r.event_ms);
    stages[1].values.push(r.attempted_ms - r.fanout_ms);
    stages[2].values.push(first.sentAtMs - r.attempted_ms);
    if (r.duration_ms !== null) stages[3].values.push(Number(r.duration_ms));
  }
  return stages;
}

function peakPerSecond(sortedMs: number[]): number {
  let peak = 0;
  for (let lo = 0, hi = 0; hi < sortedMs.length; hi++) {
    while (sortedMs[hi] - sortedMs[lo] >= 1000) lo++;
    peak = Math.max(peak, hi - lo + 1);
  }
  return peak;
}

/**
 * Webhook phases on servers whose worker and relay already run with their default settings: each
 * phase registers endpoints (by default one, every event type; or several, with event filters, a
 * slow answer, a timeout) for a fresh merchant through POST /v1/webhook-endpoints, sends N charges
 * through the API and waits for every (event, endpoint) pair of that merchant at the local receiver
 * (scripts/bench/webhooks/receiver.ts), which verifies each signature.
 */
export async function startWebhookBench(infra: BenchInfra, options: WebhookBenchOptions): Promise<WebhookBench> {
  const { log } = options;
  const receiver: WebhookReceiver = await startReceiver();
  const pool = new Pool(infra.apiUrl, { connections: 4, pipelining: 1 });
  let phases = 0;

  let paths = 0;

  /** A fresh merchant with `endpoints`, each registered through POST /v1/webhook-endpoints on its own receiver path. */
  async function merchantWithEndpoints(specs: EndpointSpec[], pathPrefix?: string): Promise<{ id: string; key: string; endpoints: Array<EndpointSpec & { id: string; path: string }> }> {
    const merchant = await newMerchantKey(infra, 'Bench webhooks');
    const endpoints: Array<EndpointSpec & { id: string; path: string }> = [];
    for (const spec of specs) {
      const path = pathPrefix && specs.length === 1 ? pathPrefix : `/hooks-${++paths}`;
      const res = await pool.request({
        path: '/v1/webhook-endpoints',
        method: 'POST',
        headers: { authorization: `Bearer ${merchant.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: `${receiver.url}${path}`, subscribed_events: spec.events, ...(spec.timeoutSeconds !== undefined ? { timeout_seconds: spec.timeoutSeconds } : {}) }),
      });
      const text = await res.body.text();
      if (res.statusCode !== 201) throw new Error(`POST /v1/webhook-endpoints: HTTP ${res.statusCode}: ${text.slice(0, 200)}`);
      const created = JSON.parse(text) as { id: string; secret: string };
      receiver.register(path, created.secret, { delayMs: spec.answerDelayMs ?? 0 });
      endpoints.push({ ...spec, id: created.id, path });
    }
    return { ...merchant, endpoints };
  }

  const charges = (key: string, name: string, n: number, concurrency: number, prefix: string, intervalMs?: number) =>
    runChargePhase(infra, n, concurrency, { key, name, referencePrefix: prefix, completion: options.completion, intervalMs });

  async function load(specs: EndpointSpec[]): Promise<WebhookLoad> {
    const merchant = await merchantWithEndpoints(specs);
    const loadNo = ++phases;
    const workerPid = cpuTarget(infra.payments);
    let started: { before: CpuSnapshot; elu: ReturnType<typeof performance.eventLoopUtilization>; startedAtMs: number; t0: number } | undefined;
    let result: PhaseResult | undefined;
    let chargesDoneAtMs = NaN;
    /** Per endpoint, the events it subscribes to (id → type and created_at). */
    const expectedFor = async () => {
      const events = await merchantEvents(infra, merchant.id);
      return merchant.endpoints.map((e) => new Map([...events].filter(([, ev]) => e.events.length === 0 || e.events.includes(ev.type))));
    };
    return {
      merchantId: merchant.id,
      async charges(name, n, concurrency, intervalMs) {
        if (started) throw new Error('WebhookLoad.charges may be called once');
        started = { before: cpuSnapshot(workerPid), elu: performance.eventLoopUtilization(), startedAtMs: Date.now(), t0: performance.now() };
        result = await charges(merchant.key, name, n, concurrency, `bench-wh${loadNo}`, intervalMs);
        chargesDoneAtMs = Date.now();
        return result;
      },
      async progress() {
        const expected = await expectedFor();
        let sent = 0;
        let delivered = 0;
        merchant.endpoints.forEach((e, i) => {
          const first = receiver.firstByEvent(e.path);
          sent += expected[i].size;
          for (const id of expected[i].keys()) if (first.has(id)) delivered++;
        });
        return { sent, delivered };
      },
      async collect(waitTimeoutMs, collectOptions = {}) {
        if (!started || !result) throw new Error('WebhookLoad.collect before charges');
        const expected = await expectedFor();
        const deliveredBefore = merchant.endpoints.map((e, i) => {
          const first = receiver.firstByEvent(e.path);
          return [...expected[i].keys()].filter((id) => first.has(id)).length;
        });
        const total = expected.reduce((sum, m) => sum + m.size, 0);
        log(`${result.name}: ${result.completed}/${result.n} charges done, waiting up to ${fmt(waitTimeoutMs / 1000, 0)} s for ${total} deliveries to ${merchant.endpoints.length} endpoint(s) (${deliveredBefore.reduce((a, b) => a + b, 0)} already in)`);
        const complete = (await Promise.all(merchant.endpoints.map((e, i) => receiver.waitFor(e.path, new Set(expected[i].keys()), waitTimeoutMs)))).every(Boolean);
        const wallMs = performance.now() - started.t0;
        const cpu = cpuDelta(started.before, cpuSnapshot(workerPid));
        const eluUsed = performance.eventLoopUtilization(started.elu).utilization;

        const latencyMsByType: Record<string, number[]> = {};
        const problems: string[] = [];
        const ledger: EndpointLedger[] = [];
        const firstByEndpoint = new Map<string, ReadonlyMap<string, ReceivedDelivery>>();
        const sent: number[] = [];
        let requests = 0;
        let duplicates = 0;
        let badSignatures = 0;
        let unexpected = 0;
        let negative = 0;
        merchant.endpoints.forEach((e, i) => {
          const want = expected[i];
          const all = receiver.deliveries(e.path);
          const first = receiver.firstByEvent(e.path);
          firstByEndpoint.set(e.id, first);
          let missing = 0;
          for (const [id, event] of want) {
            const got = first.get(id);
            if (!got) {
              missing++;
              if (problems.length < 5) problems.push(`missing ${event.type} ${id} at ${e.path}`);
              continue;
            }
            const latency = got.sentAtMs - event.createdAtMs;
            if (latency < 0) negative++;
            (latencyMsByType[event.type] ??= []).push(latency);
            sent.push(got.sentAtMs);
          }
          requests += all.length;
          duplicates += all.length - first.size;
          unexpected += [...first.keys()].filter((id) => !want.has(id)).length;
          const bad = all.filter((d) => !d.signatureOk);
          badSignatures += bad.length;
          for (const d of bad.slice(0, 5)) if (problems.length < 10) problems.push(`signature check failed for ${d.eventId} (attempt ${d.attempt}) at ${e.path}: ${d.problem}`);
          const counts = receiver.counts(e.path);
          ledger.push({
            path: e.path,
            events: e.events.length ? e.events.join(', ') : 'all',
            sent: want.size,
            delivered: want.size - missing,
            missing,
            received: counts.received,
            abandoned: counts.abandoned,
            deliveredBeforeWait: deliveredBefore[i],
          });
        });
        if (negative) problems.push(`${negative} events were received before their created_at`);
        const missing = ledger.reduce((sum, l) => sum + l.missing, 0);
        let stagesMs: Array<{ stage: string; values: number[] }> = [];
        let stagesUnavailable: string | undefined;
        if (collectOptions.stages === false) stagesUnavailable = 'not measured for this phase';
        else {
          try {
            stagesMs = await stageBreakdown(infra, merchant.id, firstByEndpoint);
          } catch (error) {
            stagesUnavailable = error instanceof Error ? error.message.split('\n')[0] : String(error);
          }
        }
        sent.sort((a, b) => a - b);
        return {
          charges: result,
          pollMs: infra.config.webhooks.outboxPollMs,
          expected: total,
          delivered: total - missing,
          ledger,
          deliveredBeforeWait: deliveredBefore.reduce((a, b) => a + b, 0),
          waitTimeoutMs,
          requests,
          duplicates,
          badSignatures,
          missing,
          unexpected,
          negative,
          strays: receiver.strays(),
          timedOut: !complete,
          problems,
          startedAtMs: started.startedAtMs,
          firstDeliveryAtMs: sent[0] ?? NaN,
          lastDeliveryAtMs: sent[sent.length - 1] ?? NaN,
          chargesDoneAtMs,
          peakPerSecond: peakPerSecond(sent),
          latencyMsByType,
          stagesMs,
          ...(stagesUnavailable ? { stagesUnavailable } : {}),
          cpu,
          elu: eluUsed,
          wallMs: complete && sent.length ? sent[sent.length - 1] - started.startedAtMs : wallMs,
          peakRss: peakRss(workerPid),
        };
      },
    };
  }

  return {
    async warmup(n, concurrency) {
      const warm = await merchantWithEndpoints([{ events: [] }], '/warmup');
      log(`webhooks warm-up: ${n} charges`);
      await charges(warm.key, 'webhook warm-up', n, concurrency, 'bench-wh-warm');
      const ids = new Set((await merchantEvents(infra, warm.id)).keys());
      if (!(await receiver.waitFor('/warmup', ids, options.waitTimeoutMs))) log('webhooks warm-up: not every event arrived');
    },

    async phase(name, n, concurrency) {
      const l = await load([{ events: [] }]);
      await l.charges(name, n, concurrency);
      return l.collect(options.waitTimeoutMs);
    },

    load,

    async close() {
      await pool.close();
      await receiver.close();
    },
  };
}

/** Exit code 1: a signature that does not verify, an event never delivered, or a failed charge. */
export function webhookPhaseFailed(w: WebhookPhaseResult): boolean {
  return w.badSignatures > 0 || w.missing > 0 || w.expected === 0 || w.charges.create.errors.length > 0 || w.charges.completeErrors.length > 0 || w.charges.completed !== w.charges.n;
}
