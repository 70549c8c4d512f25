import { Client } from 'pg';

/** pg_stat_statements of one PostgreSQL server over one phase. */
export interface SqlReading {
  server: string;
  /** Why there is no reading (the extension is not loaded: the server was started without the flag). */
  unavailable?: string;
  /** Executions of every statement (nested ones too: track=all) and their execution time. */
  calls: number;
  execMs: number;
  /** The 15 statements with the most execution time. */
  top: Array<{ query: string; calls: number; execMs: number; rows: number }>;
}

/** The flags the bench's embedded PostgreSQL starts with in the cost mode (src/topology/postgres.ts has the topology's). */
export const STAT_STATEMENTS_FLAGS = ['-c', 'shared_preload_libraries=pg_stat_statements', '-c', 'pg_stat_statements.track=all'];

const TOP = 15;

export interface StatStatements {
  reset(): Promise<void>;
  read(): Promise<SqlReading[]>;
  close(): Promise<void>;
}

/**
 * One connection per server (its `postgres` database), `create extension pg_stat_statements` there;
 * the view covers every database of the server. The bench's own statements on these connections
 * (reset, read) are left out of the readings.
 */
export async function openStatStatements(urls: Record<string, string>): Promise<StatStatements> {
  const servers: Array<{ name: string; client?: Client; unavailable?: string }> = [];
  for (const [name, url] of Object.entries(urls)) {
    const client = new Client({ connectionString: url });
    try {
      await client.connect();
      await client.query('create extension if not exists pg_stat_statements');
      await client.query('select 1 from pg_stat_statements limit 1');
      servers.push({ name, client });
    } catch (error) {
      await client.end().catch(() => undefined);
      servers.push({ name, unavailable: error instanceof Error ? error.message.split('\n')[0] : String(error) });
    }
  }
  return {
    async reset() {
      for (const s of servers) await s.client?.query('select pg_stat_statements_reset()');
    },
    async read() {
      return Promise.all(
        servers.map(async (s): Promise<SqlReading> => {
          if (!s.client) return { server: s.name, unavailable: s.unavailable, calls: 0, execMs: 0, top: [] };
          const { rows } = await s.client.query<{ query: string; calls: string; ms: number; rows: string }>(
            `select query, calls::text, total_exec_time::float8 as ms, rows::text from pg_stat_statements
             where query not ilike '%pg_stat_statements%' order by total_exec_time desc`,
          );
          return {
            server: s.name,
            calls: rows.reduce((sum, r) => sum + Number(r.calls), 0),
            execMs: rows.reduce((sum, r) => sum + Number(r.ms), 0),
            top: rows.slice(0, TOP).map((r) => ({ query: r.query.replace(/\s+/g, ' ').trim(), calls: Number(r.calls), execMs: Number(r.ms), rows: Number(r.rows) })),
          };
        }),
      );
    },
    async close() {
      for (const s of servers) await s.client?.end().catch(() => undefined);
    },
  };
}
