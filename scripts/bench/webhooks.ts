import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import type { BenchInfra } from './infra';
import { newMerchantKey, runChargePhase } from './charges';
import type { CompletionMode } from './completion';
import type { PhaseResult } from './load';
import { cpuDelta, cpuSnapshot, peakRss, type CpuSnapshot, type PeakRss } from './procs';
import { startReceiver, type WebhookReceiver } from './receiver';

/** One webhook phase: charges of one merchant with one endpoint (all events) on the local receiver. */
export interface WebhookPhaseResult {
  /** The charges of this phase, created and awaited exactly as in the charge phase. */
  charges: PhaseResult;
  /** Outbox relay poll interval in effect (WEBHOOK_OUTBOX_POLL_MS, default 200). */
  pollMs: number;
  /** Events of the phase's merchant in the `events` table once every charge succeeded. */
  expected: number;
  /** Expected events the receiver got at least once. */
  delivered: number;
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
  /** Epoch ms: first charge POST sent, first and last 200 sent by the receiver. */
  startedAtMs: number;
  firstDeliveryAtMs: number;
  lastDeliveryAtMs: number;
  /** Highest number of 200s sent by the receiver in any 1 s window. */
  peakPerSecond: number;
  /** Per event type: receiver's first 2xx send time − the event's created_at. */
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

export interface WebhookBench {
  /** A few charges on their own merchant and endpoint, so the first deliveries' start-up is not measured. */
  warmup(n: number, concurrency: number): Promise<void>;
  phase(name: string, n: number, concurrency: number): Promise<WebhookPhaseResult>;
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
async function stageBreakdown(infra: BenchInfra, merchantId: string, first: ReadonlyMap<string, { sentAtMs: number }>): Promise<Array<{ stage: string; values: number[] }>> {
  const conn = infra.orm.em.getConnection();
  const query = () =>
    conn.execute<StageRow[]>(
      `select d.event_id, (extract(epoch from e.created_at) * 1000)::float8 as event_ms, (extract(epoch from d.created_at) * 1000)::float8 as fanout_ms,
              (extract(epoch from a.attempted_at) * 1000)::float8 as attempted_ms, a.duration_ms
       from webhook_deliveries d join events e on e.id = d.event_id
       left join webhook_attempts a on a.delivery_id = d.id and a.attempt = 1
       where d.merchant_id = ? and d.replay_of is null`,
      [merchantId],
    );
  let rows = await query();
  for (let i = 0; i < 50 && rows.some((r) => r.attempted_ms === null && first.has(r.event_id)); i++) {
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
    const got = first.get(r.event_id);
    if (!got || r.attempted_ms === null) continue;
    stages[0].values.push(r.fanout_ms - r.event_ms);
    stages[1].values.push(r.attempted_ms - r.fanout_ms);
    stages[2].values.push(got.sentAtMs - r.attempted_ms);
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
 * phase registers one endpoint (every event type) for a fresh merchant through
 * POST /v1/webhook-endpoints, sends N charges through the API and waits for every event of that
 * merchant at the local receiver (scripts/bench/receiver.ts), which verifies each signature.
 */
export async function startWebhookBench(infra: BenchInfra, options: WebhookBenchOptions): Promise<WebhookBench> {
  const { log } = options;
  const receiver: WebhookReceiver = await startReceiver();
  const pool = new Pool(infra.apiUrl, { connections: 4, pipelining: 1 });
  let phases = 0;

  async function merchantWithEndpoint(path: string): Promise<{ id: string; key: string }> {
    const merchant = await newMerchantKey(infra, 'Bench webhooks');
    const res = await pool.request({
      path: '/v1/webhook-endpoints',
      method: 'POST',
      headers: { authorization: `Bearer ${merchant.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${receiver.url}${path}`, subscribed_events: [] }),
    });
    const text = await res.body.text();
    if (res.statusCode !== 201) throw new Error(`POST /v1/webhook-endpoints: HTTP ${res.statusCode}: ${text.slice(0, 200)}`);
    receiver.register(path, (JSON.parse(text) as { secret: string }).secret);
    return merchant;
  }

  const charges = (key: string, name: string, n: number, concurrency: number, prefix: string) =>
    runChargePhase(infra, n, concurrency, { key, name, referencePrefix: prefix, completion: options.completion });

  return {
    async warmup(n, concurrency) {
      const warm = await merchantWithEndpoint('/warmup');
      log(`webhooks warm-up: ${n} charges`);
      await charges(warm.key, 'webhook warm-up', n, concurrency, 'bench-wh-warm');
      const ids = new Set((await merchantEvents(infra, warm.id)).keys());
      if (!(await receiver.waitFor('/warmup', ids, options.waitTimeoutMs))) log('webhooks warm-up: not every event arrived');
    },

    async phase(name, n, concurrency) {
      const path = `/hooks-${++phases}`;
      const merchant = await merchantWithEndpoint(path);
      const workerPid = infra.payments.pid;
      const before = cpuSnapshot(workerPid);
      const elu = performance.eventLoopUtilization();
      const startedAtMs = Date.now();
      const t0 = performance.now();
      const result = await charges(merchant.key, name, n, concurrency, `bench-wh${phases}`);
      const expected = await merchantEvents(infra, merchant.id);
      log(`${name}: ${result.completed}/${n} charges done, waiting for ${expected.size} events at the receiver`);
      const complete = await receiver.waitFor(path, new Set(expected.keys()), options.waitTimeoutMs);
      const wallMs = performance.now() - t0;
      const cpu = cpuDelta(before, cpuSnapshot(workerPid));
      const eluUsed = performance.eventLoopUtilization(elu).utilization;

      const requests = receiver.deliveries(path);
      const first = receiver.firstByEvent(path);
      const latencyMsByType: Record<string, number[]> = {};
      const problems: string[] = [];
      let missing = 0;
      let negative = 0;
      for (const [id, event] of expected) {
        const got = first.get(id);
        if (!got) {
          missing++;
          if (problems.length < 5) problems.push(`missing ${event.type} ${id}`);
          continue;
        }
        const latency = got.sentAtMs - event.createdAtMs;
        if (latency < 0) negative++;
        (latencyMsByType[event.type] ??= []).push(latency);
      }
      if (negative) problems.push(`${negative} events were received before their created_at`);
      const bad = requests.filter((d) => !d.signatureOk);
      for (const d of bad.slice(0, 5)) problems.push(`signature check failed for ${d.eventId} (attempt ${d.attempt}): ${d.problem}`);
      let stagesMs: Array<{ stage: string; values: number[] }> = [];
      let stagesUnavailable: string | undefined;
      try {
        stagesMs = await stageBreakdown(infra, merchant.id, first);
      } catch (error) {
        stagesUnavailable = error instanceof Error ? error.message.split('\n')[0] : String(error);
      }
      const sent = requests.map((d) => d.sentAtMs).sort((a, b) => a - b);
      return {
        charges: result,
        pollMs: infra.config.webhooks.outboxPollMs,
        expected: expected.size,
        delivered: expected.size - missing,
        requests: requests.length,
        duplicates: requests.length - first.size,
        badSignatures: bad.length,
        missing,
        unexpected: [...first.keys()].filter((id) => !expected.has(id)).length,
        negative,
        strays: receiver.strays(),
        timedOut: !complete,
        problems,
        startedAtMs,
        firstDeliveryAtMs: sent[0] ?? NaN,
        lastDeliveryAtMs: sent[sent.length - 1] ?? NaN,
        peakPerSecond: peakPerSecond(sent),
        latencyMsByType,
        stagesMs,
        ...(stagesUnavailable ? { stagesUnavailable } : {}),
        cpu,
        elu: eluUsed,
        wallMs: complete && sent.length ? sent[sent.length - 1] - startedAtMs : wallMs,
        peakRss: peakRss(workerPid),
      };
    },

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
