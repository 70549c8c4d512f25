/**
 * A webhook receiver for integration tests: records every request and checks its signatures with
 * its own HMAC code (deliberately independent of src/verifier, so the two check each other).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the receiver saw it. */
export interface ReceivedDelivery {
  /** The request path (each test endpoint gets its own path under the receiver's url). */
  path: string;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** The raw body (UTF-8). */
  body: string;
  /** Date.now() on arrival. */
  receivedAt: number;
  /** The hex values of the X-Service-Signature `v1=` elements, in header order. */
  signatures: string[];
  /**
   * For each `v1=` element in header order, the known secret (see setSecrets) it was made with;
   * elements matching no secret are left out, so `[]` means the delivery is not authentic.
   */
  validFor: string[];
}

/** What to answer to delivery number `index` (0-based, counting every request received). */
export type Responder = (d: ReceivedDelivery, index: number) => {
  status: number;
  /** Text (sent as UTF-8) or raw bytes (binary, UTF-16, NUL bytes). */
  body?: string | Uint8Array;
  headers?: Record<string, string>;
  /** Answer only after this long (a slow receiver). */
  delayMs?: number;
  /** Answer only once this settles (a receiver held until the test says so). */
  release?: Promise<unknown>;
};

/** A running test receiver; see {@link startTestReceiver}. */
export interface TestReceiver {
  /** http://127.0.0.1:PORT/hook (any path is accepted). */
  url: string;
  deliveries: ReceivedDelivery[];
  /** The secrets `validFor` is computed against, for deliveries received from now on. */
  setSecrets(secrets: string[]): void;
  respond(r: Responder): void;
  /** Resolves with the deliveries once `predicate` holds (checked now and on each arrival); rejects after `timeoutMs` (10 s). */
  waitFor(predicate: (ds: ReceivedDelivery[]) => boolean, timeoutMs?: number): Promise<ReceivedDelivery[]>;
  /** Stops listening and drops open connections, including responses still being delayed. */
  close(): Promise<void>;
}

interface Waiter {
  check(): void;
  fail(error: Error): void;
}

const OK: Responder = () => ({ status: 200, body: 'ok' });

function hmacHex(secret: string, timestamp: string, body: Buffer): string {
  const mac = createHmac('sha256', Buffer.from(secret, 'utf8'));
  mac.update(Buffer.concat([Buffer.from(timestamp, 'utf8'), Buffer.from('.'), body]));
  return mac.digest('hex');
}

function sameHex(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

function record(req: http.IncomingMessage, raw: Buffer, secrets: readonly string[]): ReceivedDelivery {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  const signatures = (headers['x-service-signature'] ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e.startsWith('v1='))
    .map((e) => e.slice(3));
  const timestamp = headers['x-service-timestamp'] ?? '';
  const validFor = signatures
    .map((sig) => secrets.find((secret) => sameHex(sig, hmacHex(secret, timestamp, raw))))
    .filter((s): s is string => s !== undefined);
  return { path: req.url ?? '', headers, body: raw.toString('utf8'), receivedAt: Date.now(), signatures, validFor };
}

/** What arrived, one line per delivery, for failure messages. */
function summary(ds: ReceivedDelivery[]): string {
  if (ds.length === 0) return 'nothing was received';
  return `received ${ds.length}:\n` + ds.map((d, i) => {
    let event = d.body.slice(0, 80);
    try {
      const e = JSON.parse(d.body) as { id?: string; type?: string; sequence?: number };
      event = `${e.type} ${e.id} seq ${e.sequence}`;
    } catch { /* not JSON: show the start of the body */ }
    const h = d.headers;
    return `  #${i}: ${event}, attempt ${h['x-service-attempt']}, ${h['x-service-delivery-id']}, valid for ${d.validFor.length} secret(s)`;
  }).join('\n');
}

/** Starts a receiver on an ephemeral 127.0.0.1 port; it answers 200 "ok" until told otherwise. */
export async function startTestReceiver(): Promise<TestReceiver> {
  const deliveries: ReceivedDelivery[] = [];
  const waiters = new Set<Waiter>();
  const timers = new Set<NodeJS.Timeout>();
  let secrets: string[] = [];
  let responder = OK;

  function answer(res: http.ServerResponse, d: ReceivedDelivery, index: number): void {
    let reply: ReturnType<Responder>;
    try {
      reply = responder(d, index);
    } catch (error) {
      reply = { status: 500, body: `responder threw: ${(error as Error).message}` };
    }
    const send = () => {
      res.writeHead(reply.status, { 'content-type': 'text/plain', ...reply.headers });
      res.end(reply.body ?? '');
    };
    if (reply.release) {
      const sendIfOpen = () => {
        if (!res.destroyed) send();
      };
      void reply.release.then(sendIfOpen, sendIfOpen);
      return;
    }
    if (!reply.delayMs) return send();
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (!res.destroyed) send();
    }, reply.delayMs);
    timers.add(timer);
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const d = record(req, Buffer.concat(chunks), secrets);
      const index = deliveries.push(d) - 1;
      for (const w of [...waiters]) w.check();
      answer(res, d, index);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/hook`,
    deliveries,
    setSecrets(list) {
      secrets = [...list];
    },
    respond(r) {
      responder = r;
    },
    waitFor(predicate, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const waiter: Waiter = {
          check: () => {
            let met: boolean;
            try {
              met = predicate(deliveries);
            } catch (error) {
              return waiter.fail(error as Error);
            }
            if (!met) return;
            done();
            resolve(deliveries);
          },
          fail: (error: Error) => {
            done();
            reject(error);
          },
        };
        const timer = setTimeout(() => {
          waiter.fail(new Error(`webhook receiver: condition not met within ${timeoutMs} ms; ${summary(deliveries)}`));
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          waiters.delete(waiter);
        };
        waiters.add(waiter);
        waiter.check();
      });
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      for (const w of [...waiters]) w.fail(new Error(`webhook receiver closed while waiting; ${summary(deliveries)}`));
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}
