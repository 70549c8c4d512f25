import { idempotencyKey } from './harness';
import type { StartedMain } from './npm-start';
import { execCli } from './run-cli';

/** The CLI's JSON answer. */
export type CliAnswer = Record<string, unknown> & { data?: Array<Record<string, unknown>> };

export type PaymentKind = 'charges' | 'payouts' | 'refunds';

/**
 * A merchant's and an operator's hands on `npm start`'s own servers (the system tier's walks): the
 * CLI as its own process next to it, the API with one key, and waiting for a payment's status.
 * `target()` is read at each call (the test sets `npm start`, the listener's URL and the key in its
 * beforeAll).
 */
export function npmStartApi(target: () => { s: StartedMain; url: string; key: string }) {
  const cli = async (...args: string[]): Promise<CliAnswer> => {
    const result = await execCli(args, target().s.env, { process: true });
    if (result.code !== 0) throw new Error(`cli ${args.join(' ')} exited ${result.code}:\n${result.stdout}\n${result.stderr}`);
    return JSON.parse(result.stdout) as CliAnswer;
  };

  const api = async (method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, any> }> => {
    const { url, key } = target();
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...(method === 'POST' ? { 'Idempotency-Key': idempotencyKey() } : {}) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, json: (await response.json()) as Record<string, unknown> };
  };

  const until = async <T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 90_000): Promise<T> => {
    const stop = Date.now() + timeoutMs;
    for (;;) {
      const value = await read();
      if (done(value)) return value;
      if (Date.now() > stop) throw new Error(`${what}: still ${JSON.stringify(value)} after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 300));
    }
  };

  const statusOf = async (kind: PaymentKind, id: string) => (await api('GET', `/v1/${kind}/${id}`)).json.status as string;
  const settled = (kind: PaymentKind, id: string, status: string) => until(`${kind} ${id}`, () => statusOf(kind, id), (v) => v === status);

  return { cli, api, until, statusOf, settled };
}
