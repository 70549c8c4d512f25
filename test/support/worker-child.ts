import { fork, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildSync } from 'esbuild';
import { WORKER_ENTRY } from '../../src/runtime/worker-process';

/**
 * The real payments worker (workers/main.ts) as a child process, for crash tests: the suite's bundle of
 * it (TEST_WORKER_BUNDLE, test/support/suite-setup.ts: the same code in one file) with plain `node`,
 * else `--import tsx` as `npm run worker` does; ready once it sends IPC 'ready' (it is polling), killed with SIGKILL like a crashed
 * machine. Every child this module starts is remembered until it exits; `killAllWorkers()` (call it in
 * afterAll) and a process 'exit' hook make sure none outlives the test file, even when a test fails.
 */
export interface WorkerChild {
  child: ChildProcess;
  pid: number;
  /** The Temporal worker identity the SDK uses by default: `<pid>@<hostname>`. */
  identity: string;
  /** Resolves when the child has exited (whatever the cause). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILL, no drain; resolves once the process is gone. */
  kill(): Promise<void>;
  /** SIGINT: the worker drains and exits. */
  stop(): Promise<void>;
  /** The child's stdout and stderr so far (tail), for failure messages. */
  output(): string;
}

export interface WorkerChildOptions {
  taskQueue: string;
  databaseUrl?: string;
  temporalAddress?: string;
  env?: NodeJS.ProcessEnv;
  /** How long to wait for 'ready' (bundling the workflow code takes seconds). */
  readyTimeoutMs?: number;
  /**
   * Test-only modules the child imports before the worker's entry (after tsx), e.g.
   * test/support/crash-after-commit.ts; absolute paths.
   */
  preload?: string[];
}

const PROJECT_ROOT = path.resolve(__dirname, '../..');
const OUTPUT_LIMIT = 64 * 1024;
const live = new Set<ChildProcess>();

process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run through jest (global setup starts the servers)`);
  return value;
}

/**
 * A preload (TypeScript) bundled into a CommonJS file beside the worker's bundle, its packages left in
 * node_modules: so it patches the very modules the worker loads (test/support/crash-after-commit.ts
 * wraps `pg`'s Client). Made once per file and content.
 */
function bundledPreload(file: string): string {
  const source = fs.readFileSync(file);
  const out = path.join(PROJECT_ROOT, '.cache', `test-preload-${createHash('sha256').update(file).update(source).digest('hex').slice(0, 16)}.js`);
  if (!fs.existsSync(out)) {
    const tmp = `${out}.${process.pid}.tmp`;
    buildSync({ entryPoints: [file], outfile: tmp, bundle: true, platform: 'node', target: 'node24', format: 'cjs', packages: 'external', logLevel: 'error' });
    fs.renameSync(tmp, out);
  }
  return out;
}

/** Starts a worker child process and resolves once it polls the task queue. */
export async function startWorkerChild(options: WorkerChildOptions): Promise<WorkerChild> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: options.databaseUrl ?? required('TEST_DATABASE_URL'),
    TEMPORAL_ADDRESS: options.temporalAddress ?? required('TEST_TEMPORAL_ADDRESS'),
    TEMPORAL_NAMESPACE: 'default',
    TEMPORAL_TASK_QUEUE: options.taskQueue,
    LOG_LEVEL: 'warn',
    WORKER_METRICS_PORT: '0',
    SECRETS_KEY: required('TEST_SECRETS_KEY'),
    WEBHOOK_ALLOW_PRIVATE_HOSTS: '127.0.0.1,localhost',
    WEBHOOK_ALLOW_HTTP: 'true',
    ...options.env,
  };
  // jest's --experimental-vm-modules is not wanted in the worker.
  delete env.NODE_OPTIONS;
  const bundle = process.env.TEST_WORKER_BUNDLE;
  const child = bundle
    ? fork(bundle, [], { cwd: PROJECT_ROOT, env, execArgv: ['--enable-source-maps', ...(options.preload ?? []).flatMap((file) => ['--require', bundledPreload(file)])], stdio: ['ignore', 'pipe', 'pipe', 'ipc'] })
    : fork(WORKER_ENTRY, [], {
        cwd: PROJECT_ROOT,
        env,
        execArgv: ['--import', 'tsx', ...(options.preload ?? []).flatMap((file) => ['--import', pathToFileURL(file).href])],
        stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      });
  live.add(child);
  let output = '';
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-OUTPUT_LIMIT);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      live.delete(child);
      resolve({ code, signal });
    });
  });
  const gone = () => child.exitCode !== null || child.signalCode !== null;
  const handle: WorkerChild = {
    child,
    pid: child.pid!,
    identity: `${child.pid}@${os.hostname()}`,
    exited,
    async kill() {
      if (!gone()) child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      if (!gone()) child.kill('SIGINT');
      await exited;
    },
    output: () => output,
  };

  const readyTimeoutMs = options.readyTimeoutMs ?? 60_000;
  let timer: NodeJS.Timeout | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      child.on('message', (message) => {
        if (message === 'ready') resolve();
      });
      child.once('error', reject);
      void exited.then(({ code, signal }) => reject(new Error(`worker exited (code ${code}, signal ${signal}) before it was ready:\n${output}`)));
      timer = setTimeout(() => reject(new Error(`worker not ready after ${readyTimeoutMs} ms:\n${output}`)), readyTimeoutMs);
    });
  } catch (error) {
    await handle.kill();
    throw error;
  } finally {
    clearTimeout(timer);
  }
  return handle;
}

/** SIGKILLs every worker child still running and waits until they are gone. */
export async function killAllWorkers(): Promise<void> {
  const children = [...live];
  for (const child of children) child.kill('SIGKILL');
  await Promise.all(
    children.map((child) =>
      child.exitCode !== null || child.signalCode !== null ? undefined : new Promise<void>((resolve) => child.once('exit', () => resolve())),
    ),
  );
}
