import { randomBase62 } from '../../src/support/new-id';
import { isDeterministicDbError, sqlStateOf } from '../../src/persistence/db-errors';
import { migrate, openOrm } from '../../src/persistence/orm';
import { startHarness, type Harness } from '../support/harness';
import { balanceMismatches, expectBalancesMatchPostings } from '../support/ledger-rows';
import { accept, draftCharge, succeed } from '../support/stored-charges';

/**
 * Balance rows (`account_balances`): moved in the same transaction as their postings, read by
 * GET /v1/balances, exact past 2^53 in the JSON, bigint overflow refused, backfilled by their
 * migration. Charges are written through the charge store directly (no workflow); the API runs with no
 * worker.
 */

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ worker: false });
});
afterAll(async () => {
  await h?.close();
});

async function sql<T>(query: string, params: unknown[] = []): Promise<T[]> {
  return h.orm.em.getConnection().execute<T[]>(query, params);
}

const balanceRows = (merchantId: string) =>
  sql<{ currency: string; account: string; amount: string }>(
    `select currency, account, amount::text as amount from account_balances where merchant_id = ? order by currency, account`,
    [merchantId],
  );

test('every state change moves its accounts\' balance rows with its postings, and GET /v1/balances reads them', async () => {
  const merchant = await h.merchant();
  const ghs = await accept(h.orm, draftCharge(merchant.id, 15_000));
  const usd = await accept(h.orm, draftCharge(merchant.id, 10_000, { currency: 'USD' }));
  await expectBalancesMatchPostings(h.orm, merchant.id);
  expect(await balanceRows(merchant.id)).toEqual([
    { currency: 'GHS', account: 'customer_clearing', amount: String(-ghs.merchantAmount) },
    { currency: 'GHS', account: 'merchant_pending', amount: String(ghs.merchantAmount) },
    { currency: 'USD', account: 'customer_clearing', amount: String(-usd.merchantAmount) },
    { currency: 'USD', account: 'merchant_pending', amount: String(usd.merchantAmount) },
  ]);

  await succeed(h.orm, ghs.id);
  await expectBalancesMatchPostings(h.orm, merchant.id);
  const response = await h.request('sandbox', 'GET', '/v1/balances', { key: merchant.testKey });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  expect(response.json).toEqual({
    object: 'balance',
    livemode: false,
    available: [
      { currency: 'GHS', amount: ghs.merchantAmount },
      { currency: 'USD', amount: 0 },
    ],
    pending: [
      { currency: 'GHS', amount: 0 },
      { currency: 'USD', amount: usd.merchantAmount },
    ],
    reserved: [
      { currency: 'GHS', amount: 0 },
      { currency: 'USD', amount: 0 },
    ],
  });
  // A repeated transition writes nothing, balance rows included.
  await succeed(h.orm, ghs.id);
  await expectBalancesMatchPostings(h.orm, merchant.id);
  expect((await h.request('sandbox', 'GET', '/v1/balances', { key: merchant.testKey })).text).toBe(response.text);
});

test('balances past 2^53 are exact in the database and in the JSON text', async () => {
  const merchant = await h.merchant();
  // Three charges near the largest amount the API accepts: every sum below is past 2^53.
  const charges = [];
  for (const less of [0, 1, 3]) charges.push(await accept(h.orm, draftCharge(merchant.id, Number.MAX_SAFE_INTEGER - less)));
  const pending = charges.reduce((sum, c) => sum + BigInt(c.merchantAmount), 0n).toString();
  // Through Number() the figure would come out different, so this test tells the two apart.
  expect(String(Number(pending))).not.toBe(pending);

  const before = await h.request('sandbox', 'GET', '/v1/balances', { key: merchant.testKey });
  expect(before.text).toBe(`{"object":"balance","livemode":false,"available":[{"currency":"GHS","amount":0}],"pending":[{"currency":"GHS","amount":${pending}}],"reserved":[{"currency":"GHS","amount":0}]}`);

  for (const c of charges) await succeed(h.orm, c.id);
  const after = await h.request('sandbox', 'GET', '/v1/balances', { key: merchant.testKey });
  expect(after.text).toBe(`{"object":"balance","livemode":false,"available":[{"currency":"GHS","amount":${pending}}],"pending":[{"currency":"GHS","amount":0}],"reserved":[{"currency":"GHS","amount":0}]}`);
  await expectBalancesMatchPostings(h.orm, merchant.id);
  const fees = charges.reduce((sum, c) => sum + BigInt(c.fee.platform), 0n).toString();
  expect((await balanceRows(merchant.id)).find((r) => r.account === 'platform_fee')?.amount).toBe(fees);
});

