/**
 * The relays' claims read an index, not the table (issue 34, "A backlog after an outage"), on a
 * database of its own seeded like the outage backlog (scripts/backlog/seed.ts) at a size where a scan
 * shows: 20,000 undispatched events over 200 merchants (400 merchant-environment scopes) and 20,000
 * unstarted payments of each kind, half of the charges, payouts, refunds and disputes ended without
 * their start confirmed (the old partial indexes held those; the relays walked past them every pass).
 * For each claim, EXPLAIN (ANALYZE, FORMAT JSON) (the claims that write run in a transaction rolled
 * back): its index is used, no Seq Scan reads the big table, and the rows read from it stay far below
 * its size. The fair claim is also a round robin: one event from each of the next 100 scopes, wrapping round.
 */
import { migrate, openOrm, type Orm } from '../../src/persistence/orm';
import { randomBase62 } from '../../src/support/new-id';
import { TEXT_ARRAY } from '../../src/persistence/sql-values';
import { FAIR_CLAIM_SQL, claimUndispatchedEvents, fairClaimParams } from '../../src/persistence/webhooks/outbox-claim';
import { CLAIM_OUTBOX_SQL } from '../../src/persistence/notifications/notification-fanout-store';
import { UNSTARTED_CHARGES_SQL } from '../../src/persistence/charges/charge-workflow-start-store';
import { UNSTARTED_PAYOUTS_SQL } from '../../src/persistence/payouts/payout-workflow-start-store';
import { UNSTARTED_REFUNDS_SQL } from '../../src/persistence/refunds/refund-workflow-start-store';
import { UNSTARTED_DISPUTES_SQL } from '../../src/persistence/disputes/dispute-workflow-start-store';
import { seedBacklog } from '../../scripts/backlog/seed';
import { planScans, type PlanNode } from '../support/plan-scans';
import { adminSql } from '../support/admin-sql';
import { bulkStatusAroundGate } from '../support/status-gate';

const MERCHANTS = 200;
const EVENTS = 20_000;
const PAYMENTS = 20_000;
const BATCH = 100;

let orm: Orm;

const admin = adminSql;

const databases: string[] = [];

/** A migrated database of its own (dropped after the file). */
async function ownDatabase(prefix: string): Promise<Orm> {
  const name = `${prefix}_${randomBase62(8).toLowerCase()}`;
  await admin(`create database ${name}`);
  databases.push(name);
  const url = new URL(process.env.TEST_DATABASE_URL!);
  url.pathname = `/${name}`;
  const own = await openOrm(url.toString(), 2);
  await migrate(own);
  return own;
}

beforeAll(async () => {
  orm = await ownDatabase('relay_claims');
  await seedBacklog(orm, { merchants: MERCHANTS, events: EVENTS, charges: PAYMENTS, payouts: PAYMENTS, refunds: PAYMENTS, disputes: PAYMENTS });
  // Half of each kind, the oldest, ended without its start confirmed: out of the relays' reach.
  const conn = orm.em.getConnection();
  // Seeded around the status gate (test/support/status-gate.ts): a bulk set-up of rows no test moves.
  await bulkStatusAroundGate(
    orm,
    'charge',
    `update charges set status = 'succeeded' where workflow_started_at is null and created_at < (select min(created_at) + (max(created_at) - min(created_at)) / 2 from charges where workflow_started_at is null)`,
  );
  await bulkStatusAroundGate(orm, 'payout', `update payouts set status = 'succeeded' where created_at < (select min(created_at) + (max(created_at) - min(created_at)) / 2 from payouts)`);
  await bulkStatusAroundGate(orm, 'refund', `update refunds set status = 'succeeded' where created_at < (select min(created_at) + (max(created_at) - min(created_at)) / 2 from refunds)`);
  await conn.execute(`update disputes set status = 'won' where created_at < (select min(created_at) + (max(created_at) - min(created_at)) / 2 from disputes)`);
  await conn.execute(`analyze charges, payouts, refunds, disputes`);
}, 180_000);

afterAll(async () => {
  await orm?.close();
  for (const name of databases) await admin(`drop database if exists ${name}`);
});

/** EXPLAIN (ANALYZE, FORMAT JSON) of `sql`, in a transaction that is rolled back (the claims write). */
async function explain(sql: string, params: unknown[]): Promise<PlanNode> {
  let plan: PlanNode | undefined;
  const rollback = new Error('rollback');
  await orm.em
    .fork()
    .transactional(async (em) => {
      const rows = await em.execute<Array<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>>(`explain (analyze, format json) ${sql}`, params);
      plan = rows[0]['QUERY PLAN'][0].Plan;
      throw rollback;
    })
    .catch((error: unknown) => {
      if (error !== rollback) throw error;
    });
  return plan!;
}

/**
 * The plan reads `table` through `index` and never whole (no Seq Scan; a bitmap scan of a few primary
 * keys is fine), and reads at most `maxRows` of its rows (each scan's rows and those its filter
 * removed, times its loops).
 */
function expectIndexOnly(plan: PlanNode, table: string, index: string | string[], maxRows: number): void {
  const scans = planScans(plan, table);
  expect(scans.map((s) => s.nodeType)).not.toContain('Seq Scan');
  const indexes = Array.isArray(index) ? index : [index];
  expect(scans.some((s) => s.index !== undefined && indexes.includes(s.index))).toBe(true);
  const read = scans.reduce((sum, s) => sum + s.rowsRead, 0);
  expect(read).toBeLessThanOrEqual(maxRows);
}

