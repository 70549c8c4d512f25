import fs from 'node:fs';
import { readTopologyState, type PieceState, type TopologyState } from '../topology/state';

/** What the chaos run needs of the topology it runs on: its state file, pieces and public ports. */
export class TopologyView {
  constructor(readonly dir: string) {}

  state(): TopologyState {
    const state = readTopologyState(this.dir);
    if (!state) throw new Error(`no topology is up in ${this.dir} (no topology.json): run \`npm run topology -- up\` first, or pass --up`);
    return state;
  }

  piece(name: string): PieceState {
    const piece = this.state().pieces.find((p) => p.name === name);
    if (!piece) throw new Error(`the topology in ${this.dir} has no piece named ${name}`);
    return piece;
  }

  hasPiece(name: string): boolean {
    return this.state().pieces.some((p) => p.name === name);
  }

  /** The sandbox and live API ports (the proxy's). */
  ports(): { sandbox: number; live: number } {
    const { public: urls } = this.state();
    return { sandbox: Number(new URL(urls.sandbox).port), live: Number(new URL(urls.live).port) };
  }

  /** Pieces whose health is not ok, by name. */
  unhealthy(): string[] {
    return this.state()
      .pieces.filter((p) => p.health !== 'ok')
      .map((p) => `${p.name}:${p.health}`);
  }
}

/** A process and every process below it (a PostgreSQL postmaster and its backends), from /proc. */
export function processTree(pid: number): number[] {
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    const p = out[i]!;
    let tasks: string[] = [];
    try {
      tasks = fs.readdirSync(`/proc/${p}/task`);
    } catch {
      continue;
    }
    for (const task of tasks) {
      let children = '';
      try {
        children = fs.readFileSync(`/proc/${p}/task/${task}/children`, 'utf8');
      } catch {
        continue;
      }
      for (const c of children.split(/\s+/).filter(Boolean)) if (!out.includes(Number(c))) out.push(Number(c));
    }
  }
  return out;
}

/** Sends a signal; false when the process is gone. */
export function signal(pid: number, sig: NodeJS.Signals): boolean {
  try {
    process.kill(pid, sig);
    return true;
  } catch {
    return false;
  }
}
