import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { migrate, openOrm, type Orm } from '../persistence/orm';
import { installSqlClock } from './sim-clock';

/**
 * The run's own PostgreSQL database: created on `serverUrl`'s server (its user needs CREATEDB) as
 * `sim_<seed>_<random>`, given the simulation's clock (sim-clock.ts) BEFORE its migrations, migrated,
 * dropped on `drop`.
 */
export interface SimDatabase {
  name: string;
  url: string;
  orm: Orm;
  /** Terminates every other session of the run's database (pg_terminate_backend); answers how many. */
  cutConnections(): Promise<number>;
  /** Closes the ORM; drops the database unless `keep`. */
  close(keep: boolean): Promise<void>;
}

async function withClient<T>(url: string, run: (c: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

/** The server URL of a run: the option, else TEST_DATABASE_URL, else DATABASE_URL; one clear line when none. */
export function simServerUrl(option?: string): string {
  const url = option ?? process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL;
  if (!url) throw new Error('the simulation needs a PostgreSQL server whose user may CREATE DATABASE: set TEST_DATABASE_URL or DATABASE_URL (or pass serverUrl)');
  return url;
}

export async function createSimDatabase(serverUrl: string, seed: number, poolMax: number): Promise<SimDatabase> {
  const name = `sim_${seed >>> 0}_${randomBytes(4).toString('hex')}`;
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  await withClient(serverUrl, (c) => c.query(`create database ${name}`));
  let orm: Orm | undefined;
  try {
    await withClient(url.toString(), (c) => installSqlClock(c, name));
    orm = await openOrm(url.toString(), poolMax);
    await migrate(orm);
  } catch (error) {
    await orm?.close();
    await withClient(serverUrl, (c) => c.query(`drop database if exists ${name} with (force)`)).catch(() => {});
    throw error;
  }
  const opened = orm;
  return {
    name,
    url: url.toString(),
    orm: opened,
    async cutConnections() {
      return withClient(serverUrl, async (c) => {
        const result = await c.query(`select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()`, [name]);
        return result.rowCount ?? 0;
      });
    },
    async close(keep) {
      await opened.close();
      if (!keep) await withClient(serverUrl, (c) => c.query(`drop database if exists ${name} with (force)`));
    },
  };
}
