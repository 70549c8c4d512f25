import { randomBytes } from 'node:crypto';
import { Client } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Rng } from '../chaos/random';
import { loadConfig, loadWebhookConfig } from '../config';
import type { ServiceDeps } from '../services/context';
import { openOrm, type Orm } from '../persistence/orm';
import { startChargeReconciler } from '../runtime/charge-reconciler';
import { startChargeStartRelay } from '../runtime/charge-start-relay';
import { startDisputeStartRelay } from '../runtime/dispute-start-relay';
import { startPayoutStartRelay } from '../runtime/payout-start-relay';
import { startRefundStartRelay } from '../runtime/refund-start-relay';
import { createLogger } from '../support/logger';
import { createApiMetrics } from '../support/metrics';
import { resetIdSource, setIdSource } from '../support/new-id';
import { resetJitterSource, setJitterSource } from '../support/jitter';
import { createSecretBox, parseKeyring, parseSecretsKey } from '../support/secret-box';
import type { TemporalHandle } from '../temporal/connection';
import { codecDataConverter, createPayloadCodec } from '../temporal/payload-codec';
import { declareSearchAttributes } from '../temporal/test-server-attributes';
import { startOutboxRelay } from '../webhooks/outbox-relay';
import type { FakePartner } from '../rail/fake-partner';
import type { FakeAggregator } from '../rail/aggregator/fake';
import { parseRailRoutes } from '../domain/rail-routes';
import { partnerOfReference } from '../persistence/partner/reference-partner-store';
import { cardReturned, sendCardOtp, sendLiveCard } from '../services/live-card';
import { createPaymentsWorker } from '../../workers/create-worker';
import { installRuntime } from '../../workers/workflow-bundle';
import { createActivityHooks, type ActivityHooks } from './activity-hooks';
import { createSendHooks, type SendHooks } from './send-hooks';
import { startListeners } from './listeners';
import { busyNow, waitUntilQuiet, type QuietDeps } from './quiet';
import { startReceivers } from './receivers';
import { createRegistry } from './registry';
import { realNow, setSqlOffset, shiftProcessDate } from './sim-clock';
import { createSimDatabase, simServerUrl, type SimTemplate } from './sim-database';
import { APPROVE_AFTER_MS, startSimPartner } from './sim-partner';
import { installSimRuntime, sdkFaultMark, sdkFaultsSince } from './sdk-faults';
import { stickyQueueWatch, stickyRescuer } from './sticky-rescue';
import { timeLockReleaser } from './time-locks';
import type { SimAnswer, SimContext } from './types';
import { testServerBinary } from './test-server-binary';

/**
 * The deterministic simulation's engine (docs/simulation.md "The engine"), all in this process: a
 * database of its own, Temporal's time-skipping test server, the real payments worker and its relays,
 * the API's two listeners, the fake partner with the real MoMo adapter, webhook receivers; one clock;
 * ids from the seed. `close` stops everything and puts the process back (Date, id source).
 */

export interface EngineOptions {
  seed: number;
  /** A PostgreSQL URL whose user may CREATE DATABASE; default TEST_DATABASE_URL, else DATABASE_URL. */
  serverUrl?: string;
  /**
   * A template to copy the run's database from (sim-database.ts `createSimTemplate`: the clock and
   * every migration, made once) instead of migrating a new one. The run's database goes on the
   * template's server (serverUrl, if given, must name that server). What runs many engines gives one:
   * a shrink, `--hours`, a test of many sessions.
   */
  template?: SimTemplate;
  /** Keep the run's database after close (its name: `engine.database`). */
  keepDatabase?: boolean;
  /** Alias of keepDatabase. */
  keepDb?: boolean;
  /** How many webhook receivers (default 3). */
  receivers?: number;
  /** SECRETS_KEY of the run (base64, 32 bytes); default TEST_SECRETS_KEY, else a random one. */
  secretsKey?: string;
  /** Real-time bound of one settle (default 60 s). */
  settleBoundMs?: number;
  /**
   * Told, every SLOW_REPORT_MS of real time, what is still busy while a time jump or a settle takes
   * that long (`npm run simulate -- --verbose`): why a jump passes at the pace of real time.
   */
  onSlow?: (line: string) => void;
  /**
   * The worker keeps a workflow cache (sticky task queues), as production workers do (default true).
   * A restart (restartWorker) then strands the stopped worker's sticky tasks on the test server, and
   * the engine's sticky rescuer moves them back (sticky-rescue.ts). False: no cache, every workflow
   * task replays its history; sdk-core (1.24.0) may then evict a run while a local activity's result
   * is still on its way (the "eviction with outgoing commands … SDK bug" log, sdk-rust#1482), and its
   * workflow task times out after 10 s (docs/reliability.md, "Issue 43's findings as planted defects").
   */
  workflowCache?: boolean;
}

