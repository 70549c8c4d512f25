import { Client } from 'pg';
import type { Logger } from '../support/logger';

/** The channel the `events` insert trigger notifies (migration 20261123000004). */
export const OUTBOX_CHANNEL = 'payments_outbox';
/** Reconnect delays: doubling from the first to the last, reset by a successful LISTEN. */
export const LISTEN_RETRY_MS = { first: 250, max: 10_000 };
/** What the listening session shows in pg_stat_activity unless the URL names another. */
const APPLICATION_NAME = 'payments-outbox-listener';

export interface OutboxListenerOptions {
  /** PostgreSQL URL (the ORM's); an `application_name` in it wins over the default. */
  url: string;
  /** Called on every notification, and once after each (re)connect: events may have committed meanwhile. */
  onWake(): void;
  log: Logger;
}

export interface OutboxListener {
  stop(): Promise<void>;
}

/**
 * LISTEN on a dedicated connection (a pooled one would be handed to other queries). When the
 * connection drops (database restart, pg_terminate_backend, network), it reconnects with backoff
 * and wakes the relay once it listens again, so a notification lost while down costs nothing. The
 * relay's poll covers a connection that hangs without failing.
 */
export function startOutboxListener(options: OutboxListenerOptions): OutboxListener {
  let stopped = false;
  type Session = { client: Client; lost: boolean };
  let current: Session | undefined;
  let retryTimer: NodeJS.Timeout | undefined;
  let delayMs = LISTEN_RETRY_MS.first;
  let failures = 0;

  const retry = () => {
    if (stopped || retryTimer) return;
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      void connect();
    }, delayMs);
    delayMs = Math.min(delayMs * 2, LISTEN_RETRY_MS.max);
  };

  const connect = async () => {
    const c = new Client({ connectionString: options.url, application_name: APPLICATION_NAME, keepAlive: true });
    const state: Session = { client: c, lost: false };
    current = state;
    const onLost = (error?: Error) => {
      if (state.lost) return;
      state.lost = true;
      c.removeAllListeners('notification');
      void c.end().catch(() => undefined);
      if (stopped) return;
      // The first failure in a row is a warning; each further one while the database stays away an error.
      failures++;
      options.log[failures === 1 ? 'warn' : 'error']({ err: error, retryInMs: delayMs }, 'webhook outbox listener lost its connection; reconnecting');
      retry();
    };
    c.on('error', onLost);
    c.on('end', () => onLost());
    c.on('notification', () => options.onWake());
    try {
      await c.connect();
      await c.query(`LISTEN ${OUTBOX_CHANNEL}`);
    } catch (error) {
      onLost(error as Error);
      return;
    }
    if (stopped || state.lost) return;
    if (failures > 0) options.log.info('webhook outbox listener listening again');
    failures = 0;
    delayMs = LISTEN_RETRY_MS.first;
    options.onWake();
  };

  void connect();
  return {
    async stop() {
      stopped = true;
      clearTimeout(retryTimer);
      // A lost connection was ended when it was lost; its end may never be reported again.
      if (current && !current.lost) await current.client.end().catch(() => undefined);
    },
  };
}
