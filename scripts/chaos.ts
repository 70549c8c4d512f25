// First: on a Node.js older than 24, one clear line and exit before anything else loads.
import '../src/support/node-version';
import { ChaosUsageError, parseChaosOptions } from '../src/chaos/options';
import { runChaos } from '../src/chaos/run';
import { topologyDir } from '../src/topology/paths';

/**
 * `npm run chaos -- [--short] [--seed S] [--duration D] [--temporal server|dev] [--dir DIR] [--up] [--keep]`
 * (issue 32, docs/reliability.md "Chaos runs"): seeded faults under a seeded load on the topology,
 * then the checks. Progress goes to stderr; the report to stdout, its last line one JSON object.
 * Exits 1 when a check found a violation, 2 on a usage error or when the run could not happen.
 */
async function main(): Promise<void> {
  let options;
  try {
    options = parseChaosOptions(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`chaos: ${(error as Error).message}\n`);
    process.exit(2);
  }
  const say = (line: string) => process.stderr.write(`chaos: ${line}\n`);
  const outcome = await runChaos({ ...options, dir: topologyDir(options.dir) }, say);
  process.stdout.write(outcome.lines.join('\n') + '\n');
  process.exit(outcome.summary.violations > 0 ? 1 : 0);
}

main().catch((error: unknown) => {
  process.stderr.write(`chaos: ${error instanceof ChaosUsageError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(2);
});
