/**
 * The outbox relay is woken by the event insert (LISTEN/NOTIFY), not by its poll. Each relay here
 * polls every 60 s, far longer than any wait below, so a delivery that arrives was woken:
 *  - a state change committed after the relay's first pass is delivered without waiting for the poll;
 *  - the listening connection killed (pg_terminate_backend): the relay listens again and the next
 *    state change is still delivered without the poll;
 *  - a notification that arrives while a pass is running leads to another pass at once.
 * Real PostgreSQL, real Temporal dev server, a real local receiver; no timing is asserted.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { Client } from '@temporalio/client';
import pino from 'pino';
import { randomBase62 } from '../../src/support/new-id';
import { createEndpoint } from '../../src/services/webhook-endpoints';
import type { Caller } from '../../src/services/context';
import { startOutboxRelay, type OutboxRelay, type RelayDeps } from '../../src/webhooks/outbox-relay';
import { fanOutDeliveryId } from '../../src/webhooks/delivery-id';
import { startHarness, type Harness } from '../support/harness';
import { emitEvent, sandboxCaller, startBareWorker, until } from '../support/webhook-fixtures';
import { startTestReceiver, type TestReceiver } from '../support/webhook-receiver';

const POLL_MS = 60_000;
/** Generous, and still far below POLL_MS: only a wake-up can deliver within it. */
const WAIT_MS = 30_000;

let h: Harness;
let rx: TestReceiver;
let worker: { stop(): Promise<void> };
const relays: OutboxRelay[] = [];
beforeAll(async () => {
  h = await startHarness({ worker: false });
  rx = await startTestReceiver();
  worker = await startBareWorker(h);
});
afterEach(async () => {
  for (const r of relays.splice(0)) await r.stop();
});
afterAll(async () => {
  await worker?.stop();
  await rx?.close();
  await h?.close();
});

const sql = <T = Record<string, any>>(query: string, params: unknown[] = []) => h.orm.em.getConnection().execute<T[]>(query, params);

/**
 * A relay polling every 60 s. With `appName`, its listening session has that name in pg_stat_activity;
 * without, it listens on the ORM's URL as in production.
 */
function relay(appName?: string, extra: Partial<RelayDeps> & { logged?: Array<{ level: number; msg: string }> } = {}): OutboxRelay {
  const { logged, ...rest } = extra;
  const url = new URL(process.env.TEST_DATABASE_URL!);
  if (appName) url.searchParams.set('application_name', appName);
  const log = pino({ level: 'info' }, { write: (line: string) => logged?.push(JSON.parse(line)) });
  const r = startOutboxRelay(
    {
      orm: h.orm,
      client: h.temporal.client,
      taskQueue: h.taskQueue,
      retryScheduleMs: h.deps.webhooks.retryScheduleMs,
      log,
      ...(appName ? { listenUrl: url.toString() } : {}),
      ...rest,
    },
    POLL_MS,
  );
  relays.push(r);
  return r;
}

/** The backend pid of the session named `appName` once it is idle after its LISTEN. */
const listening = (appName: string) =>
  until(`${appName} listening`, async () => {
    const rows = await sql<{ pid: number }>(`select pid from pg_stat_activity where application_name = ? and state = 'idle' and query ilike 'LISTEN%'`, [appName]);
    return rows[0]?.pid;
  });

async function endpointOf(caller: Caller): Promise<string> {
  return (await createEndpoint(h.deps, caller, { url: `${rx.url}/${caller.merchantId}`, subscribed_events: [] })).endpoint.id;
}

const dispatched = (eventId: string) => until(`event ${eventId} dispatched`, async () => (await sql(`select 1 from events where id = ? and dispatched_at is not null`, [eventId])).length > 0);

/** Resolves once the receiver got the delivery of `eventId` to `endpointId`; rejects after WAIT_MS. */
const received = (eventId: string, endpointId: string) =>
  rx.waitFor((ds) => ds.some((d) => d.headers['x-service-delivery-id'] === fanOutDeliveryId(eventId, endpointId)), WAIT_MS);

test('a state change committed after the first pass is delivered without waiting for the poll', async () => {
  const { caller } = await sandboxCaller(h.orm);
  const endpoint = await endpointOf(caller);
  const first = await emitEvent(h.orm, caller);
  relay();
  // The relay's first pass (at start) takes this one; its next poll is a minute away.
  await dispatched(first);
  await received(first, endpoint);

  const second = await emitEvent(h.orm, caller, 'transaction.created');
  await received(second, endpoint);
}, 90_000);

test('the listening connection killed: the relay listens again and state changes keep waking it', async () => {
  const { caller } = await sandboxCaller(h.orm);
  const endpoint = await endpointOf(caller);
  const appName = `outbox-notify-${randomBase62(6)}`;
  const logged: Array<{ level: number; msg: string }> = [];
  relay(appName, { logged });
  const before = await listening(appName);

  const [{ terminated }] = await sql<{ terminated: boolean }>(`select pg_terminate_backend(?) as terminated`, [before]);
  expect(terminated).toBe(true);
  const after = await until('a new listening session', async () => {
    const pid = await listening(appName);
    return pid !== before && pid;
  });
  expect(after).not.toBe(before);
  expect(logged.some((l) => /listener lost its connection/.test(l.msg))).toBe(true);

  const eventId = await emitEvent(h.orm, caller);
  await received(eventId, endpoint);
}, 90_000);

test('a notification during a pass leads to another pass at once (no lost wake-up)', async () => {
  const { caller } = await sandboxCaller(h.orm);
  const endpoint = await endpointOf(caller);
  const appName = `outbox-notify-${randomBase62(6)}`;
  // The first workflow start of the relay is held until the second event has committed.
  let entered!: () => void;
  const inStart = new Promise<void>((resolve) => (entered = resolve));
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let held = false;
  const gated = {
    withDeadline: <T>(deadline: number, fn: () => Promise<T>) => h.temporal.client.withDeadline(deadline, fn),
    workflow: {
      start: async (...args: Parameters<Client['workflow']['start']>) => {
        if (!held) {
          held = true;
          entered();
          await gate;
        }
        return h.temporal.client.workflow.start(...args);
      },
    },
  } as unknown as Client;
  relay(appName, { client: gated });
  await listening(appName);

  const first = await emitEvent(h.orm, caller);
  await inStart; // a pass woken by the first event is now starting its delivery
  const second = await emitEvent(h.orm, caller, 'transaction.created');
  // Give its notification time to reach the relay while the pass is still held (a relay that lost
  // it would then sleep for the whole poll; one that kept it passes either way).
  await delay(1_000);
  release();
  await received(first, endpoint);
  await received(second, endpoint);
}, 90_000);
