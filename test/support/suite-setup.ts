import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { build } from 'esbuild';
import { writeWorkflowBundle } from '../../workers/workflow-bundle';
import { onSuiteEnd } from './suite-stops';

/**
 * What every project's global setup needs, done once per run (a second global setup in the same run
 * finds it done):
 * - the workflow code, bundled once and handed to every jest worker and every worker child through
 *   WORKFLOW_BUNDLE_PATH (workers/workflow-bundle.ts): webpack takes seconds of CPU in each process
 *   that bundles, and jest gives each test file a fresh module registry;
 * - TEST_SECRETS_KEY, the key that seals webhook signing secrets and encrypts payloads, shared by the
 *   in-process API, worker children and the replay tests' codec.
 */
export async function commonSuiteSetup(): Promise<void> {
  process.env.TEST_SECRETS_KEY ??= randomBytes(32).toString('base64');
  if (!process.env.TEST_CPU_DIR) {
    // Where each test file's CPU meter writes its note (test/support/cpu-metered-environment.js).
    const cpuDir = fs.mkdtempSync(path.join(os.tmpdir(), 'payments-cpu-'));
    onSuiteEnd(() => fs.rmSync(cpuDir, { recursive: true, force: true }));
    process.env.TEST_CPU_DIR = cpuDir;
  }
  if (process.env.WORKFLOW_BUNDLE_PATH) return;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'payments-bundle-'));
  onSuiteEnd(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'workflows.js');
  await writeWorkflowBundle(file);
  process.env.WORKFLOW_BUNDLE_PATH = file;
}

/**
 * One entry of the project bundled by esbuild into `outfile` for Node 24 (its packages stay in
 * node_modules, source maps inline): what the tests that start a process of the CLI, the worker or
 * `npm run replay` run, instead of tsx compiling a few hundred modules at each start.
 */
export async function bundleForNode(entry: string, outfile: string, logLevel: 'warning' | 'error' = 'error'): Promise<void> {
  await build({ entryPoints: [entry], outfile, bundle: true, platform: 'node', target: 'node24', packages: 'external', sourcemap: 'inline', logLevel });
}

/**
 * `src/cli.ts` bundled into one file under `.cache/` (its packages stay in node_modules), for the tests
 * that run the CLI as a process (test/support/run-cli.ts): the same code, started in a third of the
 * time tsx takes. Returns where it is; the file is removed at the end of the run.
 */
export async function bundleCli(): Promise<string> {
  const root = path.resolve(__dirname, '../..');
  fs.mkdirSync(path.join(root, '.cache'), { recursive: true });
  const dir = fs.mkdtempSync(path.join(root, '.cache', 'test-cli-'));
  onSuiteEnd(() => fs.rmSync(dir, { recursive: true, force: true }));
  const outfile = path.join(dir, 'cli.js');
  await bundleForNode(path.join(root, 'src/cli.ts'), outfile, 'warning');
  return outfile;
}

/**
 * The worker's entry (workers/main.ts) bundled the same way, for the tests that start the worker as a
 * process (test/support/worker-child.ts): each child then loads one file instead of tsx compiling and
 * resolving a few hundred modules. The file sits in `.cache/` itself, not a folder below it: the worker
 * finds its workflow code by `require.resolve('../workflows')` (workers/workflow-bundle.ts), which must
 * resolve from the bundle's folder to the project's `workflows/` as it does from `workers/`.
 */
export async function bundleWorker(): Promise<string> {
  const root = path.resolve(__dirname, '../..');
  fs.mkdirSync(path.join(root, '.cache'), { recursive: true });
  const outfile = path.join(root, '.cache', `test-worker-${randomBytes(4).toString('hex')}.js`);
  onSuiteEnd(() => fs.rmSync(outfile, { force: true }));
  await bundleForNode(path.join(root, 'workers/main.ts'), outfile);
  return outfile;
}
