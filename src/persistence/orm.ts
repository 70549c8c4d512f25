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
    debug: false,
    logger,
  });
}

/** Applies every pending migration; safe to run on every start. */
export async function migrate(orm: Orm): Promise<void> {
  await orm.migrator.up();
}
