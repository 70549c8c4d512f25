import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { sealAccountNumber } from '../../../src/domain/settlement-account';
import { startEmbeddedPostgres } from '../../../src/persistence/embedded-postgres';
import { readBalances } from '../../../src/persistence/ledger/account-balances';
import { createMerchant } from '../../../src/persistence/merchants/merchant-store';
import { updateMerchantSettings } from '../../../src/persistence/merchants/merchant-settings-store';
import { ADMIN_DB_TIMEOUTS, migrate, openOrm } from '../../../src/persistence/orm';
import { sweepSettlement } from '../../../src/persistence/settlements/settlement-store';
import { readSweepMark, UNSWEPT, UNSWEPT_SINCE_MARK } from '../../../src/persistence/settlements/sweep-mark';
import type { Caller } from '../../../src/services/context';
import { freePort } from '../../../src/support/free-port';
import { newId } from '../../../src/support/new-id';
import { createSecretBox } from '../../../src/support/secret-box';
import { availableByDay } from '../../../src/web/portal/balances-chart';
import { availableByDayByWalk } from '../../../test/support/chart-by-walk';
import { seedFundings } from '../../../test/support/seed-postings';

/**
 * Issue 34: the plans of the settlement sweep and of the portal's 30-day chart before and after
 * they became incremental, on one merchant with POSTINGS (default 1,000,000) merchant_available
 * postings dated over the last 40 days, all swept, then a few new ones today. An embedded
 * PostgreSQL of its own in a temporary folder (removed at the end). The plans are PostgreSQL's own:
 * EXPLAIN (ANALYZE, BUFFERS) for the sweep's statements, auto_explain (log_analyze, log_buffers) for
 * the chart's, which run inside the code paths themselves. Prints markdown for docs/benchmarks.md.
 *
 *   npx tsx scripts/bench/reads/incremental-plans.ts [POSTINGS]
 */

