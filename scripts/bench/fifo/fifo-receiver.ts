import http from 'node:http';
import type net from 'node:net';
import { verifySignature } from '../webhooks/receiver';

/** One request to a FIFO path, in the order the receiver got it (each is answered at once). */
export interface FifoRequest {
  eventId: string;
  /** X-Service-Sequence. */
  sequence: number;
  /** X-Service-Attempt. */
  attempt: number;
  /** What it was answered: 503 for a first request chosen to fail, else 200. */
  status: number;
  /** Date.now() just before the answer was written. */
  answeredAtMs: number;
  signatureOk: boolean;
}

export interface FifoReceiver {
  /** Base URL, http://127.0.0.1:<port>. */
  url: string;
  /**
   * Accepts deliveries under `path` signed with `secret`; the first request of every `failEvery`-th
   * event (by the order events first arrive: the failEvery-th, the 2 × failEvery-th, …) is answered 503, every
   * other request 200. Other paths get 404.
   */
  register(path: string, secret: string, failEvery: number): void;
  requests(path: string): readonly FifoRequest[];
  /** Distinct events answered 2xx under `path`. */
  delivered(path: string): number;
  /** Resolves true once every id in `ids` was answered 2xx under `path`, false after `timeoutMs`. */
  waitFor(path: string, ids: ReadonlySet<string>, timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

interface Box {
  secret: string;
  failEvery: number;
  requests: FifoRequest[];
  /** Events in the order they first arrived. */
  seen: Map<string, number>;
  ok: Set<string>;
  wanted?: { ids: ReadonlySet<string>; done: () => void };
}

/** A verifying receiver for the FIFO bench on 127.0.0.1 (ephemeral port): records every request, fails some first attempts. */
export async function startFifoReceiver(): Promise<FifoReceiver> {
  const boxes = new Map<string, Box>();
  const server = http.createServer((req, res) => {
    const box = req.method === 'POST' ? boxes.get(req.url ?? '') : undefined;
    if (!box) {
      req.resume();
      res.writeHead(404).end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const header = (name: string) => {
        const v = req.headers[name];
        return Array.isArray(v) ? v.join(',') : v;
      };
      const eventId = header('x-service-event-id') ?? '';
      const firstTime = !box.seen.has(eventId);
      if (firstTime) box.seen.set(eventId, box.seen.size);
      const status = firstTime && (box.seen.get(eventId)! + 1) % box.failEvery === 0 ? 503 : 200;
      const problem = verifySignature(box.secret, header('x-service-signature'), header('x-service-timestamp'), Buffer.concat(chunks), Date.now());
      box.requests.push({
        eventId,
        sequence: Number(header('x-service-sequence')),
        attempt: Number(header('x-service-attempt')),
        status,
        answeredAtMs: Date.now(),
        signatureOk: problem === undefined,
      });
      res.writeHead(status, { 'content-length': '0' }).end();
      if (status !== 200) return;
      box.ok.add(eventId);
      const w = box.wanted;
      if (w && [...w.ids].every((id) => box.ok.has(id))) w.done();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const boxOf = (path: string) => {
    const box = boxes.get(path);
    if (!box) throw new Error(`receiver: ${path} is not registered`);
    return box;
  };
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    register(path, secret, failEvery) {
      boxes.set(path, { secret, failEvery, requests: [], seen: new Map(), ok: new Set() });
    },
    requests: (path) => boxOf(path).requests,
    delivered: (path) => boxOf(path).ok.size,
    waitFor(path, ids, timeoutMs) {
      const box = boxOf(path);
      if ([...ids].every((id) => box.ok.has(id))) return Promise.resolve(true);
      return new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => {
          box.wanted = undefined;
          resolve(false);
        }, timeoutMs);
        box.wanted = {
          ids,
          done() {
            clearTimeout(timer);
            box.wanted = undefined;
            resolve(true);
          },
        };
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
