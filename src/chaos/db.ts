import { Pool } from 'pg';

/** Read-only queries of the service's database for the checks (the topology's DATABASE_URL). */
export class ChaosDb {
  private readonly pool: Pool;

  constructor(url: string) {
    this.pool = new Pool({ connectionString: url, max: 2, connectionTimeoutMillis: 10_000, statement_timeout: 60_000 });
    this.pool.on('error', () => {});
  }

  async rows<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    return (await this.pool.query(sql, params)).rows as T[];
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}
