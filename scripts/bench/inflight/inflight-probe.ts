import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { randomBase62 } from '../../../src/support/new-id';
import { chargeBody } from '../shared/charges';

/** One probe request's outcome, tagged with the window it was sent in. */
export interface ProbeSample {
  window: string;
  /** When it was sent, seconds since the probe started. */
  atS: number;
  kind: string;
  ms: number;
  ok: boolean;
}

export interface ProbeOptions {
  apiUrl: string;
  key: string;
  /** Requests per second, sent on a fixed schedule (open loop: a slow answer never delays the next request). */
  rate: number;
  /** A charge id the probe reads back (GET /v1/charges/{id}). */
  chargeId: string;
  /** performance.now() that `atS` counts from (default: the probe's start). */
  originMs?: number;
}

/** The merchant's four everyday calls, in turn: a charge create (sandbox default, completes in 3 s), a charge read, balances, a list page. */
function request(kind: number, key: string, chargeId: string): { kind: string; path: string; method: 'GET' | 'POST'; body?: string; headers: Record<string, string> } {
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  switch (kind % 4) {
    case 0:
      return {
        kind: 'POST /v1/charges',
        path: '/v1/charges',
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', 'idempotency-key': `probe-${randomBase62(20)}` },
        body: chargeBody(`probe-${randomBase62(12)}`, { amount: 1000 }),
      };
    case 1:
      return { kind: 'GET /v1/charges/{id}', path: `/v1/charges/${chargeId}`, method: 'GET', headers };
    case 2:
      return { kind: 'GET /v1/balances', path: '/v1/balances', method: 'GET', headers };
    default:
      return { kind: 'GET /v1/charges?limit=10', path: '/v1/charges?limit=10', method: 'GET', headers };
  }
}

/**
 * The API's latency as a merchant sees it, open loop: `rate` requests a second on a fixed schedule
 * whatever the answers take, each tagged with the window (`setWindow`) it was sent in. A request not
 * answered 200 counts as not ok (and its latency still counts).
 */
export function startProbe(options: ProbeOptions) {
  const pool = new Pool(options.apiUrl, { connections: 64, pipelining: 1 });
  const samples: ProbeSample[] = [];
  const inFlight = new Set<Promise<void>>();
  let window = 'before';
  let sent = 0;
  let stopped = false;
  const started = performance.now();
  const origin = options.originMs ?? started;
  const intervalMs = 1000 / options.rate;

  const fire = () => {
    const spec = request(sent++, options.key, options.chargeId);
    const tagged = window;
    const t0 = performance.now();
    const atS = (t0 - origin) / 1000;
    const done = pool
      .request({ path: spec.path, method: spec.method, headers: spec.headers, ...(spec.body ? { body: spec.body } : {}) })
      .then(async (res) => {
        await res.body.text();
        samples.push({ window: tagged, atS, kind: spec.kind, ms: performance.now() - t0, ok: res.statusCode === 200 });
      })
      .catch(() => {
        samples.push({ window: tagged, atS, kind: spec.kind, ms: performance.now() - t0, ok: false });
      });
    inFlight.add(done);
    void done.finally(() => inFlight.delete(done));
  };

  const loop = async () => {
    while (!stopped) {
      const due = started + sent * intervalMs;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      if (!stopped) fire();
    }
  };
  const running = loop();

  return {
    samples,
    setWindow(name: string) {
      window = name;
    },
    async stop() {
      stopped = true;
      await running;
      await Promise.all([...inFlight]);
      await pool.close();
    },
  };
}
