import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { isPortFree } from '../support/port-free';
import { StartupError } from '../support/startup-error';
import { workerHeapMb } from '../runtime/worker-heap';
import { projectRoot, topologyDir } from './paths';
import { allPorts, topologyPorts } from './ports';
import { reprobe } from './reprobe';
import { isAlive, readTopologyState, type TopologyState } from './state';
import { temporalServerInstall } from './temporal-server';

export { readTopologyState, type TopologyState, type PieceState } from './state';
export { topologyDir } from './paths';

export interface TopologyOptions {
  /** `server` (default): the built Temporal server on its own PostgreSQL; `dev`: the CLI's dev server. */
  temporal?: 'server' | 'dev';
  /** Default: TOPOLOGY_DIR, else `<repo>/.topology`. */
  dir?: string;
  /** Added to every port (TOPOLOGY_PORT_OFFSET): a second topology beside the first. */
  portOffset?: number;
  /** How long `up` waits for every piece (default 6 minutes). */
  timeoutMs?: number;
  /** Progress lines (default: none). */
  onProgress?: (line: string) => void;
}

export interface TopologyHandle {
  dir: string;
  state: TopologyState;
  /** Stops every piece and the supervisor. */
  down(): Promise<void>;
}

/** The topology of `dir` when its supervisor runs, else undefined. */
export function runningTopology(dir: string): TopologyState | undefined {
  const state = readTopologyState(dir);
  return state && isAlive(state.supervisor.pid) ? state : undefined;
}

/**
 * Starts the supervisor (detached: it outlives this process) and resolves once every piece is
 * healthy; when the topology of `dir` runs already, resolves with it. Rejects with one line when a
 * port is taken, the server is not built, or a piece did not come up (the supervisor then stopped
 * everything it started).
 */
export async function topologyUp(options: TopologyOptions = {}): Promise<TopologyHandle> {
  const dir = topologyDir(options.dir);
  const mode = options.temporal ?? 'server';
  const offset = options.portOffset ?? Number(process.env.TOPOLOGY_PORT_OFFSET || 0);
  const handle = (state: TopologyState): TopologyHandle => ({
    dir,
    state,
    down: async () => {
      await topologyDown(dir);
    },
  });
  const running = runningTopology(dir);
  if (running) {
    if (running.mode !== mode) throw new StartupError(`the topology in ${dir} runs already with --temporal ${running.mode}: stop it first (npm run topology -- down)`);
    return handle(await waitReady(dir, options.timeoutMs ?? 360_000, options.onProgress));
  }
  if (mode === 'server') temporalServerInstall();
  workerHeapMb(); // a bad WORKER_HEAP_MB stops `up` here, in one line, not each worker's start
  const ports = topologyPorts(offset);
  const taken: number[] = [];
  for (const port of allPorts(ports, mode)) if (!(await isPortFree('127.0.0.1', port))) taken.push(port);
  if (taken.length > 0) {
    throw new StartupError(`port${taken.length > 1 ? 's' : ''} ${taken.join(', ')} on 127.0.0.1 ${taken.length > 1 ? 'are' : 'is'} in use (is \`npm start\` or another topology running? stop it, or set TOPOLOGY_PORT_OFFSET; pieces left by a killed supervisor: npm run topology -- down)`);
  }
  fs.mkdirSync(path.join(dir, 'logs'), { recursive: true });
  fs.rmSync(path.join(dir, 'topology.json'), { force: true });
  const log = fs.openSync(path.join(dir, 'logs', 'supervisor.log'), 'a');
  const root = projectRoot();
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'src/topology/supervisor-main.ts')], {
    cwd: root,
    detached: true,
    stdio: ['ignore', log, log],
    env: { ...process.env, TOPOLOGY_DIR: dir, TOPOLOGY_TEMPORAL: mode, TOPOLOGY_PORT_OFFSET: String(offset) },
  });
  fs.closeSync(log);
  child.unref();
  options.onProgress?.(`supervisor started (pid ${child.pid}); logs in ${path.join(dir, 'logs')}`);
  return handle(await waitReady(dir, options.timeoutMs ?? 360_000, options.onProgress, child.pid));
}

async function waitReady(dir: string, timeoutMs: number, onProgress?: (line: string) => void, pid?: number): Promise<TopologyState> {
  const until = Date.now() + timeoutMs;
  const seen = new Set<string>();
  for (;;) {
    const state = readTopologyState(dir);
    for (const piece of state?.pieces ?? []) {
      if (piece.health === 'ok' && !seen.has(piece.name)) {
        seen.add(piece.name);
        onProgress?.(`${piece.name} ok (pid ${piece.pid}, port ${piece.port})`);
      }
    }
    if (state?.ready) return state;
    const supervisorPid = state?.supervisor.pid ?? pid;
    if (state?.error || (supervisorPid && !isAlive(supervisorPid))) {
      throw new StartupError(`the topology did not come up: ${state?.error ?? 'the supervisor exited'} (see ${path.join(dir, 'logs', 'supervisor.log')})`);
    }
    if (Date.now() > until) throw new StartupError(`the topology was not up within ${Math.round(timeoutMs / 1000)} s (see ${path.join(dir, 'logs')}); it keeps trying: npm run topology -- status, or down`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

/** The state with each piece's health probed now (what `status` prints); undefined when nothing runs. */
export async function topologyStatus(dir: string = topologyDir()): Promise<TopologyState | undefined> {
  const state = readTopologyState(dir);
  if (!state) return undefined;
  return reprobe(state);
}

/**
 * Stops every piece and the supervisor: SIGTERM to the supervisor, which stops the pieces in reverse
 * order; then any piece pid still alive (a supervisor killed with SIGKILL leaves its pieces) gets
 * SIGTERM, and SIGKILL after 20 s.
 */
export async function topologyDown(dir: string = topologyDir()): Promise<{ stopped: number }> {
  const state = readTopologyState(dir);
  if (!state) return { stopped: 0 };
  const pids = [...new Set(state.pieces.map((p) => p.pid).filter((p): p is number => !!p))];
  if (isAlive(state.supervisor.pid)) {
    process.kill(state.supervisor.pid, 'SIGTERM');
    await waitGone([state.supervisor.pid], 90_000);
  }
  const left = pids.filter(isAlive);
  for (const pid of left) process.kill(pid, 'SIGTERM');
  if (!(await waitGone(left, 20_000))) for (const pid of left.filter(isAlive)) process.kill(pid, 'SIGKILL');
  await waitGone(left, 5_000);
  fs.rmSync(path.join(dir, 'topology.json'), { force: true });
  return { stopped: pids.length };
}

async function waitGone(pids: number[], timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (pids.some(isAlive)) {
    if (Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, 200));
  }
  return true;
}
