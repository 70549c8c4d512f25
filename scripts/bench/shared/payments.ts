import type { Config } from '../../../src/config';
import type { CpuRoots, CpuTarget } from './procs';
import { openOrm, WORKER_DB_TIMEOUTS } from '../../../src/persistence/orm';
import { startChargeStartRelay } from '../../../src/runtime/charge-start-relay';
import { startWorkerProcess, type WorkerProcess } from '../../../src/runtime/worker-process';
import { freePort } from '../../../src/support/free-port';
import { createLogger } from '../../../src/support/logger';
import { createSecretBox, parseKeyring, parseSecretsKey } from '../../../src/support/secret-box';
import { createPayloadCodec } from '../../../src/temporal/payload-codec';
import { connectTemporal } from '../../../src/temporal/connection';
import { startOutboxRelay } from '../../../src/webhooks/outbox-relay';
import { createPaymentsWorker } from '../../../workers/create-worker';

/** The payments worker and the webhook outbox relay, wherever they run. */
export interface PaymentsSide {
  /** The forked worker process, when the worker runs as its own process. */
  pid?: number;
  /** The worker process(es)' Prometheus listeners (the SDK's metrics: sticky cache, slots), when they run apart. */
  metricsPorts?: number[];
  /** The API processes' Prometheus listeners, when they run apart (the topology). */
  apiMetricsPorts?: number[];
  /** Temporal server's Prometheus listener (the topology). */
  temporalMetricsPort?: number;
  /** Process trees reported apart by name (the topology: its two PostgreSQL servers). */
  namedTrees?: () => Record<string, number[]>;
  /** The topology's process trees, read from its state file now (their pids change when a piece restarts). */
  cpuRoots?: () => CpuRoots;
  /** Set when the worker process exited or the in-process worker failed before `stop` (a `crash` aside). */
  failure(): string | undefined;
  /**
   * SIGKILL the worker process (no drain: a crashed machine) and start a new one with the same
   * environment; resolves once the new one polls. Only where the worker runs as its own process
   * started by the bench (`deployed`, `single` has none to kill; the topology supervises its own).
   */
  crash?(): Promise<void>;
  stop(): Promise<void>;
}

export interface PaymentsOptions {
  /** true: `startWorkerProcess` (workers/main.ts in its own process, as `npm start`); false: this process. */
  separate: boolean;
  config: Config;
  databaseUrl: string;
  temporalAddress: string;
  secretsKey: string;
  dataDir: string;
  /** Added to the forked worker's environment (the cost mode's NODE_OPTIONS=--cpu-prof); not used in this process. */
  workerEnv?: NodeJS.ProcessEnv;
}

/**
 * As deployed: `npm start` forks workers/main.ts with this environment (src/main.ts), and the worker
 * process reads everything else from its defaults. The metrics exporter stays on, on a free port.
 */
async function separateProcess(o: PaymentsOptions): Promise<PaymentsSide> {
  const metricsPort = o.config.workerMetricsPort > 0 ? await freePort() : 0;
  const env: NodeJS.ProcessEnv = {
    DATABASE_URL: o.databaseUrl,
    TEMPORAL_ADDRESS: o.temporalAddress,
    TEMPORAL_NAMESPACE: o.config.temporalNamespace,
    TEMPORAL_TASK_QUEUE: o.config.taskQueue,
    SECRETS_KEY: o.secretsKey,
    DATA_DIR: o.dataDir,
    WORKER_METRICS_PORT: String(metricsPort),
    // Only so that the worker may deliver to the bench's receiver on http://127.0.0.1 (sandbox).
    WEBHOOK_ALLOW_PRIVATE_HOSTS: o.config.webhooks.allowPrivateHosts.join(','),
    WEBHOOK_ALLOW_HTTP: String(o.config.webhooks.allowHttp),
    ...o.workerEnv,
  };
  let stopping = false;
  let failure: string | undefined;
  /** Killed on purpose (`crash`): their exit is no failure. */
  const crashed = new Set<WorkerProcess>();
  const watched = (w: WorkerProcess) => {
    w.child.on('exit', (code, signal) => {
      if (!stopping && !crashed.has(w)) failure = `worker process exited (code ${code}, signal ${signal})`;
    });
    return w;
  };
  let worker = watched(await startWorkerProcess(env));
  return {
    get pid() {
      return worker.child.pid;
    },
    ...(metricsPort > 0 ? { metricsPorts: [metricsPort] } : {}),
    failure: () => failure,
    async crash() {
      const old = worker;
      crashed.add(old);
      const gone = new Promise<void>((resolve) => (old.child.exitCode !== null || old.child.signalCode !== null ? resolve() : old.child.once('exit', () => resolve())));
      old.child.kill('SIGKILL');
      await gone;
      worker = watched(await startWorkerProcess(env));
      if (stopping) await worker.stop(); // stopped while the new one started
    },
    async stop() {
      stopping = true;
      await worker.stop();
    },
  };
}

/**
 * The same pieces as workers/main.ts, in this process: the worker with its own pool and slots, the
 * outbox relay on the worker's connection (eager start) and the charge-start relay. Not the charge
 * reconciler (one pass a minute). Keep this in step with workers/main.ts.
 */
async function inThisProcess(o: PaymentsOptions): Promise<PaymentsSide> {
  const { config } = o;
  const log = createLogger(config.logLevel, 'worker');
  const orm = await openOrm(o.databaseUrl, { poolMax: config.worker.poolMax, timeouts: WORKER_DB_TIMEOUTS });
  const { worker, connection, client: relayClient } = await createPaymentsWorker({
    orm,
    address: o.temporalAddress,
    namespace: config.temporalNamespace,
    taskQueue: config.taskQueue,
    secretBox: createSecretBox(parseSecretsKey(o.secretsKey)),
    payloadCodec: createPayloadCodec(parseKeyring(o.secretsKey)),
    webhooks: config.webhooks,
    slots: config.worker,
  });
  const temporal = await connectTemporal(o.temporalAddress, config.temporalNamespace, createPayloadCodec(parseKeyring(o.secretsKey)));
  const relay = startOutboxRelay(
    { orm, client: relayClient, eagerStart: true, taskQueue: config.taskQueue, retryScheduleMs: config.webhooks.retryScheduleMs, log },
    config.webhooks.outboxPollMs,
  );
  const chargeStarts = startChargeStartRelay({ orm, client: temporal.client, taskQueue: config.taskQueue, log, requestDeadlineMs: config.temporalRequestDeadlineMs });
  let failure: string | undefined;
  let stopping = false;
  const running = worker.run().catch((error: unknown) => {
    if (!stopping) failure = `payments worker failed: ${error instanceof Error ? error.message : String(error)}`;
  });
  return {
    failure: () => failure,
    async stop() {
      stopping = true;
      worker.shutdown();
      await running;
      await relay.stop();
      await chargeStarts.stop();
      await temporal.connection.close();
      await connection.close();
      await orm.close();
    },
  };
}

export function startPayments(options: PaymentsOptions): Promise<PaymentsSide> {
  return options.separate ? separateProcess(options) : inThisProcess(options);
}

/** What the CPU and memory figures count apart from the bench process: the worker's pid, or the topology's trees. */
export function cpuTarget(side: PaymentsSide | undefined): CpuTarget {
  return side?.cpuRoots?.() ?? side?.pid;
}
