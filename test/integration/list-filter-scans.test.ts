/**
 * The lists' filters read an index, not the merchant's whole history (issue 34, "A million rows per
 * merchant"; migrations/Migration20261213000001_list_filter_indexes.ts). On a database of its own,
 * one merchant seeded as `npm run seed:merchant` seeds one (scripts/merchant/seed.ts) at a size where a
 * scan shows: ~24,000 charges (a handful pending), 20,000 payouts (all by bank, none held), 5,000
 * refunds (none failed), 1,000 disputes (none open), ~200,000 ledger rows, 20,000 deliveries (one in
 * fifty failed, none pending). Each read goes through its
 * real store with the real filter parser, on a pool of one connection, and the rows it fetched from the
 * table are counted (test/support/table-reads.ts, as incremental-sweep.test.ts does): a filter that
 * matches few rows must read few, where before it read every row of the merchant (a Seq Scan, or the
 * scope index walked to its end).
 */
import { migrate, openOrm, type Orm } from '../../src/persistence/orm';
import { randomBase62 } from '../../src/support/new-id';
import { listCharges } from '../../src/persistence/charges/charge-list-store';
import { listPayouts } from '../../src/persistence/payouts/payout-list-store';
import { listRefunds } from '../../src/persistence/refunds/refund-store';
import { listDisputes } from '../../src/persistence/disputes/dispute-store';
import { listDeliveries } from '../../src/persistence/webhooks/webhook-delivery-store';
import { eventsAfter, eventsNewestFirst } from '../../src/persistence/events/event-store';
import { listBalanceTransactions } from '../../src/persistence/ledger/balance-transaction-store';
import { unfinishedRecords } from '../../src/persistence/unfinished-records';
import { overdueCharges } from '../../src/runtime/charge-reconciler';
import { CHARGE_LIST, DISPUTE_LIST, PAYOUT_LIST, REFUND_LIST } from '../../src/services/payment-lists';
import { seedMerchant } from '../../scripts/merchant/seed';
import { tableReads } from '../support/table-reads';
import { adminSql } from '../support/admin-sql';

/** Far below every table's size here (each ≥ 5,000 rows of the merchant, most ≥ 20,000). */
const FEW = 500;

let orm: Orm;
let one: Orm;
let merchantId: string;
let endpointId: string;
let reference: string;
let payoutReference: string;
const databases: string[] = [];

const admin = adminSql;

beforeAll(async () => {
  const name = `list_filters_${randomBase62(8).toLowerCase()}`;
  await admin(`create database ${name}`);
  databases.push(name);
  const url = new URL(process.env.TEST_DATABASE_URL!);
  url.pathname = `/${name}`;
  orm = await openOrm(url.toString(), 2);
  await migrate(orm);
  ({ merchantId, endpointId } = await seedMerchant(orm, { events: 100_000, postings: 200_000, deliveries: 20_000, payouts: 20_000, refunds: 5_000, disputes: 1_000, days: 60 }));
  const conn = orm.em.getConnection();
  [{ reference }] = await conn.execute<{ reference: string }[]>(`select your_reference as reference from charges where merchant_id = ? order by created_at limit 1 offset 10000`, [merchantId]);
  [{ payoutReference }] = await conn.execute<{ payoutReference: string }[]>(`select your_reference as "payoutReference" from payouts where merchant_id = ? order by created_at limit 1 offset 10000`, [merchantId]);
  one = await openOrm(url.toString(), 1);
}, 300_000);

afterAll(async () => {
  await one?.close();
  await orm?.close();
  for (const name of databases) await admin(`drop database if exists ${name}`);
});

const scope = () => ({ merchantId, environment: 'sandbox' as const });

async function sizeOf(table: string): Promise<number> {
  const [{ n }] = await orm.em.getConnection().execute<{ n: number }[]>(`select count(*)::int as n from ${table} where merchant_id = ?`, [merchantId]);
  return n;
}

