import { loadConfig } from '../config';
import { migrate, openOrm } from './orm';
import { createLogger } from '../support/logger';
import { StartupError } from '../support/startup-error';

/**
 * One-shot: applies every pending migration to DATABASE_URL, then exits (`node dist/src/persistence/migrate.js`).
 * docker-compose.yml runs it as `payments_migrator`, the owner of the schema, before the API and the
 * worker start; they connect as roles with row access only, for which the API's start-up migration
 * check is then a no-op (docker/postgres/roles.sql).
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger(config.logLevel, 'migrate');
  if (!config.databaseUrl) throw new StartupError('DATABASE_URL is required: the database to migrate (as the role that owns its schema)');
  const orm = await openOrm(config.databaseUrl, 1);
  try {
    const pending = await orm.migrator.getPending();
    await migrate(orm);
    log.info({ applied: pending.map((m) => m.name) }, pending.length ? 'migrations applied' : 'schema up to date');
  } finally {
    await orm.close();
  }
}

main().catch((error) => {
  console.error(error instanceof StartupError ? error.message : error);
  process.exit(1);
});
