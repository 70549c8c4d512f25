import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhook } from '../verifier';
import { closeServers } from '../support/close-servers';

/**
 * The simulation's webhook receivers: N small HTTP servers on 127.0.0.1 that check every request's
 * X-Service-Signature and X-Service-Timestamp with the merchant-side verifier (src/verifier) against
 * the signing secrets of the delivery's endpoint (current, previous and retired, as the database
 * keeps them: the engine opens them with the run's key), record it, and answer as their mode says:
 * - `ok`: 200;
 * - `fail_500`: 500;
 * - `slow`: 200 after SLOW_MS (real time: within any endpoint's timeout, so it delays, never times out);
 * - `drop`: the connection is closed without an answer.
 */

export type ReceiverMode = 'ok' | 'fail_500' | 'slow' | 'drop';

export const SLOW_MS = 1_500;

export interface ReceivedRequest {
  receiver: number;
  /** X-Service-Event-Id ('' when missing). */
  eventId: string;
  /** X-Service-Delivery-Id ('' when missing). */
  deliveryId: string;
  /** X-Service-Attempt (0 when missing). */
  attempt: number;
  /** Signed with one of the secrets known when it arrived, and fresh. */
  signatureOk: boolean;
  /** Why not, when not (the verifier's reason). */
  refusal?: string;
  /** Date.now() on arrival (the simulated clock). */
  at: number;
  /** What the receiver answered (0: dropped). */
  answered: number;
}

export interface Receivers {
  url(index: number): string;
  setMode(index: number, mode: ReceiverMode): void;
  received(): ReadonlyArray<ReceivedRequest>;
  close(): Promise<void>;
}

/**
 * The secrets' lookup, tried again after a failure: it reads the engine's own pool, which a
 * `cut_db_connections` step (or a cut in flight) empties of live connections; a lookup that met a
 * dead one is the simulator's trouble, never a signature the engine got wrong (seed 4503, step 14:
 * "carried no valid signature: terminating connection due to administrator command").
 */
async function lookedUp(lookup: () => Promise<string[]>, tries = 4): Promise<string[]> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await lookup();
    } catch (error) {
      if (attempt >= tries) throw error;
      await new Promise((resolve) => setTimeout(resolve, 25 * attempt));
    }
  }
}

/** Starts `count` receivers; `secretsFor(deliveryId)` answers the signing secrets of that delivery's endpoint. */
export async function startReceivers(count: number, secretsFor: (deliveryId: string) => Promise<string[]>): Promise<Receivers> {
  const modes: ReceiverMode[] = Array.from({ length: count }, () => 'ok');
  const received: ReceivedRequest[] = [];
  const servers: http.Server[] = [];
  const urls: string[] = [];
  for (let index = 0; index < count; index++) {
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', async () => {
        const header = (name: string) => String(req.headers[name] ?? '');
        const entry: ReceivedRequest = {
          receiver: index,
          eventId: header('x-service-event-id'),
          deliveryId: header('x-service-delivery-id'),
          attempt: Number(header('x-service-attempt')) || 0,
          signatureOk: false,
          at: Date.now(),
          answered: 0,
        };
        try {
          const known = entry.deliveryId ? await lookedUp(() => secretsFor(entry.deliveryId!)) : [];
          if (known.length === 0) throw new Error('no signing secret known for this delivery');
          verifyWebhook(Buffer.concat(chunks), req.headers, { secrets: known });
          entry.signatureOk = true;
        } catch (error) {
          entry.refusal = (error as { reason?: string }).reason ?? (error as Error).message;
        }
        received.push(entry);
        const mode = modes[index];
        if (mode === 'drop') {
          req.socket.destroy();
          return;
        }
        entry.answered = mode === 'fail_500' ? 500 : 200;
        const answer = () => res.writeHead(entry.answered, { 'content-type': 'text/plain' }).end(entry.answered === 200 ? 'ok' : 'down');
        if (mode === 'slow') setTimeout(answer, SLOW_MS).unref();
        else answer();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
    urls.push(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`);
  }
  const check = (index: number) => {
    if (!Number.isInteger(index) || index < 0 || index >= count) throw new Error(`no receiver ${index}: the engine runs ${count}`);
  };
  return {
    url(index) {
      check(index);
      return urls[index];
    },
    setMode(index, mode) {
      check(index);
      modes[index] = mode;
    },
    received: () => received,
    async close() {
      await closeServers(servers);
    },
  };
}
