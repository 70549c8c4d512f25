import { MikroORM } from '@mikro-orm/postgresql';
import { BoundedQueryClient } from './bounded-client';
import { Migrator } from '@mikro-orm/migrations';
import { ALL_ENTITIES } from './entities';
import { MIGRATIONS } from '../../migrations';
import { assertUtf8Database } from './database-encoding';

export type Orm = MikroORM;

/**
 * Bounded waits, so a database step fails (and is retried) instead of hanging. The worker's values
 * sit well below the webhook activity's heartbeat timeout (10 s) and the local activities' attempt
 * timeout (see docs/architecture.md, "Retries and deadlines").
 */
export interface DbTimeouts {
  /** Longest wait for a row lock (`lock_timeout`). */
  lockTimeoutMs: number;
  /** Longest single statement (`statement_timeout`). */
  statementTimeoutMs: number;
  /** Longest wait for a pooled connection or a new one (pg's `connectionTimeoutMillis`). */
  acquireTimeoutMs: number;
  /**
   * The client's own bound on one query (pg's `query_timeout`), for the serving processes only.
   * `statement_timeout` is the server's: a server that stopped answering (SIGSTOP, a network that
   * drops packets) would hold a request on a connection it already has for as long as the stop lasts
   * (issue 32, found by `npm run chaos`). Past this bound the query fails as a database outage (503 at
   * the API, a retry in the worker) and its connection is closed, never reused (bounded-client.ts).
   * Absent for the CLI and migrations, whose statements may lift `statement_timeout` (`set local
   * statement_timeout = 0`: the ledger check, long migrations).
   */
  queryTimeoutMs?: number;
}

/** The margin of the client's bound over `statement_timeout`: the server's own timeout answers first. */
export const QUERY_TIMEOUT_MARGIN_MS = 2_000;

export const API_DB_TIMEOUTS: DbTimeouts = { lockTimeoutMs: 5_000, statementTimeoutMs: 20_000, acquireTimeoutMs: 5_000, queryTimeoutMs: 20_000 + QUERY_TIMEOUT_MARGIN_MS };
export const WORKER_DB_TIMEOUTS: DbTimeouts = { lockTimeoutMs: 3_000, statementTimeoutMs: 8_000, acquireTimeoutMs: 3_000, queryTimeoutMs: 8_000 + QUERY_TIMEOUT_MARGIN_MS };
/** The CLI's, migrations' and scripts' (the default): no client bound, so `statement_timeout = 0` holds. */
export const ADMIN_DB_TIMEOUTS: DbTimeouts = { lockTimeoutMs: 5_000, statementTimeoutMs: 20_000, acquireTimeoutMs: 5_000 };

export interface OrmOptions {
  poolMax?: number;
  timeouts?: DbTimeouts;
  logger?: (message: string) => void;
}

/** Opens the ORM on a PostgreSQL URL. Entities are defined in code (no decorators, no discovery). */
export async function openOrm(clientUrl: string, options: OrmOptions | number = {}): Promise<Orm> {
  const { poolMax = 10, timeouts = ADMIN_DB_TIMEOUTS, logger = () => {} } = typeof options === 'number' ? { poolMax: options } : options;
  return MikroORM.init({
    clientUrl,
    entities: ALL_ENTITIES,
    extensions: [Migrator],
    migrations: { migrationsList: MIGRATIONS, transactional: true, allOrNothing: true, snapshot: false },
    pool: { min: 0, max: poolMax },
    // A lock held by a dead session or a slow statement fails the step instead of stalling a
    // merchant's event counter behind it; a dead session's transaction is cut after a minute.
    driverOptions: {
      lock_timeout: timeouts.lockTimeoutMs,
      statement_timeout: timeouts.statementTimeoutMs,
      idle_in_transaction_session_timeout: 60_000,
      connectionTimeoutMillis: timeouts.acquireTimeoutMs,
      Client: BoundedQueryClient,
      ...(timeouts.queryTimeoutMs ? { query_timeout: timeouts.queryTimeoutMs } : {}),
    },
    debug: false,
    logger,
  });
}

/** Applies every pending migration; safe to run on every start. Refuses a database that is not UTF8. */
export async function migrate(orm: Orm): Promise<void> {
  await assertUtf8Database(orm.em.fork());
  await orm.migrator.up();
}

/** Applies every pending migration on a connection of its own (no client bound), then closes it. */
export async function migrateDatabase(clientUrl: string): Promise<void> {
  const orm = await openOrm(clientUrl, 1);
  try {
    await migrate(orm);
  } finally {
    await orm.close();
  }
}
