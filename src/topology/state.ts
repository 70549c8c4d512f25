import fs from 'node:fs';
import path from 'node:path';

export type Health = 'ok' | 'starting' | 'down';

/** One supervised piece as topology.json shows it. */
export interface PieceState {
  name: string;
  /** temporal: `server` (the real server) or `dev` (the CLI's dev server); postgres: `postgres`; the rest: `node`, `go`. */
  kind: string;
  version?: string;
  /** The process to signal for this piece (PostgreSQL: the postmaster; temporal: the server itself); null while not running. */
  pid: number | null;
  port: number;
  /** Other ports of the piece (an API's live and web listeners, …). */
  ports?: Record<string, number>;
  health: Health;
  restarts: number;
  log: string;
  /** Set when the piece shares its process with another (the dev server's UI). */
  process_of?: string;
}

/** DIR/topology.json: see /docs/deployment.md and src/topology/index.ts. */
export interface TopologyState {
  supervisor: { pid: number; started_at: string };
  mode: 'server' | 'dev';
  dir: string;
  temporal_address: string;
  temporal_namespace: string;
  database_url: string;
  temporal_database_url: string | null;
  public: { sandbox: string; live: string; web: string; temporal_ui: string };
  /** Set once every piece was healthy together (the moment `up` returns). */
  ready: boolean;
  /** Set when start-up failed: what went wrong, in one line. */
  error?: string;
  pieces: PieceState[];
}

export const STATE_FILE = 'topology.json';

export function statePath(dir: string): string {
  return path.join(dir, STATE_FILE);
}

/** The state file, or undefined when there is none (never started, or stopped). */
export function readTopologyState(dir: string): TopologyState | undefined {
  try {
    return JSON.parse(fs.readFileSync(statePath(dir), 'utf8')) as TopologyState;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Written whole, then renamed: a reader never sees half a file. */
export function writeTopologyState(dir: string, state: TopologyState): void {
  const file = statePath(dir);
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(state, null, 2) + '\n', { mode: 0o600 });
  fs.renameSync(tmp, file);
}

/** Whether a process with this pid exists (signal 0). */
export function isAlive(pid: number | null | undefined): boolean {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
