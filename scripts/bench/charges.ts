import { Pool } from 'undici';
import type { ChargeRecord } from '../../src/domain/charge';
import { createMerchant } from '../../src/persistence/merchant-store';
import { randomBase62 } from '../../src/support/new-id';
import type { BenchInfra } from './infra';
import { runPhase, type PhaseResult } from './load';

const MTN_GH = '3f9c2b1e-8a4d-4c6e-9b7a-1d2e3f4a5b01';

function chargeBody(reference: string): string {
  return JSON.stringify({
    amount: 15000,
    currency: 'GHS',
    channel: 'mobile_money',
    momo_network_id: MTN_GH,
    customer: { identifier: '233241234567', name: 'Ama Mensah' },
    reference,
    description: 'Benchmark charge',
    metadata: {},
  });
}

export interface ChargePhaseOptions {
  /** Charge for this merchant's sandbox key (default: a fresh merchant). */
  key?: string;
  name?: string;
  /** Reference prefix, so phases do not share references. */
  referencePrefix?: string;
}

/**
 * (a) N POST /v1/charges against the sandbox listener (one fresh Idempotency-Key each), then every
 * charge awaited to `succeeded` through its workflow handle.
 */
export async function runChargePhase(infra: BenchInfra, n: number, concurrency: number, options: ChargePhaseOptions = {}): Promise<PhaseResult> {
  const key = options.key ?? (await createMerchant(infra.orm, `Bench ${randomBase62(6)}`)).testKey.secret;
  const pool = new Pool(infra.apiUrl, { connections: concurrency, pipelining: 1 });
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const prefix = options.referencePrefix ?? 'bench';
  try {
    return await runPhase({
      name: options.name ?? 'charge: POST /v1/charges',
      n,
      concurrency,
      async create(i) {
        const res = await pool.request({
          path: '/v1/charges',
          method: 'POST',
          headers: { ...headers, 'idempotency-key': `bench-${randomBase62(20)}` },
          body: chargeBody(`${prefix}-${i}`),
        });
        const text = await res.body.text();
        if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}: ${text.slice(0, 200)}`);
        const charge = JSON.parse(text) as { id: string; status: string };
        if (charge.status !== 'awaiting_action') throw new Error(`created as ${charge.status}`);
        return charge.id;
      },
      historyLength: async (id) => (await infra.temporal.client.workflow.getHandle(id).describe()).historyLength,
      async awaitResult(id) {
        const final = (await infra.temporal.client.workflow.getHandle(id).result()) as ChargeRecord;
        if (final.status !== 'succeeded') throw new Error(`${id} ended ${final.status}`);
      },
    });
  } finally {
    await pool.close();
  }
}
