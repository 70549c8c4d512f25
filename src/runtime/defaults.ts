import type { Config } from '../config';

/** URL of the embedded PostgreSQL that `npm start` runs when DATABASE_URL is unset. */
export function embeddedDatabaseUrl(config: Config): string {
  return `postgres://postgres:postgres@127.0.0.1:${config.embeddedPostgresPort}/payments`;
}
