import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { DEFAULT_RATE_LIMITS } from '../../../src/config';
import { createApp } from '../../../src/http/app';
import type { BenchInfra } from '../shared/infra';
import { fmt, summarize, type Summary } from '../shared/stats';

/** Issue 20's goal: the limiter costs at most this much of the p50 of a request. */
export const RATE_LIMIT_GOAL_MS = 1;

export interface RateLimitBench {
  n: number;
  pairsPerSecond: number;
  perSecond: number;
  on: Summary;
  off: Summary;
  errors: string[];
}

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/**
 * The limiter's cost (issue 20): two sandbox listeners on the variant's own API dependencies (pool,
 * PostgreSQL), one with the limiter at INTERFACE's sandbox rate (25/s), one without (`off`, which only
 * the bench uses). `n` pairs of GET /v1/balances (authentication, one balance read; the cheapest
 * authenticated request), one request to each listener per pair, the order alternating, one pair
 * every 1000 / pairsPerSecond ms (20/s: below the limit, so none is refused and none queues), after
 * 50 unmeasured pairs. Latency = the client's send to the end of the answer, on one keep-alive
 * connection per listener.
 */
export async function runRateLimitBench(infra: BenchInfra, key: string, n: number, pairsPerSecond = 20): Promise<RateLimitBench> {
  const perSecond = DEFAULT_RATE_LIMITS.sandbox;
  const options = { environment: 'sandbox' as const, bodyLimitBytes: infra.config.bodyLimitBytes };
  const servers = [http.createServer(createApp(infra.deps, { ...options, rateLimitPerSecond: perSecond }).callback()), http.createServer(createApp(infra.deps, { ...options, rateLimitPerSecond: 'off' }).callback())];
  const [onUrl, offUrl] = await Promise.all(servers.map(listen));
  const pools = [new Pool(onUrl, { connections: 1, pipelining: 1 }), new Pool(offUrl, { connections: 1, pipelining: 1 })];
  const latencies: [number[], number[]] = [[], []];
  const errors: string[] = [];
  const get = async (side: 0 | 1, record: boolean) => {
    const t0 = performance.now();
    const res = await pools[side].request({ path: '/v1/balances', method: 'GET', headers: { authorization: `Bearer ${key}` } });
    const text = await res.body.text();
    const ms = performance.now() - t0;
    if (res.statusCode !== 200) errors.push(`${side === 0 ? 'on' : 'off'}: HTTP ${res.statusCode}: ${text.slice(0, 200)}`);
    else if (side === 0 && res.headers['ratelimit-limit'] !== String(perSecond)) errors.push(`on: RateLimit-Limit ${String(res.headers['ratelimit-limit'])}`);
    else if (record) latencies[side].push(ms);
  };
  try {
    const warmup = 50;
    const started = performance.now();
    for (let i = 0; i < warmup + n; i++) {
      const wait = started + (i * 1000) / pairsPerSecond - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const order: Array<0 | 1> = i % 2 === 0 ? [0, 1] : [1, 0];
      for (const side of order) await get(side, i >= warmup);
    }
    return { n, pairsPerSecond, perSecond, on: summarize(latencies[0]), off: summarize(latencies[1]), errors };
  } finally {
    await Promise.all(pools.map((p) => p.close()));
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  }
}

/** The report's section: the two rows, the p50 difference against the goal. */
export function renderRateLimit(r: RateLimitBench): string[] {
  const row = (name: string, s: Summary) => `| ${name} | ${s.count} | ${fmt(s.p50, 2)} | ${fmt(s.p90, 2)} | ${fmt(s.p99, 2)} | ${fmt(s.mean, 2)} |`;
  const cost = r.on.p50 - r.off.p50;
  const verdict = r.errors.length ? 'VOID' : cost <= RATE_LIMIT_GOAL_MS ? 'PASS' : 'FAIL';
  return [
    '### Rate limits (issue 20)',
    '',
    `GET /v1/balances, ${r.n} pairs at ${r.pairsPerSecond} pairs/s (one request to each listener per pair, alternating), after 50 unmeasured pairs; limiter at ${r.perSecond}/s (INTERFACE's sandbox rate) against none. Latencies in ms.`,
    '',
    '| limiter | requests | p50 | p90 | p99 | mean |',
    '|:--|--:|--:|--:|--:|--:|',
    row('on (PostgreSQL store)', r.on),
    row('off', r.off),
    '',
    `Cost at p50: ${fmt(cost, 2)} ms (goal ≤ ${RATE_LIMIT_GOAL_MS} ms) **${verdict}**; at p90 ${fmt(r.on.p90 - r.off.p90, 2)} ms, at p99 ${fmt(r.on.p99 - r.off.p99, 2)} ms.`,
    ...r.errors.slice(0, 3).map((e) => `- error: ${e}`),
  ];
}
