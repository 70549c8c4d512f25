import { randomBytes } from 'node:crypto';
import { loadWebhookConfig } from '../../src/config';
import { createSecretBox } from '../../src/support/secret-box';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createApp } from '../../src/http/app';
import { startEmbeddedPostgres } from '../../src/persistence/embedded-postgres';
import { migrate, openOrm, type Orm } from '../../src/persistence/orm';
import type { ServiceDeps } from '../../src/services/context';
import { freePort } from '../../src/support/free-port';
import { createLogger } from '../../src/support/logger';
import { connectTemporal, type TemporalHandle } from '../../src/temporal/connection';
import { startDevServer } from '../../src/temporal/dev-server';

export interface BenchInfra {
  orm: Orm;
  temporal: TemporalHandle;
  temporalAddress: string;
  deps: ServiceDeps;
  /** The sandbox listener, loopback, ephemeral port. */
  apiUrl: string;
  stop(): Promise<void>;
}


function cliPath(): string | undefined {
  const local = path.resolve(__dirname, '../../.cache/temporal/bin/temporal');
  return process.env.TEMPORAL_CLI_PATH ?? (fs.existsSync(local) ? local : undefined);
}

/**
 * Isolated servers for one run: embedded PostgreSQL in a temporary folder on a free port (migrated),
 * a Temporal dev server in memory without UI, and the sandbox API on an ephemeral port. `stop`
 * tears everything down and removes the folder.
 */
export async function startBenchInfra(taskQueue: string, poolMax: number): Promise<BenchInfra> {
  const stops: Array<() => Promise<unknown>> = [];
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payments-bench-'));
  if (process.getuid?.() === 0) fs.chmodSync(dataDir, 0o777);
  stops.push(async () => fs.rmSync(dataDir, { recursive: true, force: true }));
  const stop = async () => {
    for (const s of stops.reverse()) await s().catch((e) => console.error('bench: error while stopping:', e));
  };
  try {
    const pg = await startEmbeddedPostgres(dataDir, await freePort());
    stops.push(pg.stop);
    const orm = await openOrm(pg.url, poolMax);
    stops.push(() => orm.close());
    await migrate(orm);

    const server = await startDevServer({ dataDir, cliPath: cliPath(), port: await freePort(), persistent: false });
    stops.push(server.stop);
    const temporal = await connectTemporal(server.address, 'default');
    stops.push(() => temporal.connection.close());

    const webhooks = loadWebhookConfig({ WEBHOOK_ALLOW_PRIVATE_HOSTS: '127.0.0.1', WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_OUTBOX_POLL_MS: '50' });
    const deps: ServiceDeps = { orm, temporal, taskQueue, log: createLogger('silent'), secretBox: createSecretBox(randomBytes(32)), webhooks };
    const api = http.createServer(createApp(deps, { environment: 'sandbox', bodyLimitBytes: 64 * 1024 }).callback());
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    stops.push(
      () =>
        new Promise<void>((resolve) => {
          api.close(() => resolve());
          api.closeAllConnections();
        }),
    );
    const apiUrl = `http://127.0.0.1:${(api.address() as net.AddressInfo).port}`;
    return { orm, temporal, temporalAddress: server.address, deps, apiUrl, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
