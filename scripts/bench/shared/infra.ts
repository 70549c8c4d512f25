import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../../src/config';
import { createApp } from '../../../src/http/app';
import { startEmbeddedPostgres } from '../../../src/persistence/embedded-postgres';
import { migrate, openOrm } from '../../../src/persistence/orm';
import type { ServiceDeps } from '../../../src/services/context';
import { freePort } from '../../../src/support/free-port';
import { createLogger } from '../../../src/support/logger';
import { createApiMetrics } from '../../../src/support/metrics';
import { createSecretBox, parseKeyring, parseSecretsKey } from '../../../src/support/secret-box';
import { createPayloadCodec } from '../../../src/temporal/payload-codec';
import { connectTemporal } from '../../../src/temporal/connection';
import { startDevServer } from '../../../src/temporal/dev-server';
import { startPayments } from './payments';
import { startTopologyInfra } from './topology';
import type { Variant } from './variants';
import type { BenchInfra, BenchInfraOptions } from './bench-infra';

export type { BenchInfra, BenchInfraOptions } from './bench-infra';


/**
 * The environment `npm start` would see, plus what a local webhook receiver needs (http, 127.0.0.1),
 * and a sandbox rate limit (RATE_LIMIT_SANDBOX, unless set) far above what one bench merchant sends:
 * the limiter runs on every request of every phase (its cost is in every figure) and refuses none.
 */
export function benchEnv(): NodeJS.ProcessEnv {
  const allow = [process.env.WEBHOOK_ALLOW_PRIVATE_HOSTS, '127.0.0.1'].filter(Boolean).join(',');
  return { RATE_LIMIT_SANDBOX: '1000000', ...process.env, WEBHOOK_ALLOW_PRIVATE_HOSTS: allow, WEBHOOK_ALLOW_HTTP: 'true' };
}

/**
 * Fresh servers for one variant, set up the way `npm start` sets them up (src/runtime/infrastructure.ts
 * and src/main.ts): embedded PostgreSQL in a new temporary folder on a free port (migrated, API pool
 * DB_POOL_MAX), a Temporal dev server (on disk in that folder with `npm start`'s SQLite pragmas, or in
 * memory for the tuned variant), the payments worker and outbox relay (own process or this one), and
 * the sandbox API on an ephemeral loopback port with its access log and metrics. `stop` tears
 * everything down and removes the folder. The `topology` variant: scripts/bench/shared/topology.ts.
 */
export async function startBenchInfra(variant: Variant, log: (m: string) => void, options: BenchInfraOptions = {}): Promise<BenchInfra> {
  if (variant.topology) return startTopologyInfra(variant, { ...benchEnv(), ...options.topologyEnv }, log);
  const stops: Array<() => Promise<unknown>> = [];
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payments-bench-'));
  if (process.getuid?.() === 0) fs.chmodSync(dataDir, 0o777);
  stops.push(async () => fs.rmSync(dataDir, { recursive: true, force: true }));
  const stop = async () => {
    for (const s of stops.reverse()) await s().catch((e) => console.error('bench: error while stopping:', e));
  };
  try {
    const config = loadConfig(benchEnv());
    const taskQueue = config.taskQueue; // the default (`payments`): every variant has a new dev server
    const pgPort = await freePort();
    const pg = await startEmbeddedPostgres(dataDir, pgPort, undefined, options.postgresFlags ?? []);
    stops.push(pg.stop);
    const orm = await openOrm(pg.url, config.dbPoolMax);
    stops.push(() => orm.close());
    await migrate(orm);

    const temporalMetricsPort = options.temporalMetrics ? await freePort() : undefined;
    const server = await startDevServer({
      dataDir,
      cliPath: config.temporalCliPath,
      port: await freePort(),
      namespace: config.temporalNamespace,
      persistent: variant.persistentDevServer,
      // npm start runs the Web UI too; it idles unless someone opens it.
      ...(variant.persistentDevServer ? { uiPort: await freePort() } : {}),
      ...(temporalMetricsPort ? { metricsPort: temporalMetricsPort } : {}),
    });
    stops.push(server.stop);
    const secretsKey = randomBytes(32).toString('base64');
    const payloadCodec = createPayloadCodec(parseKeyring(secretsKey));
    const temporal = await connectTemporal(server.address, config.temporalNamespace, payloadCodec);
    stops.push(() => temporal.connection.close());

    log(`${variant.name}: starting the payments worker and outbox relay (${variant.separateWorker ? 'own process, startWorkerProcess' : 'in this process'})`);
    const payments = await startPayments({ separate: variant.separateWorker, config, databaseUrl: pg.url, temporalAddress: server.address, secretsKey, dataDir, workerEnv: options.workerEnv });
    stops.push(() => payments.stop());

    const deps: ServiceDeps = {
      orm,
      temporal,
      taskQueue,
      log: createLogger(config.logLevel, 'api'),
      metrics: createApiMetrics(),
      secretBox: createSecretBox(parseSecretsKey(secretsKey)),
      webhooks: config.webhooks,
      temporalDeadlineMs: config.temporalRequestDeadlineMs,
      // As src/main.ts passes it, where the configuration has it (issue 8's create path).
      ...((config as { chargeStartWaitMs?: number }).chargeStartWaitMs !== undefined ? { chargeStartWaitMs: (config as { chargeStartWaitMs?: number }).chargeStartWaitMs } : {}),
    };
    const api = http.createServer(createApp(deps, { environment: 'sandbox', bodyLimitBytes: config.bodyLimitBytes, rateLimitPerSecond: config.rateLimits.sandbox }).callback());
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    stops.push(
      () =>
        new Promise<void>((resolve) => {
          api.close(() => resolve());
          api.closeAllConnections();
        }),
    );
    const apiUrl = `http://127.0.0.1:${(api.address() as net.AddressInfo).port}`;
    const disk = { temporal: ['temporal.db', 'temporal.db-wal', 'temporal.db-shm'].map((f) => path.join(dataDir, f)), postgres: [path.join(dataDir, 'postgres')] };
    const postgresAdminUrls = { postgres: `postgres://postgres:postgres@127.0.0.1:${pgPort}/postgres` };
    return { variant, orm, temporal, temporalAddress: server.address, payloadCodec, taskQueue, config, apiUrl, deps, payments, disk, temporalMetricsPort, postgresAdminUrls, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