test('a balance past 2^63 - 1 is refused with a class-22 error (never retried) and the whole state change rolls back', async () => {
  const merchant = await h.merchant();
  const first = await accept(h.orm, draftCharge(merchant.id, 10_000));
  // Bring the pending balance within reach of the bigint limit (this breaks the balance = postings
  // rule for this merchant on purpose; no other test reads it).
  await sql(`update account_balances set amount = 9223372036854775807 - 100 where merchant_id = ? and account = 'merchant_pending'`, [merchant.id]);

  const draft = draftCharge(merchant.id, 10_000);
  const error = await accept(h.orm, draft).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(sqlStateOf(error)).toBe('22003');
  expect(isDeterministicDbError(error)).toBe(true);
  // Nothing of the refused acceptance was kept: no charge, no ledger entry, no event, no sequence.
  expect(await sql(`select id from charges where merchant_id = ? order by id`, [merchant.id])).toEqual([{ id: first.id }]);
  expect(await sql(`select count(*)::int as n from ledger_entries where merchant_id = ?`, [merchant.id])).toEqual([{ n: 2 }]);
  expect(await sql(`select last_sequence::int as n from event_counters where merchant_id = ?`, [merchant.id])).toEqual([{ n: 1 }]);
  expect((await balanceRows(merchant.id)).find((r) => r.account === 'customer_clearing')?.amount).toBe(String(-first.merchantAmount));
  // Put the row back to the sum of its postings: `ledger check` runs over the whole database when the file ends.
  await sql(
    `update account_balances b set amount = (select sum(amount) from ledger_entries e where e.merchant_id = b.merchant_id and e.environment = b.environment and e.currency = b.currency and e.account = b.account)
     where merchant_id = ? and account = 'merchant_pending'`,
    [merchant.id],
  );
  await expectBalancesMatchPostings(h.orm, merchant.id);
});

test('concurrent state changes of one merchant in two currencies: no deadlock, gapless sequences, rows equal to postings', async () => {
  const merchant = await h.merchant();
  const drafts = Array.from({ length: 16 }, (_, i) => draftCharge(merchant.id, 1_000 + i * 37, { currency: i % 2 ? 'USD' : 'GHS' }));
  const accepted = await Promise.all(drafts.map((d) => accept(h.orm, d)));
  await Promise.all(accepted.map((c) => succeed(h.orm, c.id)));

  const sequences = await sql<{ sequence: number }>(`select sequence::int as sequence from events where merchant_id = ? order by sequence`, [merchant.id]);
  expect(sequences.map((s) => s.sequence)).toEqual(Array.from({ length: 32 }, (_, i) => i + 1));
  await expectBalancesMatchPostings(h.orm, merchant.id);
  const body = (await h.request('sandbox', 'GET', '/v1/balances', { key: merchant.testKey })).json;
  const sum = (currency: string) => accepted.filter((c) => c.currency === currency).reduce((s, c) => s + c.merchantAmount, 0);
  expect(body.available).toEqual([
    { currency: 'GHS', amount: sum('GHS') },
    { currency: 'USD', amount: sum('USD') },
  ]);
  expect(body.pending).toEqual([
    { currency: 'GHS', amount: 0 },
    { currency: 'USD', amount: 0 },
  ]);
});