test('the webhook outbox relay\'s fair claim walks events_undispatched_scope from its cursor: a batch of scopes, not every undispatched event', async () => {
  // From the start of the round robin and from the middle of it (the walk then wraps round).
  for (const cursor of [null, { merchantId: 'mer_bl', environment: 'sandbox' }, { merchantId: 'mer_c', environment: 'live' }]) {
    const plan = await explain(FAIR_CLAIM_SQL, fairClaimParams(15, ['sandbox', 'live'], BATCH, cursor));
    // At most 2 × 100 scope descents and the batch's own events: under 1,000 of the 20,000 (the old claim numbered them all).
    expectIndexOnly(plan, 'events', 'events_undispatched_scope', 1_000);
  }
});

test('the fair claim is a round robin over merchants and environments: one event from each of the next 100, oldest first, wrapping round', async () => {
  const conn = orm.em.getConnection();
  // Each scope's oldest event, scopes in key order (the database's collation, like the index).
  const heads = await conn.execute<{ id: string }[]>(
    `select id from (select distinct on (merchant_id, environment) merchant_id, environment, id from events where dispatched_at is null
                     order by merchant_id, environment, created_at, id) s order by merchant_id, environment`,
  );
  expect(heads).toHaveLength(2 * MERCHANTS);
  const claims: string[][] = [];
  try {
    // 400 scopes: four claims go round once; the fifth starts again at the first scopes (their second events).
    for (let i = 0; i < 5; i++) claims.push((await claimUndispatchedEvents(orm, 15, ['sandbox', 'live'], BATCH)).map((e) => e.id));
    for (let i = 0; i < 4; i++) expect(claims[i].sort()).toEqual(heads.slice(i * BATCH, (i + 1) * BATCH).map((h) => h.id).sort());
    const scopesOf = async (ids: string[]) =>
      (await conn.execute<{ s: string }[]>(`select merchant_id || '|' || environment as s from events where id = any(${TEXT_ARRAY}) order by 1`, [JSON.stringify(ids)])).map((r) => r.s);
    expect(claims[4]).toHaveLength(BATCH);
    expect(await scopesOf(claims[4])).toEqual(await scopesOf(claims[0]));
    expect(claims[4].filter((id) => claims[0].includes(id))).toEqual([]);
  } finally {
    await conn.execute(`update events set dispatch_lease_until = null where dispatch_lease_until is not null`);
  }
});

test('with fewer scopes than the batch, the claim goes on by turns and the turn that does not go round starts, next time, where it stopped', async () => {
  // 20 merchants: 40 scopes (150 sandbox and 50 live events each merchant); a claim of 100 is two turns and half a third.
  const small = await ownDatabase('relay_turns');
  try {
    await seedBacklog(small, { merchants: 20, events: 4_000 });
    const conn = small.em.getConnection();
    const served = new Map<string, number>();
    for (let i = 0; i < 10; i++) {
      const claimed = await claimUndispatchedEvents(small, 15, ['sandbox', 'live'], BATCH);
      expect(claimed).toHaveLength(BATCH);
      for (const e of claimed) served.set(`${e.merchant_id}|${e.environment}`, (served.get(`${e.merchant_id}|${e.environment}`) ?? 0) + 1);
      await conn.execute(`update events set dispatched_at = now(), dispatch_lease_until = null where id = any(${TEXT_ARRAY})`, [JSON.stringify(claimed.map((e) => e.id))]);
    }
    // 1,000 events over 40 scopes: 25 each (the half turn alternates between the two halves).
    expect(served.size).toBe(40);
    expect(Math.min(...served.values())).toBe(25);
    expect(Math.max(...served.values())).toBe(25);
    // Oldest first within each scope: what is left of a scope is younger than what it gave.
    const [{ bad }] = await conn.execute<{ bad: string }[]>(
      `select count(*) as bad from events d join events u on u.merchant_id = d.merchant_id and u.environment = d.environment
       where d.dispatched_at is not null and u.dispatched_at is null and u.created_at < d.created_at`,
    );
    expect(Number(bad)).toBe(0);
  } finally {
    await small.close();
  }
}, 120_000);

test('the notification relay\'s claim reads notification_outbox_claim in order and stops at its batch', async () => {
  const plan = await explain(CLAIM_OUTBOX_SQL, [15, BATCH]);
  expectIndexOnly(plan, 'notification_outbox', 'notification_outbox_claim', 2 * BATCH);
  expect(planScans(plan, 'events').map((s) => s.nodeType)).not.toContain('Seq Scan');
});

test.each([
  ['charges', UNSTARTED_CHARGES_SQL],
  ['payouts', UNSTARTED_PAYOUTS_SQL],
  ['refunds', UNSTARTED_REFUNDS_SQL],
  ['disputes', UNSTARTED_DISPUTES_SQL],
])('the %s start relay reads its open unstarted index and passes over no ended payment', async (table, sql) => {
  const plan = await explain(sql, [5, BATCH]);
  // The batch itself: the 10,000 older payments that ended unconfirmed are not in the index at all.
  // Here every open payment is also unstarted, so the open-payments index of `payments stuck`
  // (`<table>_open_created`, Migration20261213000001) holds the same rows and the planner may take
  // either; in production the unstarted index is the small one. Either way: no ended payment read.
  expectIndexOnly(plan, table, [`${table}_workflow_unstarted_open`, `${table}_open_created`], BATCH);
});
