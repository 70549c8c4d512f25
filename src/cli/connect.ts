import type { Client } from '@temporalio/client';
import type { Config } from '../config';
import { startEmbeddedPostgres } from '../persistence/embedded-postgres';
import { migrate, openOrm, type Orm } from '../persistence/orm';
import { embeddedDatabaseUrl } from '../runtime/defaults';
import { requireProductionSettings, temporalAddressOf } from '../runtime/production-settings';
import { payloadCodecFor } from '../runtime/secrets-key';
import { connectTemporal, type TemporalHandle } from '../temporal/connection';

/**
 * Reaches the same database as the running service: DATABASE_URL, else the embedded server of
 * `npm start` (started here for the duration of the command when the service is not running).
 */
export async function withDatabase<T>(config: Config, work: (orm: Orm) => Promise<T>): Promise<T> {
  requireProductionSettings(config, { database: true });
  let stop: (() => Promise<void>) | undefined;
  let orm: Orm;
  try {
    orm = await openOrm(config.databaseUrl ?? embeddedDatabaseUrl(config), 2);
    await orm.em.getConnection().execute('select 1');
  } catch (error) {
    if (config.databaseUrl) throw error;
    const pg = await startEmbeddedPostgres(config.dataDir, config.embeddedPostgresPort);
    stop = pg.stop;
    orm = await openOrm(pg.url, 2);
  }
  try {
    await migrate(orm);
    return await work(orm);
  } finally {
    await orm.close();
    await stop?.();
  }
}

/** A client on TEMPORAL_ADDRESS (else the dev server of `npm start`) that encodes payloads as the workers do. */
export async function withTemporal<T>(config: Config, work: (temporal: TemporalHandle) => Promise<T>, needs = { database: false }): Promise<T> {
  // In production, name everything missing at once.
  requireProductionSettings(config, { temporal: true, database: needs.database });
  const temporal = await connectTemporal(temporalAddressOf(config), config.temporalNamespace, payloadCodecFor(config));
  try {
    return await work(temporal);
  } finally {
    await temporal.connection.close();
  }
}

/** Temporal, then the database (production settings of both checked first). */
export function withTemporalAndDatabase<T>(config: Config, work: (temporal: TemporalHandle, orm: Orm) => Promise<T>): Promise<T> {
  return withTemporal(config, (temporal) => withDatabase(config, (orm) => work(temporal, orm)), { database: true });
}

/** The same with the Temporal client only. */
export function withClientAndDatabase<T>(config: Config, work: (client: Client, orm: Orm) => Promise<T>): Promise<T> {
  return withTemporalAndDatabase(config, (temporal, orm) => work(temporal.client, orm));
}
