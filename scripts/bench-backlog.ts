/**
 * `npm run bench:backlog -- [--claims 300] [--drain-seconds 60] [--data-dir DIR]`
 *
 * Measures the relays' claims on the backlog `npm run seed:backlog` wrote (DATABASE_URL, or the
 * embedded PostgreSQL in --data-dir), issue 34 "A backlog after an outage", and prints the figures as
 * Markdown (docs/benchmarks.md):
 *  1. EXPLAIN (ANALYZE, BUFFERS) of every claim (the writing ones rolled back);
 *  2. the running webhook outbox relay against a Temporal dev server for --drain-seconds: events
 *     dispatched per second, on the backlog and on a small one (20,000 events over 200 merchants in a
 *     database of its own on the same server: the normal rate), and how evenly the merchants were served;
 *  3. --claims claims of each relay, each followed by its successful pass's write: claim p50/p99 and the
 *     fair claim's fairness. These consume the backlog (events dispatched, payments marked started).
 */
import { Command } from 'commander';
import { Client } from 'pg';
import { migrate, openOrm } from '../src/persistence/orm';
import { DEFAULT_BACKLOG_DATA_DIR, openBacklogDatabase } from './backlog/database';
import { explainClaims, measureNotificationClaims, measureStartRelays, measureWebhookClaims, type ClaimRun } from './backlog/measure';
import { drainWithRelay, type DrainRun } from './backlog/relay-drain';
import { seedBacklog } from './backlog/seed';

const count = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`not a count: ${value}`);
  return n;
};

const ms = (n: number) => n.toFixed(1);

async function normalRate(url: string, seconds: number, log: (line: string) => void): Promise<DrainRun> {
  const name = `payments_backlog_normal_${Date.now()}`;
  const admin = new Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
    const small = new URL(url);
    small.pathname = `/${name}`;
    const orm = await openOrm(small.toString(), 2);
    try {
      await migrate(orm);
      await seedBacklog(orm, { merchants: 200, events: 20_000 });
    } finally {
      await orm.close();
    }
    return await drainWithRelay(small.toString(), seconds, log);
  } finally {
    await admin.query(`drop database if exists ${name}`).catch(() => undefined);
    await admin.end();
  }
}

async function main(): Promise<void> {
  const options = new Command('bench:backlog')
    .option('--claims <n>', 'claims of each relay to time', count, 300)
    .option('--drain-seconds <n>', 'how long the running relay drains (0: skip)', count, 60)
    .option('--data-dir <dir>', 'the embedded PostgreSQL\'s data (without DATABASE_URL)', DEFAULT_BACKLOG_DATA_DIR)
    .parse()
    .opts<{ claims: number; drainSeconds: number; dataDir: string }>();
  const log = (line: string) => console.error(`bench:backlog: ${line}`);
  const db = await openBacklogDatabase(options.dataDir, log);
  try {
    const conn = db.orm.em.getConnection();
    const sizes = (await conn.execute<Record<string, string>[]>(
      `select (select count(*) from events where dispatched_at is null) as events,
              (select count(distinct (merchant_id, environment)) from events where dispatched_at is null) as scopes,
              (select count(*) from notification_outbox) as notifications,
              (select count(*) from charges where workflow_started_at is null and status in ('pending', 'awaiting_action')) as charges,
              (select count(*) from payouts where workflow_started_at is null and status in ('pending', 'held_for_review')) as payouts,
              (select count(*) from refunds where workflow_started_at is null and status = 'pending') as refunds,
              (select count(*) from disputes where workflow_started_at is null and status in ('needs_response', 'under_review')) as disputes`,
    ))[0];
    // Printed as each part is done: a later failure keeps what was measured.
    const out = { push: (...lines: string[]) => console.log(lines.join('\n')) };
    out.push(`Backlog at the start: ${sizes.events} undispatched events over ${sizes.scopes} merchant-environment scopes, ${sizes.notifications} in the notification outbox, ` +
      `unstarted ${sizes.charges} charges, ${sizes.payouts} payouts, ${sizes.refunds} refunds, ${sizes.disputes} disputes.`, '');
    log('EXPLAIN (ANALYZE, BUFFERS) of each claim');
    for (const { name, plan } of await explainClaims(db.orm)) out.push(`#### ${name}`, '', '```', plan, '```', '');
    if (options.drainSeconds > 0) {
      const big = await drainWithRelay(db.url, options.drainSeconds, log);
      log('the normal rate: 20,000 events over 200 merchants');
      const normal = await normalRate(db.url, options.drainSeconds, log);
      out.push('| running relay (startOutboxRelay, Temporal dev server) | seconds | events dispatched | events/s | per scope fewest–most |', '|---|---|---|---|---|');
      for (const [name, run] of [[`backlog (${sizes.events} events)`, big], ['normal (20,000 events, 200 merchants)', normal]] as const) {
        out.push(`| ${name} | ${run.seconds.toFixed(0)} | ${run.events} | ${run.eventsPerSecond.toFixed(0)} | ${run.perScopeMin}–${run.perScopeMax} |`);
      }
      out.push('');
    }
    log(`${options.claims} claims of each relay`);
    const webhook = await measureWebhookClaims(db.orm, options.claims, Number(sizes.scopes));
    const runs: ClaimRun[] = [webhook.run, await measureNotificationClaims(db.orm, options.claims), ...(await measureStartRelays(db.orm, options.claims))];
    out.push('| claim | claims | p50 ms | p99 ms | max ms | rows claimed | rows/s (claim + finish, no Temporal) |', '|---|---|---|---|---|---|---|');
    for (const r of runs) out.push(`| ${r.name} | ${r.claims.count} | ${ms(r.claims.p50)} | ${ms(r.claims.p99)} | ${ms(r.claims.max)} | ${r.rows} | ${r.rowsPerSecond.toFixed(0)} |`);
    const f = webhook.fairness;
    out.push('', `Fairness of the ${webhook.run.claims.count} fair claims: every full claim served at least ${f.minScopesPerClaim} different scopes, ` +
      `at most ${f.maxPerScopeInClaim} event(s) of one scope per claim; per scope over the run ${f.perScopeMin}–${f.perScopeMax} events (Jain's index ${f.jain.toFixed(4)}).`);
  } finally {
    await db.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exit(1);
});