test('the migration backfills one balance row per account from the ledger entries already there', async () => {
  // A database of its own, migrated up to the schema before balance rows, then given ledger entries.
  const name = `backfill_${randomBase62(8).toLowerCase()}`;
  await sql(`create database ${name}`);
  const url = new URL(process.env.TEST_DATABASE_URL!);
  url.pathname = `/${name}`;
  const orm = await openOrm(url.toString(), 2);
  try {
    await orm.migrator.up({ to: 'Migration20261122000003_webhooks' });
    const big = Number.MAX_SAFE_INTEGER;
    const entries: Array<[string, string, string, string, string, number]> = [
      // transfer, account, merchant, environment, currency, amount
      ['t1', 'customer_clearing', 'mer_a', 'sandbox', 'GHS', -big],
      ['t1', 'merchant_pending', 'mer_a', 'sandbox', 'GHS', big],
      ['t2', 'customer_clearing', 'mer_a', 'sandbox', 'GHS', -big],
      ['t2', 'merchant_pending', 'mer_a', 'sandbox', 'GHS', big],
      ['t3', 'customer_clearing', 'mer_a', 'sandbox', 'GHS', -big],
      ['t3', 'merchant_pending', 'mer_a', 'sandbox', 'GHS', big],
      ['t4', 'customer_clearing', 'mer_a', 'live', 'GHS', -500],
      ['t4', 'merchant_pending', 'mer_a', 'live', 'GHS', 500],
      ['t5', 'customer_clearing', 'mer_b', 'sandbox', 'USD', -700],
      ['t5', 'merchant_available', 'mer_b', 'sandbox', 'USD', 600],
      ['t5', 'platform_fee', 'mer_b', 'sandbox', 'USD', 100],
      ['t6', 'customer_clearing', 'mer_b', 'sandbox', 'USD', 700],
      ['t6', 'merchant_available', 'mer_b', 'sandbox', 'USD', -600],
      ['t6', 'platform_fee', 'mer_b', 'sandbox', 'USD', -100],
    ];
    for (const [transfer, account, merchantId, environment, currency, amount] of entries) {
      await orm.em.getConnection().execute(
        `insert into ledger_entries (transfer_id, account, kind, merchant_id, environment, currency, amount, resource_id, created_at)
         values (?, ?, 'hold', ?, ?, ?, ?, 'txn_x', now())`,
        [transfer, account, merchantId, environment, currency, amount],
      );
    }
    await migrate(orm);

    const rows = await orm.em
      .getConnection()
      .execute(`select merchant_id, environment, currency, account, amount::text as amount from account_balances order by 1, 2, 3, 4`);
    expect(rows).toEqual([
      { merchant_id: 'mer_a', environment: 'live', currency: 'GHS', account: 'customer_clearing', amount: '-500' },
      { merchant_id: 'mer_a', environment: 'live', currency: 'GHS', account: 'merchant_pending', amount: '500' },
      { merchant_id: 'mer_a', environment: 'sandbox', currency: 'GHS', account: 'customer_clearing', amount: String(-3n * BigInt(big)) },
      { merchant_id: 'mer_a', environment: 'sandbox', currency: 'GHS', account: 'merchant_pending', amount: String(3n * BigInt(big)) },
      // Accounts whose entries net to zero still have their row.
      { merchant_id: 'mer_b', environment: 'sandbox', currency: 'USD', account: 'customer_clearing', amount: '0' },
      { merchant_id: 'mer_b', environment: 'sandbox', currency: 'USD', account: 'merchant_available', amount: '0' },
      { merchant_id: 'mer_b', environment: 'sandbox', currency: 'USD', account: 'platform_fee', amount: '0' },
    ]);
    expect(await balanceMismatches(orm)).toEqual([]);
  } finally {
    await orm.close();
    await sql(`drop database ${name}`);
  }
});
