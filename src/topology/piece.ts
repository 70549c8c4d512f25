import type { Health } from './state';

/** How to run one piece of the topology: the supervisor (supervisor.ts) spawns, probes and restarts it. */
export interface PieceSpec {
  name: string;
  kind: string;
  version?: string;
  port: number;
  ports?: Record<string, number>;
  /** The process to spawn; its pid is the piece's pid. */
  command: () => { file: string; args: string[]; env?: NodeJS.ProcessEnv; cwd?: string; uid?: number; gid?: number };
  /**
   * Its health while the process runs: `ok` when it serves, `starting` otherwise. `ready` says
   * whether the process sent `ready` on its IPC channel since its start (the workers do).
   */
  probe: (ready: boolean) => Promise<Exclude<Health, 'down'>>;
  /** The signal that stops it cleanly (default SIGTERM; PostgreSQL: SIGINT, a fast shutdown). */
  stopSignal?: NodeJS.Signals;
  /** How long a start may take before up gives up (default 120 s). */
  startTimeoutMs?: number;
  /** Give the process an IPC channel (it reports `ready` with process.send). */
  ipc?: boolean;
}

/** A piece that has no process of its own (the dev server's UI): shown with the pid of `processOf`. */
export interface SharedPieceSpec {
  name: string;
  kind: string;
  version?: string;
  port: number;
  processOf: string;
  probe: () => Promise<Exclude<Health, 'down'>>;
}
