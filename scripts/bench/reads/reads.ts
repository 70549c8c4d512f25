import fs from 'node:fs';
import { randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { ALL_SCOPES } from '../../../src/domain/scopes';
import { issueKey } from '../../../src/persistence/merchants/merchant-store';
import { ADMIN_DB_TIMEOUTS, openOrm, type Orm } from '../../../src/persistence/orm';
import { sweepSettlement } from '../../../src/persistence/settlements/settlement-store';
import { newId } from '../../../src/support/new-id';
import { createSecretBox } from '../../../src/support/secret-box';
import { PortalClient } from '../../../test/support/portal-client';
import { newPortalUser } from '../../../test/support/portal-web';
import { seedFundings } from '../../../test/support/seed-postings';
import { DEFAULT_MERCHANT_DATA_DIR, openMerchantDatabase } from '../../merchant/database';
import { readCases, readFixture, type ReadCase } from './reads-cases';
import { startReadServers } from './reads-servers';
import { fmt, summarize } from '../shared/stats';

/**
 * `npm run bench -- --only reads [--reps 200] [--merchant mer_…] [--plans FILE] [--data-dir DIR]`
 *
 * Issue 34, "A million rows per merchant": p50/p99 of every read the issue lists, closed loop (one
 * request at a time, `reps` of each after 3 unmeasured), on the merchant `npm run seed:merchant`
 * wrote (the one with the most events unless --merchant), in DATABASE_URL or the embedded PostgreSQL
 * of --data-dir. The reads go through the real code: HTTP to the sandbox API listener and the web
 * port (in this process, scripts/bench/reads/reads-servers.ts), the stores for the settlement sweep (one new
 * posting before each, so each sweep sweeps one) and the operator's lists. Markdown on stdout.
 *
 * --plans FILE: afterwards, each read once more on one connection with auto_explain (log_analyze,
 * log_buffers; the embedded PostgreSQL only, whose log this process reads), every statement's plan
 * that touches a merchant-sized table written to FILE as markdown.
 */
const { values: args } = parseArgs({
  options: { reps: { type: 'string' }, merchant: { type: 'string' }, plans: { type: 'string' }, 'data-dir': { type: 'string' }, only: { type: 'string' }, match: { type: 'string' } },
  allowPositionals: true,
});
const REPS = Number(args.reps ?? 200);
const GOAL_MS = 50;
const BIG_TABLES = /\b(events|ledger_entries|charges|payouts|refunds|disputes|settlements|settlement_entries|webhook_deliveries|webhook_attempts|balance_days)\b/;

async function main(): Promise<void> {
  const logs: string[] = [];
  const db = await openMerchantDatabase(args['data-dir'] ?? DEFAULT_MERCHANT_DATA_DIR, (line) => logs.push(String(line)));
  const out: string[] = [];
  try {
    const conn = db.orm.em.getConnection();
    const merchantId = args.merchant ?? (await conn.execute<{ merchant_id: string }[]>(`select merchant_id from event_counters where environment = 'sandbox' order by last_sequence desc limit 1`))[0]?.merchant_id;
    if (!merchantId) throw new Error('no seeded merchant: run npm run seed:merchant first');
    const [size] = await conn.execute<Record<string, string>[]>(
      `select (select count(*) from events where merchant_id = ?) as events, (select count(*) from ledger_entries where merchant_id = ?) as postings,
         (select count(*) from webhook_deliveries where merchant_id = ?) as deliveries, (select count(*) from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id where d.merchant_id = ?) as attempts,
         (select count(*) from charges where merchant_id = ?) as charges, (select count(*) from payouts where merchant_id = ?) as payouts,
         (select count(*) from refunds where merchant_id = ?) as refunds, (select count(*) from disputes where merchant_id = ?) as disputes,
         (select count(*) from settlements where merchant_id = ?) as settlements`,
      Array(9).fill(merchantId),
    );
    out.push(`Merchant ${merchantId}: ${Object.entries(size).map(([k, v]) => `${Number(v).toLocaleString('en')} ${k}`).join(', ')}.`, '');
    const key = await issueKey(db.orm, merchantId, 'sandbox', [...ALL_SCOPES]);
    const user = await newPortalUser(db.orm, merchantId);
    const fixture = await readFixture(db.orm, merchantId);

    const measure = async (orm: Orm, each: (cases: ReadCase[], portalUrl: string) => Promise<void>) => {
      const servers = await startReadServers(orm);
      try {
        const portal = new PortalClient(servers.web);
        const signedIn = await portal.signIn(user.email, user.password);
        if (signedIn.status !== 303) throw new Error(`portal sign-in answered ${signedIn.status}`);
        const all = [...(await readCases(orm, fixture, servers.api, key.secret, portal)), sweepCase(orm, merchantId)];
        await each(all.filter((c) => !args.match || c.name.includes(args.match)), servers.web);
      } finally {
        await servers.close();
      }
    };

    out.push(`| Group | Read | p50 ms | p99 ms | max ms | under ${GOAL_MS} ms at p99 |`, '|---|---|---|---|---|---|');
    const started = Date.now();
    await measure(db.orm, async (cases) => {
      for (const c of cases) {
        for (let i = 0; i < 3; i++) {
          await c.prepare?.();
          await c.run();
        }
        const times: number[] = [];
        for (let i = 0; i < REPS; i++) {
          await c.prepare?.();
          const t = performance.now();
          await c.run();
          times.push(performance.now() - t);
        }
        const s = summarize(times);
        out.push(`| ${c.group} | ${c.name.replace(/\|/g, '\\|')} | ${fmt(s.p50)} | ${fmt(s.p99)} | ${fmt(s.max)} | ${s.p99 < GOAL_MS ? 'yes' : '**no**'} |`);
        console.error(`${c.name}: p50 ${fmt(s.p50)} p99 ${fmt(s.p99)}`);
      }
    });
    out.push('', `${REPS} measured runs of each, closed loop, ${((Date.now() - started) / 1000).toFixed(0)} s in all.`);

    if (args.plans) {
      if (!db.ownLog) throw new Error('--plans needs the embedded PostgreSQL (its log): unset DATABASE_URL');
      const plans: string[] = [];
      const one = await openOrm(db.url, { poolMax: 1, timeouts: { ...ADMIN_DB_TIMEOUTS, statementTimeoutMs: 0 } });
      try {
        for (const setting of [`load 'auto_explain'`, 'set auto_explain.log_min_duration = 0', 'set auto_explain.log_analyze = on', 'set auto_explain.log_buffers = on', 'set auto_explain.log_nested_statements = on']) {
          await one.em.getConnection().execute(setting);
        }
        await measure(one, async (cases) => {
          for (const c of cases) {
            await c.prepare?.();
            await c.run();
            await c.prepare?.();
            await delay(300);
            const from = logs.length;
            await c.run();
            await delay(700);
            const found = logs.slice(from).join('\n').split(/(?=LOG: {2}duration: )/).filter((p) => p.startsWith('LOG:  duration: ') && p.includes('plan:') && BIG_TABLES.test(p));
            plans.push(`#### ${c.name}`, '', '```', ...found.map((p) => p.trim()), '```', '');
          }
        });
      } finally {
        await one.close();
      }
      fs.writeFileSync(args.plans, plans.join('\n'));
      out.push(`Plans: ${args.plans}.`);
    }
    console.log(out.join('\n'));
  } finally {
    await db.close();
  }
}

/** The settlement sweep of the merchant's GHS balance, one new posting (written before, not timed) swept each time. */
function sweepCase(orm: Orm, merchantId: string): ReadCase {
  const box = createSecretBox(randomBytes(32));
  const scope = { merchantId, environment: 'sandbox' as const, currency: 'GHS' };
  return {
    group: 'settlement sweep',
    name: 'sweepSettlement (one new posting since the last sweep)',
    prepare: async () => void (await seedFundings(orm, scope, 1, new Date(), 1)),
    async run() {
      const swept = await sweepSettlement(orm, { settlementId: newId('settlement'), ...scope, outcome: null, runId: null, at: new Date().toISOString() }, box);
      if ('kind' in swept) throw new Error(`the sweep swept nothing: ${swept.reason}`);
    },
  };
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
