import os from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres } from '../../src/persistence/embedded-postgres';
import { ADMIN_DB_TIMEOUTS, migrate, openOrm, type Orm } from '../../src/persistence/orm';
import { freePort } from '../../src/support/free-port';

/** Where the backlog scripts keep their embedded PostgreSQL when no DATABASE_URL is given (kept between runs). */
export const DEFAULT_BACKLOG_DATA_DIR = path.join(os.tmpdir(), 'payments-backlog');

/**
 * The database the backlog scripts work on: DATABASE_URL when set, else an embedded PostgreSQL with its
 * data in `dataDir` (created on first use, kept afterwards, so `seed:backlog` and `bench:backlog` meet
 * the same rows). Migrated before use.
 */
export async function openBacklogDatabase(dataDir: string, log: (line: string) => void): Promise<{ orm: Orm; url: string; close(): Promise<void> }> {
  let url = process.env.DATABASE_URL;
  let stopPostgres = async () => {};
  if (!url) {
    // Room for millions of rows: a larger cache and checkpoint distance than PostgreSQL's defaults.
    const pg = await startEmbeddedPostgres(dataDir, await freePort(), () => {}, ['-c', 'shared_buffers=512MB', '-c', 'max_wal_size=4GB']);
    url = pg.url;
    stopPostgres = pg.stop;
    log(`embedded PostgreSQL with its data in ${dataDir}`);
  }
  // Seeding millions of rows takes longer than the scripts' usual 20 s statement bound.
  const orm = await openOrm(url, { poolMax: 4, timeouts: { ...ADMIN_DB_TIMEOUTS, statementTimeoutMs: 0 } });
  await migrate(orm);
  return {
    orm,
    url,
    async close() {
      await orm.close();
      await stopPostgres();
    },
  };
}
