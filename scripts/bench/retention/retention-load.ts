import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { randomBase62 } from '../../../src/support/new-id';
import type { Sample } from './retention-report';

const MTN_GH = '3f9c2b1e-8a4d-4c6e-9b7a-1d2e3f4a5b01';

/** The request mix, in turn: a charge create, a GET of a charge, the balances, a page of the events walk. */
export const MIX = ['create', 'get_charge', 'balances', 'events'] as const;

/**
 * The API load of the retention bench (scripts/bench/retention/retention.ts) on one merchant's sandbox key:
 * `send(i)` sends request `i` of the mix and throws unless the API answered 200. Charges created are
 * read back by the GETs; the events walk goes forward by `after_sequence`, 20 a page, and starts
 * again from 0 at its end.
 */
export function apiMix(apiUrl: string, key: string) {
  const pool = new Pool(apiUrl, { connections: 128, pipelining: 1 });
  const headers = { authorization: `Bearer ${key}` };
  const charges: string[] = [];
  let after = 0;
  const request = async (method: 'GET' | 'POST', path: string, body?: string, extra: Record<string, string> = {}) => {
    const res = await pool.request({ method, path, body, headers: { ...headers, ...extra } });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`${method} ${path}: ${res.statusCode} ${text.slice(0, 200)}`);
    return JSON.parse(text) as Record<string, unknown>;
  };
  const create = async () => {
    const body = JSON.stringify({
      amount: 15000,
      currency: 'GHS',
      channel: 'mobile_money',
      momo_network_id: MTN_GH,
      customer: { identifier: '233241234567', name: 'Ama Mensah' },
      reference: `ret-${randomBase62(12)}`,
      description: 'Retention bench charge',
      metadata: {},
    });
    const json = await request('POST', '/v1/charges', body, { 'content-type': 'application/json', 'idempotency-key': randomBase62(24) });
    charges.push(String(json.id));
  };
  const send = async (i: number): Promise<void> => {
    switch (MIX[i % MIX.length]) {
      case 'create':
        return create();
      case 'get_charge':
        if (charges.length === 0) return create();
        await request('GET', `/v1/charges/${charges[Math.floor(Math.random() * charges.length)]}`);
        return;
      case 'balances':
        await request('GET', '/v1/balances');
        return;
      case 'events': {
        const page = await request('GET', `/v1/events?after_sequence=${after}&limit=20`);
        const data = (page.data ?? []) as Array<{ sequence?: number }>;
        after = data.length ? Number(data[data.length - 1].sequence ?? 0) : 0;
        return;
      }
    }
  };
  return { send, kindOf: (i: number) => MIX[i % MIX.length], close: () => pool.close() };
}

export interface LoopResult {
  samples: Sample[];
  errors: string[];
}

/**
 * Open loop: request `i` is sent at `start + i / rate` whether or not earlier ones answered (a fixed
 * offered rate), until `stop()` says so; its latency counts from when it was due, so a stall of the
 * sender or the server shows in the figure (no coordinated omission).
 */
export async function openLoop(rate: number, stop: () => boolean, send: (i: number) => Promise<void>, kindOf: (i: number) => string): Promise<LoopResult> {
  const samples: Sample[] = [];
  const errors: string[] = [];
  const inflight: Promise<void>[] = [];
  const interval = 1000 / rate;
  const start = performance.now();
  for (let i = 0; !stop(); i++) {
    const due = start + i * interval;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    if (stop()) break;
    inflight.push(
      send(i).then(
        () => void samples.push({ kind: kindOf(i), ms: performance.now() - due, start: performance.timeOrigin + due, end: performance.timeOrigin + performance.now() }),
        (e: unknown) => void errors.push(e instanceof Error ? e.message : String(e)),
      ),
    );
  }
  await Promise.all(inflight);
  return { samples, errors };
}

/** Closed loop: `concurrency` lanes, each sending the next request as soon as its last one answered, until `stop()`. */
export async function closedLoop(concurrency: number, stop: () => boolean, send: (i: number) => Promise<void>, kindOf: (i: number) => string): Promise<LoopResult> {
  const samples: Sample[] = [];
  const errors: string[] = [];
  let next = 0;
  const lane = async () => {
    while (!stop()) {
      const i = next++;
      const t0 = performance.now();
      try {
        await send(i);
        samples.push({ kind: kindOf(i), ms: performance.now() - t0, start: performance.timeOrigin + t0, end: performance.timeOrigin + performance.now() });
      } catch (e) {
        errors.push(e instanceof Error ? e.message : String(e));
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  return { samples, errors };
}