it('the seeded tables are big enough for a scan to show', async () => {
  expect(await sizeOf('charges')).toBeGreaterThan(20_000);
  expect(await sizeOf('payouts')).toBe(20_000);
  expect(await sizeOf('refunds')).toBe(5_000);
  expect(await sizeOf('ledger_entries')).toBeGreaterThan(150_000);
});

it.each([
  ['status=pending', { status: 'pending' }],
  ['status=reversed (none)', { status: 'reversed' }],
  ['status=pending&channel=bank', { status: 'pending', channel: 'bank' }],
  ['reference', () => ({ reference })],
])('GET /v1/charges?%s reads few charges', async (_name, query) => {
  const filters = CHARGE_LIST.parse({ limit: '100', ...(typeof query === 'function' ? query() : query) });
  const { result, reads } = await tableReads(one, ['charges'], () => listCharges(one, scope(), CHARGE_LIST.pageSql(filters)));
  expect(reads.charges).toBeLessThan(FEW);
  if (filters.reference) expect(result.map((c) => c.yourReference)).toEqual([reference]);
});

it.each([
  ['status=held_for_review (none)', { status: 'held_for_review' }],
  ['status=failed', { status: 'failed' }],
  ['channel=mobile_money (none)', { channel: 'mobile_money' }],
  ['reference', () => ({ reference: payoutReference })],
])('GET /v1/payouts?%s reads few payouts', async (_name, query) => {
  const filters = PAYOUT_LIST.parse({ limit: '100', ...(typeof query === 'function' ? query() : query) });
  const { result, reads } = await tableReads(one, ['payouts'], () => listPayouts(one, scope(), PAYOUT_LIST.pageSql(filters)));
  expect(reads.payouts).toBeLessThan(FEW);
  if (filters.reference) expect(result).toHaveLength(1);
});

it('GET /v1/refunds?status=failed (none) reads few refunds', async () => {
  const filters = REFUND_LIST.parse({ limit: '100', status: 'failed' });
  const { result, reads } = await tableReads(one, ['refunds'], () => listRefunds(one, scope(), REFUND_LIST.pageSql(filters)));
  expect(result).toEqual([]);
  expect(reads.refunds).toBeLessThan(FEW);
});

it('GET /v1/disputes?status=needs_response (none) reads few disputes', async () => {
  // 1,000 disputes: the bound is a tenth of them.
  const filters = DISPUTE_LIST.parse({ limit: '100', status: 'needs_response' });
  const { result, reads } = await tableReads(one, ['disputes'], () => listDisputes(one, scope(), DISPUTE_LIST.pageSql(filters)));
  expect(result).toEqual([]);
  expect(reads.disputes).toBeLessThan(100);
});

it.each(['settlement', 'dispute', 'payout_reversal'] as const)('GET /v1/balance-transactions?type=%s (none) reads few postings', async (type) => {
  const { result, reads } = await tableReads(one, ['ledger_entries'], () => listBalanceTransactions(one, scope(), { limit: 100, cursor: null, type }));
  expect(result).toEqual([]);
  expect(reads.ledger_entries).toBeLessThan(FEW);
});

it.each(['failed', 'pending'] as const)('GET /v1/webhook-endpoints/:id/deliveries?status=%s reads few deliveries', async (status) => {
  const { result, reads } = await tableReads(one, ['webhook_deliveries'], () => listDeliveries(one, scope(), endpointId, status, 100, null));
  expect(result.every((d) => d.status === status)).toBe(true);
  expect(reads.webhook_deliveries).toBeLessThan(FEW);
});

