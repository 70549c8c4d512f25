import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type net from 'node:net';

/** One request the receiver answered, with the 2xx send time (epoch ms). */
export interface ReceivedDelivery {
  eventId: string;
  eventType: string;
  attempt: number;
  /** Date.now() just before the 200 was written. */
  sentAtMs: number;
  /** Date.now() when the request's headers arrived (before its body was read and verified). */
  arrivedAtMs: number;
  /** Signature (v1= HMAC-SHA256 of `timestamp.body` with the endpoint secret), timestamp within 5 min, header id = body id. */
  signatureOk: boolean;
  problem?: string;
}

interface Mailbox {
  secret: string;
  /** How long the receiver holds each request before its 200 (0: at once). */
  delayMs: number;
  /** Requests whose connection the sender closed before the delayed 200 (no 2xx was sent). */
  abandoned: number;
  /** Requests received (before any delay), duplicates included. */
  received: number;
  deliveries: ReceivedDelivery[];
  firstByEvent: Map<string, ReceivedDelivery>;
  wanted?: { ids: ReadonlySet<string>; remaining: number; done: () => void };
}

export interface WebhookReceiver {
  /** Base URL, http://127.0.0.1:<port>. */
  url: string;
  /**
   * Accepts deliveries under `path` signed with `secret`; every other path gets 404. `delayMs`: the
   * 200 is sent that long after the request arrived (a slow endpoint); a request whose connection
   * the sender closes first (its timeout) gets no answer and is not a delivery.
   */
  register(path: string, secret: string, options?: { delayMs?: number }): void;
  /** Requests received under `path` (answered or not yet), and those the sender gave up on before a delayed 200. */
  counts(path: string): { received: number; abandoned: number };
  deliveries(path: string): ReceivedDelivery[];
  /** First delivery of each event id under `path`. */
  firstByEvent(path: string): ReadonlyMap<string, ReceivedDelivery>;
  /** Resolves true once every id in `ids` has arrived under `path`, false after `timeoutMs`. */
  waitFor(path: string, ids: ReadonlySet<string>, timeoutMs: number): Promise<boolean>;
  /** Requests to unregistered paths or with another method. */
  strays(): number;
  close(): Promise<void>;
}

const TOLERANCE_S = 300;

/** Checks the X-Service-Signature header the way a merchant would: any v1= element may match. */
export function verifySignature(secret: string, header: string | undefined, timestamp: string | undefined, rawBody: Buffer, nowMs: number): string | undefined {
  if (!header || !timestamp) return 'signature or timestamp header missing';
  if (!/^\d+$/.test(timestamp) || Math.abs(nowMs / 1000 - Number(timestamp)) > TOLERANCE_S) return `timestamp ${timestamp} outside ±${TOLERANCE_S} s`;
  const expected = createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest();
  const match = header.split(',').some((element) => {
    const [scheme, hex] = element.trim().split('=', 2);
    if (scheme !== 'v1' || !hex || !/^[0-9a-f]+$/.test(hex)) return false;
    const given = Buffer.from(hex, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  return match ? undefined : 'no v1 signature matches';
}

/** A node:http webhook receiver on 127.0.0.1 (ephemeral port) that verifies and answers 200 (at once, or after the path's delay). */
export async function startReceiver(): Promise<WebhookReceiver> {
  const boxes = new Map<string, Mailbox>();
  const timers = new Set<NodeJS.Timeout>();
  let strays = 0;
  const server = http.createServer((req, res) => {
    const arrivedAtMs = Date.now();
    const box = req.method === 'POST' ? boxes.get(req.url ?? '') : undefined;
    if (!box) {
      strays++;
      req.resume();
      res.writeHead(404).end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      box.received++;
      const raw = Buffer.concat(chunks);
      const header = (name: string) => {
        const v = req.headers[name];
        return Array.isArray(v) ? v.join(',') : v;
      };
      const eventId = header('x-service-event-id') ?? '';
      let problem = verifySignature(box.secret, header('x-service-signature'), header('x-service-timestamp'), raw, Date.now());
      let eventType = header('x-service-event-type') ?? '';
      try {
        const body = JSON.parse(raw.toString('utf8')) as { id?: string; type?: string };
        if (body.id !== eventId) problem ??= `header event id ${eventId} ≠ body id ${body.id}`;
        eventType ||= body.type ?? '';
      } catch {
        problem ??= 'body is not JSON';
      }
      const answer = () => {
        if (res.destroyed || req.socket.destroyed) {
          box.abandoned++;
          return;
        }
        const delivery: ReceivedDelivery = { eventId, eventType, attempt: Number(header('x-service-attempt') ?? NaN), sentAtMs: Date.now(), arrivedAtMs, signatureOk: !problem, ...(problem ? { problem } : {}) };
        res.writeHead(200, { 'content-length': '0' }).end();
        box.deliveries.push(delivery);
        if (!box.firstByEvent.has(eventId)) {
          box.firstByEvent.set(eventId, delivery);
          const w = box.wanted;
          if (w && w.ids.has(eventId) && --w.remaining === 0) w.done();
        }
      };
      if (box.delayMs <= 0) {
        answer();
        return;
      }
      const timer = setTimeout(() => {
        timers.delete(timer);
        answer();
      }, box.delayMs);
      timers.add(timer);
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const mailbox = (path: string) => {
    const box = boxes.get(path);
    if (!box) throw new Error(`receiver: ${path} is not registered`);
    return box;
  };
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    register(path, secret, options = {}) {
      boxes.set(path, { secret, delayMs: options.delayMs ?? 0, abandoned: 0, received: 0, deliveries: [], firstByEvent: new Map() });
    },
    counts(path) {
      const box = mailbox(path);
      return { received: box.received, abandoned: box.abandoned };
    },
    deliveries: (path) => mailbox(path).deliveries,
    firstByEvent: (path) => mailbox(path).firstByEvent,
    waitFor(path, ids, timeoutMs) {
      const box = mailbox(path);
      const remaining = [...ids].filter((id) => !box.firstByEvent.has(id)).length;
      if (remaining === 0) return Promise.resolve(true);
      return new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => {
          box.wanted = undefined;
          resolve(false);
        }, timeoutMs);
        box.wanted = {
          ids,
          remaining,
          done() {
            clearTimeout(timer);
            box.wanted = undefined;
            resolve(true);
          },
        };
      });
    },
    strays: () => strays,
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of timers) clearTimeout(timer);
        timers.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
