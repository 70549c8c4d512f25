/**
 * Migration 20261203000001 (live limits per currency) on a database of its own, migrated up to the
 * migration before it and given what the old shape held: a merchant's currency-less limits become
 * that limit in every reference currency, and a day's usage that added two currencies into one
 * number is counted again per currency from the live charges created that day.
 */
import { Client } from 'pg';
import { migrate, openOrm } from '../../src/persistence/orm';
import { randomBase62 } from '../../src/support/new-id';

async function admin<T>(run: (c: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: process.env.TEST_DATABASE_URL });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

test('old limits apply to every currency; the day\'s usage is counted again per currency', async () => {
  const name = `live_limits_${randomBase62(8).toLowerCase()}`;
  await admin((c) => c.query(`create database ${name}`));
  const url = new URL(process.env.TEST_DATABASE_URL!);
  url.pathname = `/${name}`;
  const orm = await openOrm(url.toString(), 2);
  const sql = <T extends object[] = object[]>(text: string, params: unknown[] = []) => orm.em.getConnection().execute<T>(text, params);
  try {
    await orm.migrator.up({ to: 'Migration20261202000001_late_answers' });
    await sql(`insert into merchants (id, name, live_max_amount, live_daily_limit) values ('mer_lim', 'Limited', 500000, 100000), ('mer_free', 'Free', null, null)`);
    const charge = (id: string, environment: string, currency: string, amount: number) =>
      sql(
        `insert into charges (id, merchant_id, environment, status, reference, amount, currency, channel, fee_platform, fee_tax, fee_bearer, merchant_amount,
           customer_masked, metadata_json, created_at, expires_at, updated_at)
         values (?, 'mer_lim', ?, 'awaiting_action', ?, ?, ?, 'mobile_money', 0, 0, 'merchant', ?, '****0004', '{}', now(), now(), now())`,
        [id, environment, `ref-${id}`, amount, currency, amount],
      );
    await charge('txn_ghs', 'live', 'GHS', 60_000);
    await charge('txn_kes', 'live', 'KES', 50_000);
    await charge('txn_kes2', 'live', 'KES', 10_000);
    await charge('txn_sandbox', 'sandbox', 'GHS', 999);
    // What the old guarded upsert kept: GHS and KES minor units added into one number.
    await sql(`insert into live_daily_usage (merchant_id, day, kind, amount) values ('mer_lim', (now() at time zone 'utc')::date, 'charge', 120000)`);

    await migrate(orm);

    const currencies = (await sql<Array<{ code: string }>>(`select code from currencies order by code`)).map((c) => c.code);
    expect(currencies).toEqual(expect.arrayContaining(['GHS', 'KES', 'UGX']));
    const limits = await sql(`select merchant_id, currency, max_amount::text as max, daily_limit::text as daily from live_limits order by merchant_id, currency`);
    expect(limits).toEqual(currencies.map((currency) => ({ merchant_id: 'mer_lim', currency, max: '500000', daily: '100000' })));
    const usage = await sql(`select merchant_id, kind, currency, amount::text as amount from live_daily_usage order by currency`);
    expect(usage).toEqual([
      { merchant_id: 'mer_lim', kind: 'charge', currency: 'GHS', amount: '60000' },
      { merchant_id: 'mer_lim', kind: 'charge', currency: 'KES', amount: '60000' },
    ]);
  } finally {
    await orm.close();
    await admin((c) => c.query(`drop database if exists ${name}`));
  }
});