/** A stop of the engine's close still running after this long is named on stderr (real time). */
const SLOW_STOP_MS = 20_000;

/** How often a slow jump or settle reports what keeps it busy (real time). */
const SLOW_REPORT_MS = 20_000;

/** How often, during a time jump, the engine gives back the test server's leaked time locks (time-locks.ts). */
const RELEASE_LOCKS_EVERY_MS = 100;

/** A jump may end this much past its length (the real time it took); more means time ran free. */
const JUMP_SLACK_MS = 10 * 60_000;

export type Engine = SimContext & {
  seed: number;
  /** The run's database name. */
  database: string;
  /** The activity hooks of the worker (failActivity, afterActivity: an injected defect). */
  hooks: ActivityHooks;
  /** The hook into the worker's outgoing webhook requests (an injected defect: unsigned-webhook). */
  sendHooks: SendHooks;
  /** The ORM the API and the worker query through (an injected defect in their SQL: overdraft-race); `orm` is the observer's. */
  engineOrm: Orm;
  /** How many of the test server's leaked time locks the engine gave back (time-locks.ts). */
  releasedTimeLocks(): number;
  /** How many workflow tasks the engine moved off a stopped worker's sticky queue (sticky-rescue.ts). */
  rescuedStickyTasks(): number;
  /** Gives the process back its native Date, id and jitter sources now (close does it last): for a close that passed its bound. */
  releaseProcess(): void;
  /** The SDK faults (a panic, "This is an SDK bug") logged since this engine started (sdk-faults.ts). */
  sdkFaults(): string[];
  /** The API's listeners. */
  urls: { sandbox: string; live: string };
  /** The fake partner itself (its requests, transactions and callbacks: what a test looks at). */
  fakePartner: FakePartner;
  /** The fake aggregator (issue 45), the second live partner. */
  fakeAggregator: FakeAggregator;
  close(): Promise<void>;
};

/** Connections of the engine's own pool (settle, the clock, steps and invariants). */
const OBSERVER_POOL = 6;

/**
 * Which live partner takes what (RAIL_ROUTES, issue 45): every channel live, mobile money at the MoMo
 * partner, bank and card at the aggregator, as `npm start` routes them with both partners. Issue 46:
 * mobile money fails over to the aggregator (`momo|aggregator`) when its first attempt provably moved
 * no money (the `partner_down` and `partner_declining` steps, steps/partner-faults.ts).
 */
export const SIM_RAIL_ROUTES = 'mobile_money:*=momo|aggregator,bank:*=aggregator,card:*=aggregator';

/** Where the hosted card page sends the customer back after 3-D Secure (the simulation has no web port: never fetched). */
const CARD_RETURN_URL = 'http://127.0.0.1:9/checkout/simulation/return';

