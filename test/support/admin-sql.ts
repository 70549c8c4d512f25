import { Client } from 'pg';

/** One statement on TEST_DATABASE_URL's server as its admin user, on a connection of its own (CREATE/DROP DATABASE). */
export async function adminSql(sql: string): Promise<void> {
  const client = new Client({ connectionString: process.env.TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
