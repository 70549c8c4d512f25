/**
 * `npm run seed:merchant -- --events 1000000 --postings 1000000 --deliveries 300000 [--payouts N --refunds N --disputes N --days N] [--data-dir DIR]`
 *
 * One merchant with a million rows (issue 34), written into DATABASE_URL or into an embedded
 * PostgreSQL kept in --data-dir (default .cache/million-rows), migrated first. What is written:
 * scripts/merchant/seed.ts. Prints the merchant's id; `npm run bench -- --only reads` measures it
 * (scripts/bench/reads/reads.ts).
 */
import { randomBytes } from 'node:crypto';
import { Command } from 'commander';
import { sealAccountNumber } from '../src/domain/settlement-account';
import { updateMerchantSettings } from '../src/persistence/merchants/merchant-settings-store';
import { sweepSettlement } from '../src/persistence/settlements/settlement-store';
import { newId } from '../src/support/new-id';
import { createSecretBox } from '../src/support/secret-box';
import { DEFAULT_MERCHANT_DATA_DIR, openMerchantDatabase } from './merchant/database';
import { seedMerchant } from './merchant/seed';
import { countOption } from './support/count-option';

const count = countOption;

async function main(): Promise<void> {
  const options = new Command('seed:merchant')
    .option('--events <n>', 'events of the merchant', count, 1_000_000)
    .option('--postings <n>', 'ledger rows of the merchant', count, 1_000_000)
    .option('--deliveries <n>', 'webhook deliveries (the newest events), with their attempts', count, 300_000)
    .option('--payouts <n>', 'payouts', count, 20_000)
    .option('--refunds <n>', 'refunds', count, 10_000)
    .option('--disputes <n>', 'disputes', count, 2_000)
    .option('--days <n>', 'how many days back the history goes', count, 60)
    .option('--data-dir <dir>', 'the embedded PostgreSQL\'s data (without DATABASE_URL)', DEFAULT_MERCHANT_DATA_DIR)
    .parse()
    .opts<{ events: number; postings: number; deliveries: number; payouts: number; refunds: number; disputes: number; days: number; dataDir: string }>();
  if (options.days < 2) throw new Error('--days must be at least 2');
  if (options.payouts < 1) throw new Error('--payouts must be at least 1');
  const db = await openMerchantDatabase(options.dataDir);
  try {
    const started = Date.now();
    const seeded = await seedMerchant(db.orm, options, (line) => console.log(`  ${line}`));
    // The settlement sweep's first run reads the whole history (no mark yet): the real store, once,
    // so that the bench measures the sweep a merchant runs every day after that (from its mark).
    const box = createSecretBox(randomBytes(32));
    await updateMerchantSettings(db.orm, seeded.merchantId, { settlementAccount: { bankCode: 'GCB', account: sealAccountNumber(box, '0012345678901') } });
    let t = Date.now();
    const swept = await sweepSettlement(db.orm, { settlementId: newId('settlement'), merchantId: seeded.merchantId, environment: 'sandbox', currency: 'GHS', outcome: null, runId: null, at: new Date().toISOString() }, box);
    console.log(`  first settlement sweep (the real store, the whole history): ${Date.now() - t} ms, ${'kind' in swept ? swept.reason : `${swept.entryCount} postings`}`);
    t = Date.now();
    await db.orm.em.getConnection().execute(`vacuum analyze settlement_entries, settlements, settlement_sweep_marks, ledger_entries, events`);
    console.log(`  vacuum analyze: ${Date.now() - t} ms`);
    console.log(`seeded merchant ${seeded.merchantId} (endpoint ${seeded.endpointId}) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    await db.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
