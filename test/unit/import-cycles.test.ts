import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

/**
 * No module imports itself back, type-only imports included (the house rule: a part hands nothing
 * back up to what mounts it). dependency-cruiser follows every TypeScript import of the source
 * folders under .dependency-cruiser.cjs; run it by hand with `node node_modules/.bin/depcruise
 * --config .dependency-cruiser.cjs src workflows activities workers`.
 */
test('no import cycles in src, workflows, activities and workers', async () => {
  const root = path.resolve(__dirname, '../..');
  const cli = path.join(root, 'node_modules/dependency-cruiser/bin/dependency-cruiser.mjs');
  const run = promisify(execFile)(process.execPath, [cli, '--config', '.dependency-cruiser.cjs', '--output-type', 'json', 'src', 'workflows', 'activities', 'workers'], {
    cwd: root,
    maxBuffer: 256 * 1024 * 1024,
  });
  // It exits non-zero when it finds a violation; its JSON report is on stdout either way.
  const { stdout, stderr } = await run.catch((error: { stdout?: string; stderr?: string }) => ({ stdout: error.stdout ?? '', stderr: error.stderr ?? '' }));
  if (!stdout.trim()) throw new Error(`dependency-cruiser printed no report: ${stderr}`);
  const result = JSON.parse(stdout) as { summary: { totalCruised: number; violations: Array<{ rule: { name: string }; cycle?: Array<{ name: string }>; from: string }> } };
  expect(result.summary.totalCruised).toBeGreaterThan(300);
  const cycles = result.summary.violations.map((v) => [v.from, ...(v.cycle ?? []).map((c) => c.name)].join(' → '));
  expect(cycles).toEqual([]);
}, 120_000);
