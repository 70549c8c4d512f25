/**
 * A tiny HTTP SMS provider in the test process, speaking the contract of
 * src/notifications/sms-http-transport.ts: POST JSON {to, text} with a bearer token; it answers 202
 * `{"id":"sms_<n>"}`, or 401 for a wrong token. `answer` changes what it answers next.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedSms {
  to: string;
  text: string;
  authorization: string | undefined;
  idempotencyKey: string | undefined;
}

export interface TestSmsProvider {
  url: string;
  token: string;
  received: ReceivedSms[];
  /** The status of the next answers (default 202). */
  answer(status: number): void;
  waitFor(probe: (messages: ReceivedSms[]) => boolean, timeoutMs?: number): Promise<ReceivedSms[]>;
  close(): Promise<void>;
}

export async function startSmsProvider(token = 'sms-test-token'): Promise<TestSmsProvider> {
  const received: ReceivedSms[] = [];
  let status = 202;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.headers.authorization !== `Bearer ${token}`) {
        res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { to: string; text: string };
      const idempotencyKey = req.headers['idempotency-key'] as string | undefined;
      if (status >= 200 && status < 300) received.push({ to: body.to, text: body.text, authorization: req.headers.authorization, idempotencyKey });
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(status < 300 ? { id: `sms_${received.length}` } : { error: 'unavailable' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/messages`,
    token,
    received,
    answer(next) {
      status = next;
    },
    async waitFor(probe, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (!probe(received)) {
        if (Date.now() > deadline) throw new Error(`SMS provider: timed out after ${timeoutMs} ms; received ${received.length}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return received;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
