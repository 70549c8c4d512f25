import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { startEmbeddedPostgres } from '../../src/persistence/embedded-postgres';
import { migrate, openOrm } from '../../src/persistence/orm';
import { startDevServer } from '../../src/temporal/dev-server';
import { temporalCliPath } from './binaries';
import { freePort } from '../../src/support/free-port';

/**
 * Starts the real servers the suite runs against, once: PostgreSQL (TEST_DATABASE_URL, else an
 * embedded server in a temporary folder) with migrations applied, and a Temporal dev server in memory
 * with the search attributes registered. Tests find them through TEST_DATABASE_URL and
 * TEST_TEMPORAL_ADDRESS (and TEST_SECRETS_KEY).
 */
export default async function globalSetup(): Promise<void> {
  const stops: Array<() => Promise<void>> = [];
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payments-test-'));
  if (process.getuid?.() === 0) fs.chmodSync(dataDir, 0o777);
  let url = process.env.TEST_DATABASE_URL;
  if (!url) {
    const pg = await startEmbeddedPostgres(dataDir, await freePort());
    stops.push(pg.stop);
    url = pg.url;
  }
  const orm = await openOrm(url, 2);
  await migrate(orm);
  await orm.close();

  const server = await startDevServer({ dataDir, cliPath: temporalCliPath(), port: await freePort(), persistent: false });
  stops.push(server.stop);

  process.env.TEST_DATABASE_URL = url;
  process.env.TEST_TEMPORAL_ADDRESS = server.address;
  // The key that seals webhook signing secrets, shared by the in-process API and worker children.
  process.env.TEST_SECRETS_KEY ??= randomBytes(32).toString('base64');
  (globalThis as Record<string, unknown>).__paymentsTestStops = async () => {
    for (const stop of stops.reverse()) await stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
}
