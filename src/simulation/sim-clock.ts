import type { Client } from 'pg';

/**
 * The simulation's one clock (docs/simulation.md "One clock"): workflow time is the time-skipping test
 * server's; the run's database and this process's `Date` follow it by one offset (test server time −
 * real time), set again after every time jump and every settle.
 *
 * - The database: `installSqlClock` runs on the new, empty database BEFORE its migrations. It creates
 *   `sim_clock` (one row: the offset), `public.now()` and `public.clock_timestamp()` (pg_catalog's
 *   value plus the offset) and puts `public` before `pg_catalog` in the database's search_path, so
 *   every unqualified now()/clock_timestamp() resolves to ours: queries, triggers, and the column
 *   defaults the migrations create (bound to the function when the default is created). The SQL
 *   keywords current_timestamp/current_date would not follow; the code uses none (checked when this
 *   was written). A copy of a template made that way (sim-database.ts `createSimTemplate`) holds the
 *   same table, functions and defaults; only the search_path, a setting of the database, is set again.
 * - The process: `shiftProcessDate` replaces globalThis.Date by a subclass whose `now()` and no-argument
 *   constructor add the offset (everything else is the native Date's). Not @sinonjs/fake-timers: with
 *   only Date faked and shouldAdvanceTime its clock moves in fixed 20 ms ticks on a real interval, so
 *   it steps by 20 ms and falls behind real time whenever the event loop is late, while the database's
 *   clock (real time + offset) does not: the two would drift apart between two settles. A shifted Date
 *   is exact and needs no timer. Code that kept a reference to the native Date before the shift keeps
 *   real time (as with fake-timers).
 */

/** Creates the clock's table and functions and the database's search_path; `database` is its name (a plain identifier). */
export async function installSqlClock(client: Client, database: string): Promise<void> {
  if (!/^[a-z_][a-z0-9_]*$/.test(database)) throw new Error(`not a plain database name: ${database}`);
  await client.query(`create table public.sim_clock (offset_ms bigint not null)`);
  await client.query(`insert into public.sim_clock (offset_ms) values (0)`);
  await client.query(`create function public.now() returns timestamptz language sql stable as
    $$ select pg_catalog.now() + make_interval(secs => (select offset_ms from public.sim_clock limit 1) / 1000.0) $$`);
  await client.query(`create function public.clock_timestamp() returns timestamptz language sql volatile as
    $$ select pg_catalog.clock_timestamp() + make_interval(secs => (select offset_ms from public.sim_clock limit 1) / 1000.0) $$`);
  await setClockSearchPath(client, database);
}

/**
 * Puts `public` (the clock's functions) before `pg_catalog` in the database's search_path. A setting of
 * the database, not of its contents: `CREATE DATABASE … TEMPLATE` does not copy it, so a copy of a
 * clock-installed template (sim-database.ts `createSimTemplate`) gets it again with this.
 */
export async function setClockSearchPath(client: Client, database: string): Promise<void> {
  if (!/^[a-z_][a-z0-9_]*$/.test(database)) throw new Error(`not a plain database name: ${database}`);
  await client.query(`alter database ${database} set search_path = public, pg_catalog`);
}

/** Sets the database's offset (every session sees it at its next statement). */
export async function setSqlOffset(execute: (sql: string, params: unknown[]) => Promise<unknown>, offsetMs: number): Promise<void> {
  await execute(`update public.sim_clock set offset_ms = ?`, [Math.round(offsetMs)]);
}

const NativeDate = globalThis.Date;

/** The process's Date, shifted by an offset it reads at each call; `restore` puts the native Date back. */
export interface ProcessClock {
  setOffset(offsetMs: number): void;
  restore(): void;
}

export function shiftProcessDate(): ProcessClock {
  if (globalThis.Date !== NativeDate) throw new Error('the process Date is already replaced (another simulation engine, or fake timers, in this process)');
  let offset = 0;
  // A function, not a class: `Date()` without `new` (a string of now) must work too. It shares the
  // native prototype, so `instanceof` holds both ways and every method is the native one.
  function SimDate(this: unknown, ...args: unknown[]): unknown {
    if (!new.target) return new NativeDate(NativeDate.now() + offset).toString();
    return Reflect.construct(NativeDate, args.length === 0 ? [NativeDate.now() + offset] : args, new.target);
  }
  SimDate.prototype = NativeDate.prototype;
  Object.setPrototypeOf(SimDate, NativeDate); // Date.UTC, Date.parse
  SimDate.now = (): number => NativeDate.now() + offset;
  globalThis.Date = SimDate as unknown as DateConstructor;
  return {
    setOffset(offsetMs) {
      offset = Math.round(offsetMs);
    },
    restore() {
      // Only its own: a later engine's Date stays.
      if (globalThis.Date === (SimDate as unknown)) globalThis.Date = NativeDate;
    },
  };
}

/** Real time, whatever the process's Date says. */
export const realNow = (): number => NativeDate.now();