it.each([
  ['after_sequence=0&type=payout.held_for_review (none)', 'after', 0, ['payout.held_for_review']],
  ['type=payout.held_for_review (none), newest first', 'newest', 0, ['payout.held_for_review']],
  ['after_sequence=0&type=dispute.won', 'after', 0, ['dispute.won']],
  ['type=dispute.won&type=dispute.lost, newest first', 'newest', 0, ['dispute.won', 'dispute.lost']],
  ['after_sequence=50000&type=refund.succeeded&type=payout.failed', 'after', 50_000, ['refund.succeeded', 'payout.failed']],
] as const)('GET /v1/events?%s reads at most a page of each type (index events_by_type), not the log', async (name, walk, after, types) => {
  // 100,000 events: a walk that skipped the other types by reading them would read tens of thousands.
  const { result, reads } = await tableReads(one, ['events'], () =>
    walk === 'after' ? eventsAfter(one, merchantId, 'sandbox', after, 100, types) : eventsNewestFirst(one, merchantId, 'sandbox', null, 100, types),
  );
  expect(reads.events).toBeLessThanOrEqual(types.length * 101);
  // The same page as the types' events read in full, in the walk's order.
  const truth = await orm.em.getConnection().execute<{ sequence: string }[]>(
    `select sequence from events where merchant_id = ? and environment = 'sandbox' and type = any(?::text[]) and sequence > ?
     order by sequence ${walk === 'after' ? 'asc' : 'desc'} limit 100`,
    [merchantId, `{${types.join(',')}}`, after],
  );
  const shown = result.bodies.map((b) => JSON.parse(b) as { sequence: number; type: string });
  expect(shown.map((e) => e.sequence)).toEqual(truth.map((r) => Number(r.sequence)));
  expect(shown.every((e) => (types as readonly string[]).includes(e.type))).toBe(true);
  if (!name.includes('(none)')) expect(shown.length).toBeGreaterThan(0);
});

it('GET /v1/webhook-endpoints/:id/deliveries?created_before=… reads the page before that instant, not the newer deliveries', async () => {
  const [{ at }] = await orm.em.getConnection().execute<{ at: string }[]>(
    `select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as at from webhook_deliveries where endpoint_id = ? order by created_at limit 1 offset 5000`,
    [endpointId],
  );
  const { result, reads } = await tableReads(one, ['webhook_deliveries'], () => listDeliveries(one, scope(), endpointId, null, 100, null, { createdBefore: at }));
  expect(result).toHaveLength(101);
  expect(result.every((d) => d.createdAt < at)).toBe(true);
  expect(reads.webhook_deliveries).toBeLessThan(FEW);
});

it('GET /v1/balance-transactions?type=refund reads the newest refund postings, not the history back to them', async () => {
  // The seeded refunds are on the older succeeded charges: the newest weeks have none, so a walk of
  // the history in date order reads thousands of other postings before the first refund's.
  const { result, reads } = await tableReads(one, ['ledger_entries'], () => listBalanceTransactions(one, scope(), { limit: 100, cursor: null, type: 'refund' }));
  expect(result).toHaveLength(101);
  expect(result.every((r) => r.kind.startsWith('refund_'))).toBe(true);
  const dates = result.map((r) => r.createdAt);
  expect([...dates].sort().reverse()).toEqual(dates);
  expect(reads.ledger_entries).toBeLessThan(FEW);
  // The same page as the type's postings read in full, newest first.
  const [{ newest }] = await orm.em.getConnection().execute<{ newest: string }[]>(
    `select max(created_at)::text as newest from ledger_entries where merchant_id = ? and kind like 'refund_%' and account in ('merchant_available', 'merchant_reserved')`,
    [merchantId],
  );
  expect(new Date(result[0].createdAt).getTime()).toBe(new Date(newest.replace(' ', 'T').replace(/\+00$/, 'Z')).getTime());
});

it('the overdue charges (reconciler, payments stuck) read the open charges only', async () => {
  const { result, reads } = await tableReads(one, ['charges'], async () => {
    const rows = [];
    for await (const row of overdueCharges(one, 60_000)) rows.push(row);
    return rows;
  });
  expect(result.length).toBeGreaterThan(0);
  expect(result.every((r) => r.status === 'pending')).toBe(true);
  expect(reads.charges).toBeLessThan(FEW);
});

it('payments stuck\'s unfinished records read the open live charges, payouts, refunds, disputes and settlement batches only', async () => {
  const { result, reads } = await tableReads(one, ['charges', 'payouts', 'refunds', 'disputes', 'settlements'], () => unfinishedRecords(one, 60_000));
  expect(result).toEqual([]);
  expect(reads.charges + reads.payouts + reads.refunds + reads.disputes + reads.settlements).toBeLessThan(FEW);
});
