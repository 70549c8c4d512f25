import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { createMerchant } from '../../../src/persistence/merchants/merchant-store';
import { randomBase62 } from '../../../src/support/new-id';
import { completionWaiter, type CompletionMode } from './completion';
import type { BenchInfra } from './infra';
import { runPhase, type PhaseResult } from './load';

const MTN_GH = '3f9c2b1e-8a4d-4c6e-9b7a-1d2e3f4a5b01';

/** A sandbox mobile-money charge's request body (the bench's phases and probes share it). */
export function chargeBody(reference: string, options: { amount?: number; metadata?: Record<string, string> } = {}): string {
  return JSON.stringify({
    amount: options.amount ?? 15000,
    currency: 'GHS',
    channel: 'mobile_money',
    momo_network_id: MTN_GH,
    customer: { identifier: '233241234567', name: 'Ama Mensah' },
    reference,
    description: 'Benchmark charge',
    metadata: options.metadata ?? {},
  });
}

/** A fresh merchant's sandbox key (created in the database, as the CLI does). */
export async function newMerchantKey(infra: BenchInfra, name: string): Promise<{ id: string; key: string }> {
  const merchant = await createMerchant(infra.orm, `${name} ${randomBase62(6)}`);
  return { id: merchant.id, key: merchant.testKey.secret };
}

export interface ChargePhaseOptions {
  key: string;
  name: string;
  /** Reference prefix, so phases do not share references. */
  referencePrefix: string;
  completion: CompletionMode;
  /** > 0: one create every `intervalMs` (a fixed offered rate), still at most `concurrency` in flight. */
  intervalMs?: number;
}

/**
 * N POST /v1/charges against the sandbox listener (one fresh Idempotency-Key each, CONCURRENCY
 * connections and lanes); every answer must be 200 `awaiting_action`; then every charge is awaited
 * to `succeeded` (completion.ts).
 */
export async function runChargePhase(infra: BenchInfra, n: number, concurrency: number, options: ChargePhaseOptions): Promise<PhaseResult> {
  const pool = new Pool(infra.apiUrl, { connections: concurrency, pipelining: 1 });
  const waiter = completionWaiter(infra, options.key, options.completion, concurrency);
  const headers = { authorization: `Bearer ${options.key}`, 'content-type': 'application/json' };
  const createdAt = new Map<string, number>();
  try {
    return await runPhase({
      name: options.name,
      n,
      concurrency,
      intervalMs: options.intervalMs,
      async create(i) {
        const t0 = performance.now();
        const res = await pool.request({
          path: '/v1/charges',
          method: 'POST',
          headers: { ...headers, 'idempotency-key': `bench-${randomBase62(20)}` },
          body: chargeBody(`${options.referencePrefix}-${i}`),
        });
        const text = await res.body.text();
        if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}: ${text.slice(0, 200)}`);
        const charge = JSON.parse(text) as { id: string; status: string };
        if (charge.status !== 'awaiting_action') throw new Error(`created as ${charge.status}`);
        createdAt.set(charge.id, t0);
        return charge.id;
      },
      historyLength: async (id) => (await infra.temporal.client.workflow.getHandle(id).describe()).historyLength,
      awaitResult: (id) => waiter.wait(id, createdAt.get(id) ?? performance.now()),
    });
  } finally {
    await waiter.close();
    await pool.close();
  }
}
