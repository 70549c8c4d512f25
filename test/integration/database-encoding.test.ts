/**
 * A database the engine runs on is UTF8, whatever the shell's locale. Found by a new user's
 * `npm test` under `env -i` (no LANG): initdb then made a SQL_ASCII cluster, where `length()` counts
 * bytes, and operator-audit-guards' 500-character reason in German and Chinese passed the update's
 * validator but broke the audit log's check (`length(reason) between 1 and 500`) in the payout's
 * step, which then waited for an operator: the update never answered and the test hung.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { startEmbeddedPostgres } from '../../src/persistence/embedded-postgres';
import { migrate, openOrm } from '../../src/persistence/orm';
import { StartupError } from '../../src/support/startup-error';
import { freePort } from '../../src/support/free-port';
import { randomBase62 } from '../../src/support/new-id';

const LOCALE_VARIABLES = ['LANG', 'LANGUAGE', 'LC_ALL', 'LC_CTYPE', 'LC_COLLATE'];
const REASON = 'Überweisung geprüft, 供应商已知 ✓ '.repeat(20).slice(0, 500);

async function query<T>(url: string, text: string, values: unknown[] = []): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, values)).rows as T[];
  } finally {
    await client.end();
  }
}

test('the embedded server made in a shell without LANG or LC_*: its database is UTF8 and counts characters', async () => {
  const saved = Object.fromEntries(LOCALE_VARIABLES.map((name) => [name, process.env[name]]));
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'encoding-'));
  fs.chmodSync(dataDir, 0o711); // the postgres account enters it when root runs the suite
  for (const name of LOCALE_VARIABLES) delete process.env[name];
  try {
    const pg = await startEmbeddedPostgres(dataDir, await freePort());
    try {
      const [row] = await query<{ encoding: string; length: number }>(pg.url, `select pg_encoding_to_char(encoding) as encoding, length($1::text) as length from pg_database where datname = current_database()`, [REASON]);
      expect(row).toEqual({ encoding: 'UTF8', length: 500 });
    } finally {
      await pg.stop();
    }
  } finally {
    for (const [name, value] of Object.entries(saved)) if (value === undefined) delete process.env[name];
    else process.env[name] = value;
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a SQL_ASCII database (a DATABASE_URL server, or a cluster made before): migrate refuses it, naming the fix, and creates nothing', async () => {
  const name = `ascii_${randomBase62(8).toLowerCase()}`;
  const server = process.env.TEST_DATABASE_URL!;
  await query(server, `create database ${name} encoding 'SQL_ASCII' locale_provider 'libc' locale 'C' template template0`);
  const url = new URL(server);
  url.pathname = `/${name}`;
  try {
    const orm = await openOrm(url.toString(), 1);
    try {
      const refused = await migrate(orm).then(() => undefined, (e: unknown) => e);
      expect(refused).toBeInstanceOf(StartupError);
      expect((refused as Error).message).toBe(
        `database ${name} uses the SQL_ASCII encoding; the engine needs UTF8 (its limits count characters, and names and reasons are Unicode). ` +
          `Create it with: CREATE DATABASE ${name} ENCODING 'UTF8' TEMPLATE template0 (and copy its rows across), or, for the embedded server, move its data directory aside and start again`,
      );
      const tables = await query<{ n: number }>(url.toString(), `select count(*)::int as n from information_schema.tables where table_schema = 'public'`);
      expect(tables).toEqual([{ n: 0 }]);
    } finally {
      await orm.close();
    }
  } finally {
    await query(server, `drop database ${name}`);
  }
});
