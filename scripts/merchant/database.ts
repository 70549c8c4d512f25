import path from 'node:path';
import { startEmbeddedPostgres } from '../../src/persistence/embedded-postgres';
import { ADMIN_DB_TIMEOUTS, migrate, openOrm, type Orm } from '../../src/persistence/orm';
import { freePort } from '../../src/support/free-port';

/** Where the million-row scripts keep their embedded PostgreSQL without DATABASE_URL (kept between runs: seed once, measure often). */
export const DEFAULT_MERCHANT_DATA_DIR = path.join(process.cwd(), '.cache', 'million-rows');

export interface MerchantDatabase {
  orm: Orm;
  url: string;
  /** Whether PostgreSQL's own log reaches `onLog` (the embedded one only): auto_explain's plans need it. */
  ownLog: boolean;
  close(): Promise<void>;
}

/**
 * The database `seed:merchant` and the reads bench work on: DATABASE_URL when set, else an embedded
 * PostgreSQL with its data in `dataDir` (created on first use, kept), its log lines passed to `onLog`.
 * Migrated before use. No statement bound on this pool (seeding a million rows takes longer).
 */
export async function openMerchantDatabase(dataDir: string, onLog: (line: string) => void = () => {}): Promise<MerchantDatabase> {
  let url = process.env.DATABASE_URL;
  let stopPostgres = async () => {};
  if (!url) {
    const pg = await startEmbeddedPostgres(dataDir, await freePort(), onLog, ['-c', 'shared_buffers=512MB', '-c', 'max_wal_size=4GB', '-c', 'synchronous_commit=off']);
    url = pg.url;
    stopPostgres = pg.stop;
  }
  const orm = await openOrm(url, { poolMax: 4, timeouts: { ...ADMIN_DB_TIMEOUTS, statementTimeoutMs: 0 } });
  await migrate(orm);
  return {
    orm,
    url,
    ownLog: !process.env.DATABASE_URL,
    async close() {
      await orm.close();
      await stopPostgres();
    },
  };
}
