/**
 * An example merchant webhook receiver (SPEC 6.3) on node:http alone: verify, enqueue, answer 200;
 * a worker then deduplicates on event id and recovers sequence gaps from GET /v1/events.
 *
 *   WEBHOOK_SECRET=whsec_… API_KEY=svc_test_… npx tsx examples/receiver/receiver.ts
 *
 * Everything is in memory to keep it short. A production receiver keeps the seen event ids, the last
 * sequence and the queue in a durable store (a table with a unique key on the event id), so that a
 * restart neither processes an event twice nor loses one it already answered 200 for.
 */
import http from 'node:http';
import { verifyWebhook, WebhookVerificationError, type WebhookEvent } from '../../src/verifier';

/** How an event reached the receiver. */
export type EventSource = 'webhook' | 'recovery';

/** Options of {@link createReceiver}. */
export interface ReceiverOptions {
  /** The endpoint's signing secret(s). */
  secrets: string[];
  /** The API of the endpoint's environment, e.g. http://127.0.0.1:3000. */
  apiBase: string;
  /** A secret API key of the same account and environment, with events:read. */
  apiKey: string;
  /** Business logic; called once per event id, in queue order. */
  onEvent: (event: WebhookEvent, source: EventSource) => void | Promise<void>;
  /** The last sequence already processed; by default the first delivery sets the starting point. */
  lastSequence?: number;
  fetchImpl?: typeof fetch;
  /** Errors of onEvent and of gap recovery; defaults to console.error. */
  onError?: (error: unknown) => void;
}

/** The receiver: a node:http server plus a way to wait for its queue. */
export interface Receiver extends http.Server {
  /** Resolves once the queue is empty and nothing is being processed. */
  idle(): Promise<void>;
}

const BODY_LIMIT_BYTES = 1024 * 1024;

interface EventList {
  data: WebhookEvent[];
  has_more: boolean;
}

function readBody(req: http.IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= BODY_LIMIT_BYTES) chunks.push(chunk);
    });
    req.on('end', () => resolve(size <= BODY_LIMIT_BYTES ? Buffer.concat(chunks) : null));
    req.on('error', reject);
  });
}

/** Creates (does not start) the receiver; POST deliveries to any path, e.g. /webhooks. */
export function createReceiver(options: ReceiverOptions): Receiver {
  const fetchImpl = options.fetchImpl ?? fetch;
  const onError = options.onError ?? ((error: unknown) => console.error('webhook receiver:', error));
  const seen = new Set<string>(); // production: a durable store with a unique key on the event id
  const queue: WebhookEvent[] = [];
  const idleWaiters: Array<() => void> = [];
  let lastSequence = options.lastSequence ?? null;
  let running = false;

  async function processOnce(event: WebhookEvent, source: EventSource): Promise<void> {
    if (seen.has(event.id)) return;
    seen.add(event.id);
    try {
      await options.onEvent(event, source);
    } catch (error) {
      onError(error); // production: retry from the durable queue instead of dropping it
    }
  }

  /** Fetches and processes the events after `after` and before `before`, oldest first. */
  async function recover(after: number, before: number): Promise<void> {
    for (let cursor = after; ;) {
      const url = `${options.apiBase}/v1/events?after_sequence=${cursor}&limit=100`;
      const res = await fetchImpl(url, { headers: { authorization: `Bearer ${options.apiKey}` } });
      if (!res.ok) throw new Error(`GET ${url} answered ${res.status}: ${await res.text()}`);
      const page = (await res.json()) as EventList;
      if (!Array.isArray(page.data)) throw new Error(`GET ${url} did not answer a list`);
      for (const event of page.data) {
        if (event.sequence >= before) return;
        await processOnce(event, 'recovery');
      }
      if (!page.has_more || page.data.length === 0) return;
      cursor = page.data[page.data.length - 1].sequence;
    }
  }

  /** `lastSequence` only moves over contiguous sequences: a failed recovery is retried on the next delivery. */
  async function handle(event: WebhookEvent): Promise<void> {
    if (lastSequence !== null && event.sequence > lastSequence + 1) {
      try {
        await recover(lastSequence, event.sequence);
      } catch (error) {
        onError(error);
        await processOnce(event, 'webhook');
        return;
      }
    }
    await processOnce(event, 'webhook');
    if (lastSequence === null || event.sequence > lastSequence) lastSequence = event.sequence;
  }

  async function drain(): Promise<void> {
    try {
      for (let event = queue.shift(); event; event = queue.shift()) await handle(event);
    } finally {
      running = false;
      for (const resolve of idleWaiters.splice(0)) resolve();
    }
  }

  /** The worker starts on the next turn of the event loop, after the 200 is written. */
  function enqueue(event: WebhookEvent): void {
    queue.push(event);
    if (running) return;
    running = true;
    setImmediate(() => void drain());
  }

  const server = http.createServer(async (req, res) => {
    const reply = (status: number, text: string) => res.writeHead(status, { 'content-type': 'text/plain' }).end(text);
    if (req.method !== 'POST') return reply(405, 'POST only');
    try {
      const body = await readBody(req);
      if (!body) return reply(413, 'body too large');
      enqueue(verifyWebhook(body, req.headers, { secrets: options.secrets }));
      reply(200, 'ok');
    } catch (error) {
      if (error instanceof WebhookVerificationError) return reply(400, error.reason);
      onError(error);
      reply(500, 'internal error');
    }
  });

  return Object.assign(server, {
    idle: () => (running || queue.length > 0 ? new Promise<void>((resolve) => idleWaiters.push(resolve)) : Promise.resolve()),
  });
}

function main(): void {
  const env = process.env;
  const secrets = (env.WEBHOOK_SECRET ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  if (secrets.length === 0 || !env.API_KEY) {
    console.error('Set WEBHOOK_SECRET (the endpoint signing secret, comma-separated for several) and API_KEY (svc_test_…).');
    process.exit(1);
  }
  const port = Number(env.PORT || 4000);
  const lastSequence = env.LAST_SEQUENCE ? Number(env.LAST_SEQUENCE) : undefined;
  const receiver = createReceiver({
    secrets,
    apiBase: env.API_BASE || 'http://127.0.0.1:3000',
    apiKey: env.API_KEY,
    lastSequence,
    onEvent: (event, source) => console.log(`${source.padEnd(8)} #${event.sequence} ${event.type} ${event.id} ${event.resource_id}`),
  });
  receiver.listen(port, '127.0.0.1', () => console.log(`webhook receiver listening on http://127.0.0.1:${port}/webhooks`));
}

if (require.main === module) main();
