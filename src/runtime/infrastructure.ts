import type { Config } from '../config';
import { startEmbeddedPostgres } from '../persistence/embedded-postgres';
import { API_DB_TIMEOUTS, migrateDatabase, openOrm, type Orm } from '../persistence/orm';
import { connectTemporal, registerSearchAttributes, type TemporalHandle } from '../temporal/connection';
import { startDevServer } from '../temporal/dev-server';
import type { Logger } from '../support/logger';
import { payloadCodecFor } from './secrets-key';

export interface Infrastructure {
  databaseUrl: string;
  temporalAddress: string;
  temporalUiUrl: string | null;
  orm: Orm;
  temporal: TemporalHandle;
  stop(): Promise<void>;
}

/**
 * PostgreSQL (DATABASE_URL or embedded) with migrations applied, and Temporal (TEMPORAL_ADDRESS or a
 * dev server with its Web UI) with the search attributes registered.
 */
export async function startInfrastructure(config: Config, log: Logger, options: { uiCodecEndpoint?: string } = {}): Promise<Infrastructure> {
  const stops: Array<() => Promise<void>> = [];
  try {
    let databaseUrl = config.databaseUrl;
    if (!databaseUrl) {
      log.info({ dataDir: config.dataDir, port: config.embeddedPostgresPort }, 'starting embedded PostgreSQL');
      const pg = await startEmbeddedPostgres(config.dataDir, config.embeddedPostgresPort);
      stops.push(pg.stop);
      databaseUrl = pg.url;
    }
    // Migrations on a connection of their own (they may lift statement_timeout); requests on a pool
    // whose queries have the client's bound (src/persistence/orm.ts, queryTimeoutMs).
    await migrateDatabase(databaseUrl);
    const orm = await openOrm(databaseUrl, { poolMax: config.dbPoolMax, timeouts: API_DB_TIMEOUTS });
    stops.push(() => orm.close());

    let temporalAddress = config.temporalAddress;
    let temporalUiUrl: string | null = null;
    if (!temporalAddress) {
      log.info('starting Temporal dev server');
      const server = await startDevServer({ dataDir: config.dataDir, cliPath: config.temporalCliPath, port: config.temporalDevPort, uiPort: config.temporalUiPort, namespace: config.temporalNamespace, uiCodecEndpoint: options.uiCodecEndpoint });
      stops.push(server.stop);
      temporalAddress = server.address;
      temporalUiUrl = server.uiUrl;
    }
    const temporal = await connectTemporal(temporalAddress, config.temporalNamespace, payloadCodecFor(config));
    stops.push(() => temporal.connection.close());
    if (config.temporalAddress) await registerSearchAttributes(temporal);

    const stop = async () => {
      for (const s of stops.reverse()) await s().catch((e) => log.warn({ err: e }, 'error while stopping'));
    };
    return { databaseUrl, temporalAddress, temporalUiUrl, orm, temporal, stop };
  } catch (error) {
    for (const s of stops.reverse()) await s().catch(() => undefined);
    throw error;
  }
}