const ID_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export async function startEngine(options: EngineOptions): Promise<Engine> {
  const seed = options.seed;
  const located = testServerBinary();
  if ('missing' in located) throw new Error(located.missing);
  const binary = located.path;
  const serverUrl = simServerUrl(options.serverUrl ?? options.template?.serverUrl);
  const keep = options.keepDatabase ?? options.keepDb ?? false;
  const secretsKey = options.secretsKey ?? process.env.TEST_SECRETS_KEY ?? randomBytes(32).toString('base64');
  const stops: Array<() => Promise<unknown>> = [];
  const closeAll = async () => {
    for (const stop of stops.reverse()) {
      // A stop still running after SLOW_STOP_MS is named (the session gives the whole close a bound: what held it).
      const slow = setTimeout(() => console.error(`simulation engine: a stop still running after ${SLOW_STOP_MS / 1000} s: ${stop.toString().replace(/\s+/g, ' ').slice(0, 160)}`), SLOW_STOP_MS);
      await stop().catch((error: unknown) => console.error('simulation engine: a stop failed:', error)).finally(() => clearTimeout(slow));
    }
    stops.length = 0;
  };

  const clock = shiftProcessDate();
  // What this engine changed in the process (its Date, id and jitter sources), given back at the end of
  // its close, or at once by `releaseProcess` (a close past its bound: the next engine in this process
  // must be able to start); given back once only, so a close that ends later undoes nothing of the next.
  let released = false;
  const releaseProcess = () => {
    if (released) return;
    released = true;
    clock.restore();
    resetIdSource();
    resetJitterSource();
  };
  stops.push(async () => releaseProcess());
  const ids = new Rng(seed).fork('ids');
  // A stream per kind of id (exact replay, issue 44): concurrent code minting ids of two kinds no
  // longer takes them from one sequence in whatever order it runs.
  const streams = new Map<string, Rng>();
  setIdSource((length, stream) => {
    let rng = streams.get(stream);
    if (!rng) streams.set(stream, (rng = ids.fork(stream)));
    return Array.from({ length }, () => ID_ALPHABET[rng.int(0, 61)]).join('');
  });

  // Retry jitter from the seed too (src/support/jitter.ts).
  const jitter = new Rng(seed).fork('jitter');
  setJitterSource(() => jitter.int(0, 999_999) / 1_000_000);

  try {
    // Pool 28 as the harness: the worker's activity slots, its webhook lanes and the relays.
    const db = await createSimDatabase(serverUrl, seed, 28, options.template);
    // A close that waits on the database names its sessions (a connection never given back holds the pool's close).
    stops.push(async () => {
      const slow = setTimeout(() => {
        db.sessions().then((lines) => console.error(`simulation engine: the database's close waits; its sessions: ${lines.length === 0 ? 'none' : lines.join(' | ')}`)).catch(() => {});
      }, SLOW_STOP_MS / 2);
      try {
        await db.close(keep);
      } finally {
        clearTimeout(slow);
      }
    });
    const orm = db.orm;
    // The engine's own reads and writes (the clock, settle, the receivers' secrets) and what steps and
    // invariants use (SimContext.orm: the operator's tools, a process of their own in production) go
    // through a pool of their own: a cut leaves the API's and the worker's pools to meet their dead
    // connections as they would, while the engine drains this one (cutDbConnections).
    const observer = await openOrm(db.url, OBSERVER_POOL);
    stops.push(() => observer.close());

    // The SDK's own faults counted (sdk-faults.ts); else, as before, only its errors printed.
    if (!installSimRuntime()) installRuntime('ERROR');
    const sdkMark = sdkFaultMark();
    const env = await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: binary } } });
    stops.push(() => env.teardown());
    await declareSearchAttributes(env);
    const codec = createPayloadCodec(parseKeyring(secretsKey));
    const secretBox = createSecretBox(parseSecretsKey(secretsKey));
    // A plain client on the test server's connection (not its time-skipping client): time moves only
    // when the engine says so (timeJump), never because someone awaits a result.
    const client = new Client({ connection: env.connection, namespace: 'default', dataConverter: codecDataConverter(codec) });
    const temporal: TemporalHandle = { connection: env.connection, client, namespace: 'default' };
    const taskQueue = `sim-${seed >>> 0}-${randomBytes(3).toString('hex')}`;
    const log = createLogger('silent');
    const webhooks = loadWebhookConfig({ WEBHOOK_ALLOW_PRIVATE_HOSTS: '127.0.0.1,localhost', WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_OUTBOX_POLL_MS: '10' });

    // Workflow time moves ahead of real time only in a jump: more than JUMP_SLACK_MS outside one means
    // the test server's time ran free (time-locks.ts gave back a lock that was not leaked).
    let lastOffset: number | undefined;
    const syncClock = async (jumpedMs = 0) => {
      const offset = (await env.currentTimeMs()) - realNow();
      if (lastOffset !== undefined && offset - lastOffset > jumpedMs + JUMP_SLACK_MS) {
        throw new Error(`workflow time moved ${Math.round(offset - lastOffset)} ms past real time where ${jumpedMs} ms were asked: the test server's time ran free (a time lock given back that was not leaked: src/simulation/time-locks.ts)`);
      }
      lastOffset = offset;
      clock.setOffset(offset);
      await setSqlOffset((sql, params) => observer.em.getConnection().execute(sql, params), offset);
    };
    await syncClock();

    const partner = await startSimPartner(seed);
    stops.push(() => partner.close());
    const callbackSecret = randomBytes(32).toString('base64url');
    const simRoutes = parseRailRoutes(SIM_RAIL_ROUTES);
    const deps: ServiceDeps = {
      orm, temporal, taskQueue, log, metrics: createApiMetrics(), secretBox, webhooks, chargeStartWaitMs: 30_000, liveRail: 'partner', partnerCallbacks: { callbackSecret },
      // Issue 45: both partners, every channel live; the aggregator's webhooks, and live cards through the hosted page's calls.
      railRoutes: simRoutes, aggregatorWebhooks: { webhookHash: partner.aggregator.webhookHash }, cardPayments: partner.cards,
    };
    const listeners = await startListeners(deps);
    stops.push(() => listeners.close());
    partner.connect(listeners.urls.live, callbackSecret, (referenceId) => partnerOfReference(orm, referenceId));

    const receivers = await startReceivers(options.receivers ?? 3, async (deliveryId) => {
      const rows = await observer.em.getConnection().execute<Array<{ secret_box: string; previous_secret_box: string | null; retired_secrets: Array<{ box: string }> }>>(
        `select e.secret_box, e.previous_secret_box, e.retired_secrets from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id where d.id = ?`,
        [deliveryId],
      );
      return rows.flatMap((r) => [r.secret_box, r.previous_secret_box, ...(r.retired_secrets ?? []).map((s) => s.box)]).filter((b): b is string => !!b).map((b) => secretBox.open(b));
    });
    stops.push(() => receivers.close());

    const hooks = createActivityHooks();
    const sendHooks = createSendHooks();
    const inFlight = () => [...Object.entries(hooks.inFlight()).map(([name, n]) => `${n} ${name} running in this process`), ...partner.busy()];
    let running: { stop(): Promise<void> } | undefined;
    const workflowCache = options.workflowCache ?? true;
    // A stopped worker's sticky tasks, moved back to the workflow's queue (sticky-rescue.ts).
    const rescuer = stickyRescuer(env.connection, 'default', (queue, workflowId) => options.onSlow?.(`  (moved ${workflowId}'s workflow task off the stopped worker's sticky queue ${queue})`));
    stops.push(() => rescuer.close());
    const wire = await stickyQueueWatch(env.address, (queue) => rescuer.seen(queue));
    stops.push(() => wire.close());
    // Each worker its own identity: its sticky queues are named after it (sdk-core: <identity>-<uuid>).
    let workers = 0;
    let identity = '';
    const startWorker = async () => {
      identity = `simulation-${seed}-worker-${++workers}@${process.pid}`;
      const { worker, connection, client: workerClient } = await createPaymentsWorker({
        // Through the wire watch: the worker's sticky queue names (sticky-rescue.ts).
        orm, address: workflowCache ? wire.address : env.address, namespace: 'default', taskQueue, secretBox, payloadCodec: codec, webhooks, rail: partner.rail, wrapActivities: hooks.wrap, wrapWebhookAgents: sendHooks.wrap,
        workflowCache, identity,
        // Live settlement batches go to their currency's bank partner (issue 45), as workers/main.ts reads RAIL_ROUTES.
        railRoutes: simRoutes,
      });
      const done = worker.run();
      // As workers/main.ts: the outbox relay on the worker's connection with eager start; the start relays and the reconciler.
      const relay = startOutboxRelay({ orm, client: workerClient, eagerStart: true, taskQueue, retryScheduleMs: webhooks.retryScheduleMs, log }, webhooks.outboxPollMs);
      const relayDeps = { orm, client, taskQueue, log };
      const loops = [startChargeStartRelay(relayDeps), startPayoutStartRelay(relayDeps), startRefundStartRelay(relayDeps), startDisputeStartRelay(relayDeps), startChargeReconciler(relayDeps)];
      running = {
        async stop() {
          await relay.stop();
          for (const loop of loops) await loop.stop();
          worker.shutdown();
          await done;
          await connection.close();
        },
      };
    };
    const stopWorker = async () => {
      const current = running;
      running = undefined;
      await current?.stop();
    };
    await startWorker();
    stops.push(stopWorker);

    const registry = createRegistry();
    const referenceOfPayment = async (paymentId: string): Promise<string | undefined> => {
      const rows = await observer.em.fork().execute<Array<{ reference_id: string }>>('select reference_id::text as reference_id from rail_references where payment_id = ?', [paymentId]);
      return rows[0]?.reference_id;
    };
    // The configuration an operator's tools would run with against this engine (SimContext.config).
    const config = loadConfig({ DATABASE_URL: db.url, SECRETS_KEY: secretsKey, TEMPORAL_ADDRESS: env.address, TEMPORAL_TASK_QUEUE: taskQueue, LOG_LEVEL: 'silent' });
    // Every call the engine makes to the test server carries this signal: close() aborts it first, so
    // a call still in flight (a run cut by its bound in the middle of a jump) ends CANCELLED, which the
    // client does not retry, before the connection closes (a retry on a closed channel throws from a
    // timer and would kill the process: seed 2000 of a `--hours` run).
    const aborting = new AbortController();
    const guarded = <T>(fn: () => Promise<T>): Promise<T> => env.connection.withAbortSignal(aborting.signal, fn);
    const now = () => guarded(() => env.currentTimeMs());
    const timeLocks = timeLockReleaser(env);
    const releaseLocks = async () => {
      for (const child of await timeLocks.release()) options.onSlow?.(`  (gave back the test server's time lock leaked by ${child}: it closed after its parent)`);
    };
    const quietDeps: QuietDeps = { orm: observer, client, now, alsoBusy: inFlight };
    /** Runs `work`; while it lasts past SLOW_REPORT_MS, tells options.onSlow what is busy, every SLOW_REPORT_MS. */
    const watched = async <T>(what: string, work: Promise<T>): Promise<T> => {
      const onSlow = options.onSlow;
      if (!onSlow) return work;
      const started = performance.now();
      const timer = setInterval(() => {
        void (async () => {
          const busy = await busyNow(quietDeps).catch((error: unknown) => [`(could not look: ${(error as Error).message})`]);
          const simAhead = ((await now().catch(() => realNow())) - realNow()) / 3_600_000;
          onSlow(`  … ${what}: ${Math.round((performance.now() - started) / 1000)} s so far, simulated clock ${simAhead.toFixed(2)} h ahead; busy: ${busy.length === 0 ? 'nothing' : busy.slice(0, 6).join('; ')}${busy.length > 6 ? `; and ${busy.length - 6} more` : ''}`);
        })();
      }, SLOW_REPORT_MS);
      try {
        return await work;
      } finally {
        clearInterval(timer);
      }
    };
    const engine: Engine = {
      seed,
      database: db.name,
      hooks,
      sendHooks,
      releasedTimeLocks: () => timeLocks.released(),
      rescuedStickyTasks: () => rescuer.rescued(),
      sdkFaults: () => sdkFaultsSince(sdkMark),
      releaseProcess,
      urls: listeners.urls,
      fakePartner: partner.fake,
      fakeAggregator: partner.aggregator,
      orm: observer,
      engineOrm: orm,
      temporal,
      taskQueue,
      registry,
      config,
      async api(environment, method, path, opts = {}): Promise<SimAnswer> {
        const headers: Record<string, string> = {};
        if (opts.key) headers.authorization = `Bearer ${opts.key}`;
        if (opts.idempotencyKey) headers['idempotency-key'] = opts.idempotencyKey;
        let body: string | undefined;
        if (opts.body !== undefined) {
          body = JSON.stringify(opts.body);
          headers['content-type'] = 'application/json';
        }
        const response = await fetch(listeners.urls[environment] + path, { method, headers, body });
        const text = await response.text();
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        return { status: response.status, json, headers: response.headers };
      },
      // The test server skips no time while a workflow task or an activity is under way: a jump made
      // while the engine is busy passes at the pace of real time. Settle first (the runner does).
      // A child workflow that closed after its parent leaves the test server a time lock for good
      // (time-locks.ts): given back before the jump and every second while it lasts (children close
      // during a jump too). Time that ran free (a lock given back twice) fails the jump.
      timeJump: (ms) => guarded(async () => {
        await releaseLocks();
        const releasing = setInterval(() => {
          releaseLocks().catch((error: unknown) => options.onSlow?.(`  (giving back leaked time locks failed: ${(error as Error).message})`));
        }, RELEASE_LOCKS_EVERY_MS);
        try {
          await watched(`time jump of ${ms} ms`, env.sleep(ms));
        } finally {
          clearInterval(releasing);
        }
        await syncClock(ms);
        partner.releaseLate(); // `late` answers come now, after workflow time moved (sim-partner.ts)
      }),
      now,
      async restartWorker() {
        const stopped = identity;
        await stopWorker();
        if (!workflowCache) return startWorker();
        rescuer.stopped(stopped);
        await startWorker();
      },
      async cutDbConnections() {
        await db.cutConnections();
        // Every connection of the observer's pool is dead now: a borrow of each fails once and drops it.
        for (let round = 0; round < 2; round++) {
          await Promise.allSettled(Array.from({ length: OBSERVER_POOL }, () => observer.em.getConnection().execute('select 1')));
        }
      },
      failActivity: (name, times, when) => hooks.failActivity(name, times, when),
      receivers: { url: (i) => receivers.url(i), setMode: (i, mode) => receivers.setMode(i, mode), received: () => receivers.received() },
      partner: {
        setBehaviour: (b) => partner.setBehaviour(b),
        fault: (kind, which, on) => partner.fault(kind, which, on),
        behaviour: () => partner.behaviour(),
        settle: (product, referenceId, final) => partner.settle(product, referenceId, final),
        statement: (day, breaks) => partner.statement(day, breaks),
        records: () => ({ collection: partner.fake.transactions('collection'), disbursement: partner.fake.transactions('disbursement'), aggregator: partner.aggregator.transactions() }),
      },
      liveCards: {
        async send(charge, card) {
          const sent = await sendLiveCard(deps, { ...charge, merchantName: 'Simulation merchant' }, CARD_RETURN_URL, card);
          const reference = await referenceOfPayment(charge.chargeId);
          if (sent.kind === 'sent' && reference) partner.cardSubmitted(reference);
          return reference ? `${sent.kind}, reference ${reference}` : sent.kind;
        },
        async otp(chargeId, otp) {
          const sent = await sendCardOtp(deps, chargeId, otp);
          const reference = await referenceOfPayment(chargeId);
          // A right code: successful at the fake's approval delay; a wrong one: failed now. Either with one webhook.
          if (sent.kind === 'sent' && reference) partner.answerDue(reference, APPROVE_AFTER_MS);
          return sent.kind;
        },
        async challenge(chargeId, action) {
          const reference = await referenceOfPayment(chargeId);
          if (!reference) return 'no reference';
          const done = partner.aggregator.completeChallenge(reference, action);
          if (done === 'done') partner.answerDue(reference, 0);
          await cardReturned(deps, chargeId);
          return done;
        },
      },
      settle: () => guarded(async () => {
        await watched('settle', waitUntilQuiet(quietDeps, { boundMs: options.settleBoundMs }));
        await syncClock();
      }),
      async close() {
        aborting.abort();
        await closeAll();
      },
    };
    return engine;
  } catch (error) {
    await closeAll();
    throw error;
  }
}
