import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { migrate, openOrm, type Orm } from '../persistence/orm';
import { installSqlClock, setClockSearchPath } from './sim-clock';

/**
 * The run's own PostgreSQL database: created on `serverUrl`'s server (its user needs CREATEDB) as
 * `sim_<seed>_<random>`, given the simulation's clock (sim-clock.ts) BEFORE its migrations, migrated,
 * dropped on `drop`. With a template (`createSimTemplate`: a database that went through those same
 * steps once), it is a copy of the template instead (`CREATE DATABASE … TEMPLATE`, a fraction of a
 * second against seconds for the migrations), given the clock's search_path again (a setting of the
 * database, which the copy does not carry): the same tables, rows, functions and column defaults.
 */
export interface SimDatabase {
  name: string;
  url: string;
  orm: Orm;
  /** Terminates every other session of the run's database (pg_terminate_backend); answers how many. */
  cutConnections(): Promise<number>;
  /** Closes the ORM; drops the database unless `keep`. */
  close(keep: boolean): Promise<void>;
  /** The sessions of the run's database now (pg_stat_activity: pid, state, since when, the last query cut short): what holds a close. */
  sessions(): Promise<string[]>;
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

/**
 * A database made as a run's database is (the clock installed, then every migration), kept to be
 * copied: what many runs against one server share (a shrink's trials, `--hours`, a test of many
 * sessions). Copies of one template are made one at a time (PostgreSQL refuses a copy of a database
 * being copied); `drop` removes it.
 */
export interface SimTemplate {
  name: string;
  /** The server it is on: its copies go there. */
  serverUrl: string;
  /** Makes `name` a copy of the template (one copy at a time). */
  copy(name: string): Promise<void>;
  drop(): Promise<void>;
}

function databaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Creates `name` with the clock, then migrates it: answers its ORM (a pool of `poolMax`). On failure, drops it. */
async function createClockedDatabase(serverUrl: string, name: string, poolMax: number): Promise<Orm> {
  await withClient(serverUrl, (c) => c.query(`create database ${name}`));
  let orm: Orm | undefined;
  try {
    await withClient(databaseUrl(serverUrl, name), (c) => installSqlClock(c, name));
    orm = await openOrm(databaseUrl(serverUrl, name), poolMax);
    await migrate(orm);
    return orm;
  } catch (error) {
    await orm?.close();
    await dropDatabase(serverUrl, name).catch(() => {});
    throw error;
  }
}

const dropDatabase = (serverUrl: string, name: string) => withClient(serverUrl, (c) => c.query(`drop database if exists ${name} with (force)`));

export async function createSimTemplate(serverUrl: string): Promise<SimTemplate> {
  const name = `sim_template_${randomBytes(4).toString('hex')}`;
  await (await createClockedDatabase(serverUrl, name, 2)).close();
  let copying: Promise<unknown> = Promise.resolve();
  return {
    name,
    serverUrl,
    copy(copyName) {
      const made = copying.then(() => withClient(serverUrl, (c) => c.query(`create database ${copyName} template ${name}`)));
      copying = made.catch(() => {});
      return made.then(() => undefined);
    },
    async drop() {
      await copying;
      await dropDatabase(serverUrl, name);
    },
  };
}

/**
 * The run's database on `serverUrl`: a copy of `template` when given (it must be on that server), else
 * made and migrated here.
 */
export async function createSimDatabase(serverUrl: string, seed: number, poolMax: number, template?: SimTemplate): Promise<SimDatabase> {
  const name = `sim_${seed >>> 0}_${randomBytes(4).toString('hex')}`;
  const url = databaseUrl(serverUrl, name);
  let orm: Orm;
  if (template) {
    if (!sameServer(template.serverUrl, serverUrl)) throw new Error(`the simulation's template database ${template.name} is on ${serverOf(template.serverUrl)}, not on the run's server ${serverOf(serverUrl)}`);
    await template.copy(name);
    try {
      await withClient(url, (c) => setClockSearchPath(c, name));
      orm = await openOrm(url, poolMax);
    } catch (error) {
      await dropDatabase(serverUrl, name).catch(() => {});
      throw error;
    }
  } else {
    orm = await createClockedDatabase(serverUrl, name, poolMax);
  }
  const opened = orm;
  return {
    name,
    url,
    orm: opened,
    async cutConnections() {
      return withClient(serverUrl, async (c) => {
        const result = await c.query(`select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()`, [name]);
        return result.rowCount ?? 0;
      });
    },
    async close(keep) {
      await opened.close();
      if (!keep) await dropDatabase(serverUrl, name);
    },
    sessions: () =>
      withClient(serverUrl, async (c) => {
        const result = await c.query<{ pid: number; state: string | null; state_change: Date | null; xact_start: Date | null; query: string | null }>(
          `select pid, state, state_change, xact_start, left(regexp_replace(query, '\\s+', ' ', 'g'), 160) as query from pg_stat_activity where datname = $1 and pid <> pg_backend_pid() order by pid`,
          [name],
        );
        return result.rows.map((r) => `pid ${r.pid} ${r.state ?? '?'}${r.xact_start ? ` (transaction since ${r.xact_start.toISOString()})` : ''}: ${r.query ?? ''}`);
      }),
  };
}

/** Whether two PostgreSQL URLs name the same server (host, port, user). */
function sameServer(a: string, b: string): boolean {
  const [x, y] = [new URL(a), new URL(b)];
  return x.hostname === y.hostname && (x.port || '5432') === (y.port || '5432') && x.username === y.username;
}

/** host:port of a PostgreSQL URL, for a message (never its password). */
function serverOf(serverUrl: string): string {
  const url = new URL(serverUrl);
  return `${url.hostname}:${url.port || '5432'}`;
}
