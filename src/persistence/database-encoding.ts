import type { EntityManager } from '@mikro-orm/postgresql';
import { StartupError } from '../support/startup-error';

/**
 * Refuses a database whose encoding is not UTF8. The schema's limits are in characters (an
 * operator's reason of at most 500, names, descriptions): under SQL_ASCII, `length()` counts bytes,
 * so a check refuses at the database what the API and the update validators accepted, and a payment
 * step stops half-way. Under any other single-byte encoding, a merchant's name may not be stored at
 * all. Nothing is migrated or started on such a database.
 */
export async function assertUtf8Database(em: Pick<EntityManager, 'execute'>): Promise<void> {
  const [row] = await em.execute<{ name: string; encoding: string }[]>(
    `select current_database() as name, pg_encoding_to_char(encoding) as encoding from pg_database where datname = current_database()`,
  );
  if (row && row.encoding !== 'UTF8') {
    throw new StartupError(
      `database ${row.name} uses the ${row.encoding} encoding; the engine needs UTF8 (its limits count characters, and names and reasons are Unicode). ` +
        `Create it with: CREATE DATABASE ${row.name} ENCODING 'UTF8' TEMPLATE template0 (and copy its rows across), or, for the embedded server, move its data directory aside and start again`,
    );
  }
}
