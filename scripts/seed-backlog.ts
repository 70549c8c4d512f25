/**
 * `npm run seed:backlog -- --events 3000000 --merchants 1000 [--charges N --payouts N --refunds N --disputes N] [--data-dir DIR]`
 *
 * Writes the backlog a Temporal outage leaves (issue 34) into DATABASE_URL, or into an embedded
 * PostgreSQL kept in --data-dir (default: the system's temporary folder, payments-backlog), migrated
 * first. What is written: scripts/backlog/seed.ts. Measure it with `npm run bench:backlog`.
 */
import { Command } from 'commander';
import { DEFAULT_BACKLOG_DATA_DIR, openBacklogDatabase } from './backlog/database';
import { seedBacklog } from './backlog/seed';
import { countOption } from './support/count-option';

const count = countOption;

async function main(): Promise<void> {
  const options = new Command('seed:backlog')
    .option('--events <n>', 'undispatched events', count, 3_000_000)
    .option('--merchants <n>', 'merchants they are spread over', count, 1_000)
    .option('--charges <n>', 'charges whose workflow was never started', count, 0)
    .option('--payouts <n>', 'payouts whose workflow was never started', count, 0)
    .option('--refunds <n>', 'refunds whose workflow was never started', count, 0)
    .option('--disputes <n>', 'disputes whose workflow was never started', count, 0)
    .option('--window-minutes <n>', 'how far back the oldest row goes', count, 180)
    .option('--data-dir <dir>', 'the embedded PostgreSQL\'s data (without DATABASE_URL)', DEFAULT_BACKLOG_DATA_DIR)
    .parse()
    .opts<{ events: number; merchants: number; charges: number; payouts: number; refunds: number; disputes: number; windowMinutes: number; dataDir: string }>();
  if (options.merchants < 1) throw new Error('--merchants must be at least 1');
  const db = await openBacklogDatabase(options.dataDir, console.log);
  try {
    const started = Date.now();
    const seeded = await seedBacklog(db.orm, options, (line) => console.log(`  ${line}`));
    console.log(`seeded run ${seeded.tag} in ${((Date.now() - started) / 1000).toFixed(1)} s: ${options.events} events over ${options.merchants} merchants` +
      `, ${options.charges} charges, ${options.payouts} payouts, ${options.refunds} refunds, ${options.disputes} disputes`);
  } finally {
    await db.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
