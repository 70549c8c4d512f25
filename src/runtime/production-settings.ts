import type { Config } from '../config';
import { StartupError } from '../support/startup-error';

/**
 * With NODE_ENV=production nothing falls back to the embedded PostgreSQL or the local Temporal dev
 * server: a missing DATABASE_URL or TEMPORAL_ADDRESS is a start-up error, on one line.
 */
export function requireProductionSettings(config: Config, needs: { database?: boolean; temporal?: boolean } = { database: true, temporal: true }): void {
  if (!config.production) return;
  const missing = [needs.database && !config.databaseUrl && 'DATABASE_URL', needs.temporal && !config.temporalAddress && 'TEMPORAL_ADDRESS'].filter(Boolean);
  if (missing.length === 0) return;
  throw new StartupError(`NODE_ENV=production requires ${missing.join(' and ')} (no embedded PostgreSQL or Temporal dev server in production)`);
}

/** TEMPORAL_ADDRESS, else the dev server of `npm start` (refused in production). */
export function temporalAddressOf(config: Config): string {
  requireProductionSettings(config, { temporal: true });
  return config.temporalAddress ?? `127.0.0.1:${config.temporalDevPort}`;
}
