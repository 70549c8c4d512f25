import { MikroORM } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { ALL_ENTITIES } from './entities';
import { MIGRATIONS } from '../../migrations';

export type Orm = MikroORM;

/** Opens the ORM on a PostgreSQL URL. Entities are defined in code (no decorators, no discovery). */
export async function openOrm(clientUrl: string, poolMax = 10, logger: (message: string) => void = () => {}): Promise<Orm> {
  return MikroORM.init({
    clientUrl,
    entities: ALL_ENTITIES,
    extensions: [Migrator],
    migrations: { migrationsList: MIGRATIONS, transactional: true, allOrNothing: true, snapshot: false },
    pool: { min: 0, max: poolMax },
    // Bounded waits: a lock held by a dead session or a slow statement fails the step (which is
    // retried) instead of stalling a merchant's event counter behind it.
    driverOptions: { lock_timeout: 10_000, statement_timeout: 20_000, idle_in_transaction_session_timeout: 60_000, connectionTimeoutMillis: 10_000 },
    debug: false,
    logger,
  });
}

/** Applies every pending migration; safe to run on every start. */
export async function migrate(orm: Orm): Promise<void> {
  await orm.migrator.up();
}