const DAY_MS = 86_400_000;
const count = Number(process.argv[2] ?? 1_000_000);

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'incremental-plans-'));
  if (process.getuid?.() === 0) fs.chmodSync(dataDir, 0o777);
  const logs: string[] = [];
  const pg = await startEmbeddedPostgres(dataDir, await freePort(), (line) => logs.push(String(line)), ['-c', 'shared_buffers=512MB', '-c', 'max_wal_size=4GB', '-c', 'synchronous_commit=off']);
  const orm = await openOrm(pg.url, { poolMax: 4, timeouts: { ...ADMIN_DB_TIMEOUTS, statementTimeoutMs: 0 } });
  const one = await openOrm(pg.url, { poolMax: 1, timeouts: { ...ADMIN_DB_TIMEOUTS, statementTimeoutMs: 0 } });
  const out: string[] = [];
  try {
    await migrate(orm);
    const box = createSecretBox(Buffer.alloc(32, 7));
    const merchant = await createMerchant(orm, 'incremental plans');
    await updateMerchantSettings(orm, merchant.id, { settlementAccount: { bankCode: 'GCB', account: sealAccountNumber(box, '0012345678901') } });
    const scope = { merchantId: merchant.id, environment: 'sandbox' as const, currency: 'GHS' };
    const today = Math.floor(Date.now() / DAY_MS) * DAY_MS;
    let t = Date.now();
    await seedFundings(orm, scope, count, new Date(today - 40 * DAY_MS), Math.floor((39 * DAY_MS + 23 * 3_600_000) / count));
    await orm.em.getConnection().execute(`vacuum analyze ledger_entries`);
    out.push(`Data set: one merchant, ${count.toLocaleString('en')} fundings (${(2 * count).toLocaleString('en')} ledger rows, ${count.toLocaleString('en')} on merchant_available) dated over the last 40 days; seeded in ${((Date.now() - t) / 1000).toFixed(0)} s.`);

    // The history swept once (the first sweep of the balance reads it all), then 3 postings today.
    t = Date.now();
    const first = await sweepSettlement(orm, { settlementId: newId('settlement'), ...scope, outcome: null, runId: null, at: new Date().toISOString() }, box);
    out.push(`First sweep (the whole history, no mark yet): ${Date.now() - t} ms, ${'kind' in first ? first.reason : `${first.entryCount} postings`}.`);
    await seedFundings(orm, scope, 3, new Date(), 1);
    await orm.em.getConnection().execute(`vacuum analyze ledger_entries`);
    await orm.em.getConnection().execute(`vacuum analyze settlement_entries`);

    const key = [scope.merchantId, scope.environment, scope.currency];
    const mark = await readSweepMark(orm.em.fork(), key as unknown as readonly [string, string, string]);
    const explain = async (title: string, sql: string, params: unknown[]) => {
      const rows = await orm.em.getConnection().execute<Record<string, string>[]>(`explain (analyze, buffers) ${sql}`, params);
      out.push(`#### ${title}`, '', '```', ...rows.map((r) => r['QUERY PLAN']), '```', '');
    };
    out.push('', `### Sweep`, '');
    await explain('Before: the unswept postings read in full (the count/sum; the insert into settlement_entries scans the same)', `select count(*)::int as n, coalesce(sum(le.amount), 0)::text as total ${UNSWEPT}`, key);
    await explain(`After: the unswept postings at or after the mark (${mark})`, `select count(*)::int as n, coalesce(sum(le.amount), 0)::text as total ${UNSWEPT_SINCE_MARK}`, [...key, mark]);
    t = Date.now();
    const second = await sweepSettlement(orm, { settlementId: newId('settlement'), ...scope, outcome: null, runId: null, at: new Date().toISOString() }, box);
    out.push(`The whole sweep after the mark (sweepSettlement, every statement): ${Date.now() - t} ms, ${'kind' in second ? second.reason : `${second.entryCount} postings`}.`, '');

    // The chart: auto_explain on the one connection the chart runs on.
    const connection = one.em.getConnection();
    await connection.execute(`load 'auto_explain'`);
    await connection.execute(`set auto_explain.log_min_duration = 0`);
    await connection.execute(`set auto_explain.log_analyze = on`);
    await connection.execute(`set auto_explain.log_buffers = on`);
    await connection.execute(`set auto_explain.log_timing = on`);
    const caller: Caller = { merchantId: merchant.id, environment: 'sandbox', keyId: 'bench', merchantVerified: true };
    const available = (await readBalances(orm.em.fork(), merchant.id, 'sandbox')).available.find((b) => b.currency === 'GHS')!.amount;
    const planned = async (title: string, run: () => Promise<unknown>, keep: number) => {
      await delay(500);
      const from = logs.length;
      const started = Date.now();
      await run();
      const ms = Date.now() - started;
      await delay(1_000);
      const plans = logs.slice(from).join('\n').split(/(?=LOG: {2}duration: )/).filter((p) => p.startsWith('LOG:  duration: ') && p.includes('plan:'));
      out.push(`#### ${title}`, '', `${plans.length} statements, ${ms} ms in all${plans.length > keep ? `; the first ${keep} plans shown` : ''}.`, '', '```', ...plans.slice(0, keep).map((p) => p.trim()), '```', '');
    };
    out.push('### 30-day chart', '');
    await planned('Before: the walk of every balance transaction of the window (100 per page)', () => availableByDayByWalk(one, caller, 'GHS', available, new Date()), 1);
    await planned('After, first view (writes the 29 closed days from the window\'s postings, once)', () => availableByDay(one, caller, 'GHS', available, new Date()), 10);
    await planned('After, every later view (the stored days and today\'s postings)', () => availableByDay(one, caller, 'GHS', available, new Date()), 10);
    await orm.em.getConnection().execute(`delete from balance_days where merchant_id = ? and day = ((now() at time zone 'UTC')::date - 1)`, [merchant.id]);
    await planned('After, the first view after a day closed (yesterday written from its postings and the day before\'s row)', () => availableByDay(one, caller, 'GHS', available, new Date()), 10);
    console.log(out.join('\n'));
  } finally {
    await one.close();
    await orm.close();
    await pg.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
