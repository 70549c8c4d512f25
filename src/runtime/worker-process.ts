import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { workerHeapArgs } from './worker-heap';

export interface WorkerProcess {
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Path of the worker entry point next to this build (TypeScript under tsx, JavaScript in dist/). */
export const WORKER_ENTRY = path.resolve(__dirname, '../../workers/main' + path.extname(__filename));

/**
 * What a worker process that shares its machine with the API, Temporal and PostgreSQL gets unless
 * they are set: `npm start`'s (below) and each of the topology's (src/topology/app-pieces.ts).
 * Issue 34 (docs/benchmarks.md, "Payments in flight"): with V8's own limit (about 4.2 GiB per
 * isolate here) the worker passed 1 GiB of RSS with 6,000 charges in flight (1,752 MiB); with 512 MiB
 * it stayed under (993 MiB), its workflow cache sized from that heap; and a nice worker lets the
 * API's requests go first while it works through a backlog. A worker started by hand
 * (workers/main.ts, a deployment of its own) keeps V8's limit and priority unless they are set.
 */
export const SHARED_MACHINE_WORKER_DEFAULTS: Readonly<Record<'WORKER_HEAP_MB' | 'WORKER_NICE', string>> = { WORKER_HEAP_MB: '512', WORKER_NICE: '10' };

/** `env` with SHARED_MACHINE_WORKER_DEFAULTS for the keys it leaves unset or empty. */
export function withSharedMachineDefaults(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out = { ...env };
  for (const [key, value] of Object.entries(SHARED_MACHINE_WORKER_DEFAULTS)) if (!out[key]?.trim()) out[key] = value;
  return out;
}

/** Starts the worker as its own process (SHARED_MACHINE_WORKER_DEFAULTS; WORKER_HEAP_MB as its heap limit, src/runtime/worker-heap.ts) and resolves once it polls. */
export function startWorkerProcess(env: NodeJS.ProcessEnv): Promise<WorkerProcess> {
  const childEnv = withSharedMachineDefaults({ ...process.env, ...env });
  const execArgv = [...process.execArgv, ...workerHeapArgs(childEnv)];
  const child = fork(WORKER_ENTRY, [], { env: childEnv, execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGINT');
    });
  return new Promise((resolve, reject) => {
    child.once('message', (m) => (m === 'ready' ? resolve({ child, stop }) : undefined));
    child.once('exit', (code) => reject(new Error(`worker exited with code ${code} before it was ready`)));
  });
}
