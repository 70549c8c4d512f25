import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { workerHeapArgs } from '../worker-heap';

export interface WorkerProcess {
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Path of the worker entry point next to this build (TypeScript under tsx, JavaScript in dist/). */
export const WORKER_ENTRY = path.resolve(__dirname, '../../workers/main' + path.extname(__filename));

/** Starts the worker as its own process (with WORKER_HEAP_MB's heap limit, src/runtime/worker-heap.ts) and resolves once it polls. */
export function startWorkerProcess(env: NodeJS.ProcessEnv): Promise<WorkerProcess> {
  const childEnv = { ...process.env, ...env };
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
