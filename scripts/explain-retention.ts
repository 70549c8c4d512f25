/**
 * The retention job's batch statements on a seeded table, for docs/operations.md ("Retention", the
 * plans): an embedded PostgreSQL in a scratch directory, migrated, with one merchant's DELIVERIES
 * webhook deliveries (three quarters past the 90-day window, all ended, two attempts each) and as
 * many events; then EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) of one delivery batch of 1000 (in a transaction rolled
 * back, so each run sees the same table), and a whole pass timed.
 *
 *   npx tsx scripts/explain-retention.ts [--deliveries 300000] [--port 54399]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startEmbeddedPostgres } from '../src/persistence/embedded-postgres';
import { migrate, openOrm, WORKER_DB_TIMEOUTS } from '../src/persistence/orm';
import { runRetentionPass } from '../src/runtime/retention-pass';
import { retentionSettings } from '../src/runtime/retention-settings';

const { values } = parseArgs({ options: { deliveries: { type: 'string', default: '300000' }, port: { type: 'string', default: '54399' } } });
const N = Number(values.deliveries);

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'explain-retention-'));
  fs.chmodSync(dir, 0o711); // the embedded server may run as another user (started by root: postgres)
  const pg = await startEmbeddedPostgres(dir, Number(values.port));
  // Seeding: no statement limit. The batches: the worker's pool settings (statement_timeout 8 s).
  const orm = await openOrm(pg.url, { poolMax: 2, timeouts: { lockTimeoutMs: 5_000, statementTimeoutMs: 0, acquireTimeoutMs: 5_000 } });
  const worker = await openOrm(pg.url, { poolMax: 2, timeouts: WORKER_DB_TIMEOUTS });
  try {
    await migrate(orm);
    const sql = (q: string, p: unknown[] = []) => orm.em.getConnection().execute<Array<Record<string, unknown>>>(q, p);
    await sql(`insert into merchants (id, name) values ('mer_explain', 'Explain')`);
    await sql(`insert into webhook_endpoints (id, merchant_id, environment, url, subscribed_events, timeout_seconds, status, secret_box, created_at, updated_at)
               values ('we_explain', 'mer_explain', 'sandbox', 'https://example.com/hook', '{}', 10, 'active', 'x', now(), now())`);
    const started = Date.now();
    await sql(`insert into events (id, merchant_id, environment, sequence, type, resource_type, resource_id, dedupe_key, body, created_at, dispatched_at)
               select 'evt_' || g, 'mer_explain', 'sandbox', g, 'transaction.created', 'transaction', 'txn_' || g, 'explain-' || g, '{}',
                      now() - make_interval(days => 120) + make_interval(secs => g * (120.0 * 86400 / ?)), now()
               from generate_series(1, ?) g`, [N, N]);
    await sql(`insert into webhook_deliveries (id, endpoint_id, event_id, merchant_id, environment, event_type, status, attempt_count, created_at, updated_at, completed_at)
               select 'dlv_' || g, 'we_explain', 'evt_' || g, 'mer_explain', 'sandbox', 'transaction.succeeded', 'succeeded', 2,
                      now() - make_interval(days => 120) + make_interval(secs => g * (120.0 * 86400 / ?)), now(), now()
               from generate_series(1, ?) g`, [N, N]);
    await sql(`insert into webhook_attempts (delivery_id, attempt, attempted_at, outcome, duration_ms) select 'dlv_' || g, a, now(), 'succeeded', 5 from generate_series(1, ?) g, generate_series(1, 2) a`, [N]);
    await sql(`analyze webhook_deliveries; analyze webhook_attempts; analyze events`);
    console.log(`seeded ${N} deliveries (${2 * N} attempts, ${N} events) created over 120 days, in ${Date.now() - started} ms`);

    const conn = worker.em.getConnection();
    const tx = await conn.begin();
    const plan = await conn.execute<Array<Record<string, string>>>(
      `explain (analyze, buffers, costs off)
       with doomed as (
         select d.id from webhook_deliveries d
         where d.created_at < now() - make_interval(secs => 7776000) and d.status <> 'pending'
           and not exists (select 1 from webhook_deliveries r where r.replay_of = d.id)
         order by d.created_at limit 1000 for update of d skip locked),
       attempts as (delete from webhook_attempts a using doomed where a.delivery_id = doomed.id returning 1),
       deliveries as (delete from webhook_deliveries d using doomed where d.id = doomed.id returning 1)
       select (select count(*) from deliveries)::int as deliveries, (select count(*) from attempts)::int as attempts`,
      [],
      'all',
      tx,
    );
    await conn.rollback(tx);
    console.log('\nEXPLAIN (ANALYZE, BUFFERS) of one delivery batch of 1000:\n');
    for (const row of plan) console.log(row['QUERY PLAN']);

    const plan1000 = { ...retentionSettings({}).plan, batch: 1000, pauseMs: 0 };
    const passStarted = Date.now();
    const pass = await runRetentionPass(worker, plan1000, { kinds: ['webhook_deliveries'] });
    const ms = Date.now() - passStarted;
    console.log(`\na whole pass (no pause): ${pass.deleted.webhook_deliveries} deliveries and ${pass.deleted.webhook_attempts} attempts in ${pass.batches} batches, ${ms} ms (${(ms / pass.batches).toFixed(1)} ms a batch)`);
    const [left] = await sql(`select count(*)::int as n from webhook_deliveries`);
    console.log(`deliveries left (inside the window): ${String(left.n)}`);
  } finally {
    await worker.close();
    await orm.close();
    await pg.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
