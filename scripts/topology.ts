// First: on a Node.js older than 24, one clear line and exit before anything else loads.
import '../src/support/node-version';
import fs from 'node:fs';
import path from 'node:path';
import { Command, Option } from 'commander';
import { StartupError } from '../src/support/startup-error';
import { topologyDir, topologyDown, topologyStatus, topologyUp } from '../src/topology';
import type { DemoMerchant } from '../src/runtime/demo-merchant';

/**
 * `npm run topology -- up [--temporal server|dev] [--dir DIR] | status [--dir DIR] | down [--dir DIR]`:
 * the production topology on this machine (docs/deployment.md). `up` returns once every piece is
 * healthy and prints where each is; `status` prints topology.json with health probed now; `down`
 * stops everything.
 */
const program = new Command('topology').description('The production topology on this machine: docs/deployment.md');
const dirOption = () => new Option('--dir <dir>', 'the topology folder (default: TOPOLOGY_DIR, else .topology/ in the repo)');

program
  .command('up')
  .description('start every piece (detached) and return once all are healthy')
  .addOption(new Option('--temporal <kind>', 'server: the built Temporal server on its own PostgreSQL; dev: the CLI dev server').choices(['server', 'dev']).default('server'))
  .addOption(dirOption())
  .action(async (opts: { temporal: 'server' | 'dev'; dir?: string }) => {
    const started = Date.now();
    const { state, dir } = await topologyUp({ temporal: opts.temporal, dir: opts.dir, onProgress: (line) => process.stderr.write(`topology: ${line}\n`) });
    const demo = readDemo(dir);
    const ui = state.pieces.find((p) => p.name === 'temporal')!;
    const lines = [
      '',
      `  Topology      ${dir} (Temporal ${ui.kind} ${ui.version ?? ''}, up in ${Math.round((Date.now() - started) / 1000)} s)`,
      `  Sandbox API   ${state.public.sandbox}  (round robin over ${state.pieces.filter((p) => p.name.startsWith('api-')).length} API processes)`,
      `  Live API      ${state.public.live}`,
      `  Web           ${state.public.web}`,
      `  Temporal UI   ${state.public.temporal_ui}`,
      `  Temporal      ${state.temporal_address} (namespace ${state.temporal_namespace})`,
      `  Database      ${state.database_url.replace(/:[^:@/]+@/, ':***@')}`,
      '',
      ...state.pieces.map((p) => `  ${p.name.padEnd(18)} pid ${String(p.pid ?? '-').padEnd(8)} port ${String(p.port).padEnd(6)} ${p.health}`),
      '',
      ...(demo
        ? [`  Demo merchant ${demo.id}`, `  Sandbox key   ${demo.test_key}`, '', `  curl -s ${state.public.sandbox}/v1/balances -H "Authorization: Bearer ${demo.test_key}"`]
        : []),
      '',
      '  npm run topology -- status   (JSON, health probed now)',
      '  npm run topology -- down',
      '',
    ];
    process.stdout.write(lines.join('\n') + '\n');
  });

program
  .command('status')
  .description('print topology.json with every piece health probed now')
  .addOption(dirOption())
  .action(async (opts: { dir?: string }) => {
    const state = await topologyStatus(topologyDir(opts.dir));
    if (!state) throw new StartupError(`no topology runs in ${topologyDir(opts.dir)} (start one: npm run topology -- up)`);
    process.stdout.write(JSON.stringify(state, null, 2) + '\n');
  });

program
  .command('down')
  .description('stop every piece and the supervisor')
  .addOption(dirOption())
  .action(async (opts: { dir?: string }) => {
    const dir = topologyDir(opts.dir);
    const { stopped } = await topologyDown(dir);
    process.stdout.write(stopped ? `topology in ${dir} stopped (${stopped} processes)\n` : `no topology runs in ${dir}\n`);
  });

function readDemo(dir: string): DemoMerchant | undefined {
  const file = path.join(dir, 'demo-merchant.json');
  return fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as DemoMerchant) : undefined;
}

program.parseAsync(process.argv).catch((error: unknown) => {
  process.stderr.write(`topology: ${error instanceof StartupError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
