import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createReceiver, type EventSource, type Receiver } from '../../examples/receiver/receiver';
import { computeSignature, type WebhookEvent } from '../../src/verifier';

const SECRET = 'whsec_example';
const API_KEY = 'svc_test_example';

function event(sequence: number): string {
  return JSON.stringify({
    id: `evt_${sequence}`,
    object: 'event',
    type: 'transaction.succeeded',
    resource_type: 'transaction',
    resource_id: `txn_${sequence}`,
    transaction_id: `txn_${sequence}`,
    sequence,
    created_at: '2026-09-21T00:00:00.000Z',
    data: { id: `txn_${sequence}` },
  });
}

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** GET /v1/events?after_sequence=N of the API, one event per page so that recovery has to walk pages. */
async function fakeApi(bodies: string[]) {
  const calls: string[] = [];
  let failNext = 0;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://api');
    calls.push(`${req.headers.authorization} ${url.pathname}${url.search}`);
    if (failNext > 0) {
      failNext -= 1;
      return res.writeHead(503).end('{"error":{"type":"api_error"}}');
    }
    if (req.headers.authorization !== `Bearer ${API_KEY}`) return res.writeHead(401).end('{"error":{"code":"invalid_api_key"}}');
    if (url.pathname !== '/v1/events' || !url.searchParams.has('after_sequence')) return res.writeHead(404).end();
    const after = Number(url.searchParams.get('after_sequence'));
    const rest = bodies.filter((b) => (JSON.parse(b) as WebhookEvent).sequence > after);
    const page = rest.slice(0, Math.min(1, Number(url.searchParams.get('limit') ?? 10)));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(`{"object":"list","data":[${page.join(',')}],"has_more":${rest.length > page.length}}`);
  });
  return { base: await listen(server), calls, server, failNextCalls: (n: number) => (failNext = n) };
}

function post(url: string, body: string, secret = SECRET): Promise<Response> {
  const ts = String(Math.floor(Date.now() / 1000));
  const signature = computeSignature(secret, ts, body);
  return fetch(`${url}/webhooks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-signature': signature, 'x-service-timestamp': ts },
    body,
  });
}

describe('example webhook receiver', () => {
  const servers: http.Server[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0)) await new Promise((resolve) => s.close(resolve));
  });

  async function start(bodies: string[], onEvent?: (e: WebhookEvent, source: EventSource) => void | Promise<void>) {
    const api = await fakeApi(bodies);
    const processed: string[] = [];
    const errors: unknown[] = [];
    const receiver: Receiver = createReceiver({
      secrets: ['whsec_new', SECRET],
      apiBase: api.base,
      apiKey: API_KEY,
      onEvent: onEvent ?? ((e, source) => void processed.push(`${e.id} ${source}`)),
      onError: (error) => errors.push(error),
    });
    servers.push(api.server, receiver);
    return { api, receiver, url: await listen(receiver), processed, errors };
  }

  test('dedups, recovers a sequence gap from the API page by page, and refuses a bad signature', async () => {
    const stored = [1, 2, 3, 4].map(event);
    const { api, receiver, url, processed, errors } = await start(stored);

    expect((await post(url, stored[0])).status).toBe(200);
    await receiver.idle();
    expect(processed).toEqual(['evt_1 webhook']);

    const gap = await post(url, stored[3]);
    expect([gap.status, await gap.text()]).toEqual([200, 'ok']);
    await receiver.idle();
    expect(processed).toEqual(['evt_1 webhook', 'evt_2 recovery', 'evt_3 recovery', 'evt_4 webhook']);
    expect(api.calls).toEqual([1, 2, 3].map((n) => `Bearer ${API_KEY} /v1/events?after_sequence=${n}&limit=100`));

    expect((await post(url, stored[3])).status).toBe(200);
    await receiver.idle();
    expect(processed).toHaveLength(4);

    const forged = await post(url, event(5), 'whsec_attacker');
    expect([forged.status, await forged.text()]).toEqual([400, 'no_matching_signature']);
    const unsigned = await fetch(`${url}/webhooks`, { method: 'POST', body: event(5) });
    expect([unsigned.status, await unsigned.text()]).toEqual([400, 'missing_header']);
    await receiver.idle();
    expect(processed).toHaveLength(4);
    expect(api.calls).toHaveLength(3);
    expect(errors).toEqual([]);
  });

  test('a failed recovery is retried when the next delivery arrives', async () => {
    const stored = [1, 2, 3, 4].map(event);
    const { api, receiver, url, processed, errors } = await start(stored);
    await post(url, stored[0]);
    await receiver.idle();

    api.failNextCalls(1);
    await post(url, stored[2]);
    await receiver.idle();
    expect(processed).toEqual(['evt_1 webhook', 'evt_3 webhook']);
    expect(errors).toHaveLength(1);

    await post(url, stored[3]);
    await receiver.idle();
    expect(processed).toEqual(['evt_1 webhook', 'evt_3 webhook', 'evt_2 recovery', 'evt_4 webhook']);
  });

  test('answers before the event is processed (enqueue, then answer)', async () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const seen: string[] = [];
    const { receiver, url } = await start([event(1)], async (e) => {
      await gate;
      seen.push(e.id);
    });
    expect((await post(url, event(1))).status).toBe(200);
    expect(seen).toEqual([]);
    release();
    await receiver.idle();
    expect(seen).toEqual(['evt_1']);
  });
});
