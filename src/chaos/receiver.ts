import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhook, WebhookVerificationError } from '../verifier';
import type { Rng } from './random';

/** One delivery as the chaos receiver saw it. */
export interface ReceivedEvent {
  /** The receiver path's endpoint name (`/hook/<name>`). */
  endpoint: string;
  eventId: string | null;
  deliveryId: string | null;
  attempt: string | null;
  /** The signature verified with the endpoint's secret (src/verifier). */
  verified: boolean;
  /** Why it did not. */
  problem: string | null;
  /** What the receiver answered (0: it dropped the connection). */
  answered: number;
  at: number;
}

/** How the receiver answers: 200 at once, or a bad spell of slow and failing answers. */
export type ReceiverMode = 'ok' | 'bad';

/**
 * The chaos run's webhook receiver: an in-process HTTP server on 127.0.0.1, one path per subscribed
 * endpoint, checking every delivery's signature with src/verifier against that endpoint's secret
 * and recording it. In a bad spell it answers slowly (past the endpoint's timeout), with 500 or 503
 * (with Retry-After), or drops the connection; only a 2xx counts as received for the checks, as it
 * does for the service.
 */
export class ChaosReceiver {
  readonly received: ReceivedEvent[] = [];
  private readonly secrets = new Map<string, string>();
  private mode: ReceiverMode = 'ok';
  private server: http.Server | undefined;
  private readonly timers = new Set<NodeJS.Timeout>();
  url = '';

  constructor(private readonly rng: Rng, private readonly slowMs: number) {}

  async start(): Promise<void> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => this.handle(req, res, Buffer.concat(chunks)));
    });
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(0, '127.0.0.1', resolve);
    });
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The URL to subscribe for endpoint `name`. */
  endpointUrl(name: string): string {
    return `${this.url}/hook/${name}`;
  }

  setSecret(name: string, secret: string): void {
    this.secrets.set(name, secret);
  }

  setMode(mode: ReceiverMode): void {
    this.mode = mode;
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse, body: Buffer): void {
    const endpoint = (req.url ?? '').replace(/^\/hook\//, '').split('?')[0] ?? '';
    const header = (name: string) => {
      const v = req.headers[name];
      return (Array.isArray(v) ? v[0] : v) ?? null;
    };
    const secret = this.secrets.get(endpoint);
    let verified = false;
    let problem: string | null = null;
    try {
      if (!secret) throw new Error(`no secret for endpoint ${endpoint}`);
      verifyWebhook(body, req.headers, { secrets: secret });
      verified = true;
    } catch (e) {
      problem = e instanceof WebhookVerificationError ? `${e.reason}: ${e.message}` : (e as Error).message;
    }
    const record: ReceivedEvent = { endpoint, eventId: header('x-service-event-id'), deliveryId: header('x-service-delivery-id'), attempt: header('x-service-attempt'), verified, problem, answered: 200, at: Date.now() };
    this.received.push(record);
    if (this.mode === 'ok') return void res.writeHead(200).end('ok');
    const answer = this.rng.weighted({ slow: 3, fail500: 3, busy503: 2, drop: 1, ok: 1 });
    if (answer === 'ok') return void res.writeHead(200).end('ok');
    if (answer === 'fail500') {
      record.answered = 500;
      return void res.writeHead(500).end('chaos: failing');
    }
    if (answer === 'busy503') {
      record.answered = 503;
      return void res.writeHead(503, { 'retry-after': '1' }).end('chaos: busy');
    }
    if (answer === 'drop') {
      record.answered = 0;
      return void res.socket?.destroy();
    }
    // Slow: past the endpoint's timeout, so the service counts it as failed (and its attempt as not received here).
    record.answered = 0;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (!res.destroyed) res.writeHead(200).end('ok (too late)');
    }, this.slowMs);
    this.timers.add(timer);
  }

  async close(): Promise<void> {
    for (const t of this.timers) clearTimeout(t);
    if (!this.server) return;
    const closed = new Promise<void>((resolve) => this.server!.close(() => resolve()));
    this.server.closeAllConnections();
    await closed;
  }
}
