import { performance } from 'node:perf_hooks';
import type { Pool } from 'undici';
import { randomBase62 } from '../../../src/support/new-id';
import { chargeBody } from './charges';

/** One API request with a merchant's key; the parsed answer, or an error naming any status ≥ 300. A charge create gets a fresh Idempotency-Key. */
export async function apiCall(pool: Pool, key: string, method: string, path: string, body?: string | Record<string, unknown>): Promise<Record<string, any>> {
  const headers: Record<string, string> = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  if (method === 'POST' && path === '/v1/charges') headers['idempotency-key'] = `bench-${randomBase62(20)}`;
  const res = await pool.request({ path, method: method as 'GET', headers, ...(body ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}) });
  const text = await res.body.text();
  if (res.statusCode >= 300) throw new Error(`${method} ${path}: HTTP ${res.statusCode} ${text.slice(0, 200)}`);
  return JSON.parse(text);
}

/**
 * `n` sandbox charges, at most `concurrency` at once; with `intervalMs` > 0 one is due every
 * `intervalMs` from the start (open loop: a slow answer does not push the next one back, within the
 * `concurrency` in flight). Their ids, in the order they were answered.
 */
export async function createCharges(pool: Pool, key: string, n: number, concurrency: number, intervalMs = 0, reference = 'bench'): Promise<string[]> {
  const ids: string[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (;;) {
        const i = next++;
        if (i >= n) return;
        if (intervalMs > 0) {
          const due = started + i * intervalMs;
          if (due > performance.now()) await new Promise((r) => setTimeout(r, due - performance.now()));
        }
        ids.push((await apiCall(pool, key, 'POST', '/v1/charges', chargeBody(`${reference}-${i}-${Date.now()}`))).id as string);
      }
    }),
  );
  return ids;
}
