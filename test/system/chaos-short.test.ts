/**
 * `npm run chaos -- --short` (issue 32, "Faults"; src/chaos/, docs/reliability.md "Chaos runs"), run
 * as a user runs it: its own topology with `--temporal dev` (`--up`: started for the run and stopped
 * after), in a folder of its own and on its own ports (a port offset below the topology test's), a
 * seeded load of sandbox and live payments, one fault of each kind (SIGKILL a worker, an API,
 * Temporal, the service's PostgreSQL; SIGSTOP a process; the receiver's bad spell; the partner
 * stopped; issue 46: the MoMo fake's port closed, then it declining, mobile money failing over to the
 * aggregator), then every check. Asserts no violation, and that each kind was injected and recovered.
 * CHAOS_SEED picks another seed (the report's first line names it: a failure is reproduced with it).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FAULT_KINDS } from '../../src/chaos/schedule';
import type { ChaosSummary } from '../../src/chaos/report';
import { isPortFree } from '../../src/support/port-free';
import { topologyDown } from '../../src/topology';
import { faketimeLibrary } from '../../src/topology/clock-skew';
import { allPorts, topologyPorts } from '../../src/topology/ports';
import { temporalCliPath } from '../support/binaries';

const ROOT = path.resolve(__dirname, '../..');
const SEED = process.env.CHAOS_SEED ?? '32';
let dir: string;

/** The first offset whose every port is free, below the range test/system/topology.test.ts uses (21000–24500). */
async function freeOffset(): Promise<number> {
  for (let offset = 14_000; offset <= 20_000; offset += 500) {
    const free = await Promise.all(allPorts(topologyPorts(offset), 'dev').map((p) => isPortFree('127.0.0.1', p)));
    if (free.every(Boolean)) return offset;
  }
  throw new Error('no port offset from 14000 to 20000 has every topology port free');
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'payments-chaos-'));
  if (process.getuid?.() === 0) fs.chmodSync(dir, 0o711);
});

afterAll(async () => {
  // The run stops its topology itself; this is for a run cut short by the test's timeout.
  await topologyDown(path.join(dir, 'topology')).catch(() => undefined);
  fs.rmSync(dir, { recursive: true, force: true });
});

test('a short chaos run on the dev-server topology: each fault kind injected and recovered, no violation', async () => {
  // Every kind but Temporal's PostgreSQL (server mode only) applies: clock_skew needs libfaketime.
  if (!faketimeLibrary()) throw new Error('libfaketime is not installed, so the run would leave clock_skew out: bash scripts/install-faketime.sh (.ci/run does)');
  const env: NodeJS.ProcessEnv = { ...process.env, TEMPORAL_CLI_PATH: temporalCliPath(), TOPOLOGY_PORT_OFFSET: String(await freeOffset()) };
  delete env.NODE_OPTIONS;
  for (const name of ['DATABASE_URL', 'TEMPORAL_ADDRESS', 'SECRETS_KEY']) delete env[name];
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/chaos.ts', '--short', '--seed', SEED, '--temporal', 'dev', '--up', '--dir', path.join(dir, 'topology')], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  const last = stdout.trim().split('\n').pop() ?? '';
  let summary: ChaosSummary;
  try {
    summary = JSON.parse(last) as ChaosSummary;
  } catch {
    throw new Error(`npm run chaos exited ${code} without its JSON line:\n${stdout}\n${stderr.slice(-4000)}`);
  }
  const report = `${stdout}\n(progress:\n${stderr.slice(-3000)})`;
  const expected = FAULT_KINDS.filter((k) => k !== 'kill_temporal_postgres');
  expect({ violations: summary.violations, code, report: summary.violations ? report : '' }).toEqual({ violations: 0, code: 0, report: '' });
  expect(summary).toMatchObject({ seed: Number(SEED), faults: expected.length, mode: 'short', temporal: 'dev', not_applicable: ['kill_temporal_postgres'] });
  expect(Object.keys(summary.longest_recovery_s).sort()).toEqual([...expected].sort());
  for (const kind of expected) expect({ kind, recovered: typeof summary.longest_recovery_s[kind] === 'number' }).toEqual({ kind, recovered: true });
  expect(summary.requests).toBeGreaterThan(100);
  expect(summary.payments_checked).toBeGreaterThan(50);
  // The history check ran (null: it could not) and found every acknowledged create, once, with its amount.
  expect({ acknowledged_lost: summary.acknowledged_lost, duplicates_by_key: summary.duplicates_by_key, amount_mismatches: summary.amount_mismatches }).toEqual({ acknowledged_lost: 0, duplicates_by_key: 0, amount_mismatches: 0 });
  expect(report).toMatch(/every acknowledged create exists with its amount, one resource per key/);
}, 15 * 60_000);
