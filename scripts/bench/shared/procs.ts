import fs from 'node:fs';

/**
 * CPU seconds and peak memory of this process and the servers it started (Linux /proc): the
 * Temporal dev server (`temporal`), PostgreSQL (`postgres`, postmaster plus backends) and, when the
 * worker runs as its own process (`startWorkerProcess`), that process and its children (`worker`).
 * For the topology (its pieces are the supervisor's children, not this process's), the process trees
 * are named by `CpuRoots` instead.
 */
export interface CpuSnapshot {
  /** This process: the API, the load generator, the bare worker, and in-process workers. */
  node: number;
  /** The forked worker process tree (0 when the worker runs in this process); the topology: both workers. */
  worker: number;
  /** The dev server; the topology: the Temporal server and its UI server. */
  temporal: number;
  /** The variant's PostgreSQL; the topology: the service's and Temporal's. */
  postgres: number;
  /** The topology only: both API processes, the proxy, the fake partner and the supervisor (0 elsewhere). */
  apis: number;
  /** Busy CPU seconds of the whole machine (/proc/stat), to see saturation and other load. */
  machine: number;
}

const TICKS_PER_SECOND = 100;

interface Proc {
  pid: number;
  comm: string;
  ppid: number;
  cpuTicks: number;
}

function readProc(pid: number): Proc | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = stat.lastIndexOf(')');
    const comm = stat.slice(stat.indexOf('(') + 1, close);
    const f = stat.slice(close + 2).split(' '); // f[0] = state (field 3)
    // utime, stime, cutime, cstime are fields 14–17; cutime/cstime keep the CPU of exited backends.
    const cpuTicks = Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
    return { pid, comm, ppid: Number(f[1]), cpuTicks };
  } catch {
    return undefined;
  }
}

function allProcs(): Proc[] {
  if (!fs.existsSync('/proc/self/stat')) return [];
  return fs
    .readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map((d) => readProc(Number(d)))
    .filter((p): p is Proc => !!p);
}

/** Every live descendant of `root` (not `root` itself). */
function descendantsOf(all: Proc[], root: number): Proc[] {
  const mine = new Set([root]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of all) {
      if (!mine.has(p.pid) && mine.has(p.ppid)) {
        mine.add(p.pid);
        grew = true;
      }
    }
  }
  return all.filter((p) => p.pid !== root && mine.has(p.pid));
}

function machineBusy(): number {
  try {
    const [, ...f] = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).map(Number);
    // user nice system idle iowait irq softirq steal: busy = all but idle and iowait.
    return (f[0] + f[1] + f[2] + f[5] + f[6] + f[7]) / TICKS_PER_SECOND;
  } catch {
    return NaN;
  }
}

/** The topology's process trees by column (the root pids of its pieces, from its state file). */
export interface CpuRoots {
  worker: number[];
  temporal: number[];
  postgres: number[];
  apis: number[];
  /** Counted into `apis` without their children (the supervisor, whose children are every piece). */
  apisOwnOnly: number[];
}

/** What to count apart from this process: the forked worker's pid, or the topology's process trees. */
export type CpuTarget = number | CpuRoots | undefined;

function treeTicks(all: Proc[], root: number): { pids: number[]; seconds: number } {
  const self = all.find((p) => p.pid === root);
  const tree = self ? [self, ...descendantsOf(all, root)] : [];
  return { pids: tree.map((p) => p.pid), seconds: tree.reduce((sum, p) => sum + p.cpuTicks, 0) / TICKS_PER_SECOND };
}

/** CPU seconds of each named set of process trees (e.g. the topology's two PostgreSQL servers apart). */
export function treeCpuSeconds(trees: Record<string, number[]>): Record<string, number> {
  const all = allProcs();
  return Object.fromEntries(Object.entries(trees).map(([name, roots]) => [name, roots.reduce((sum, root) => sum + treeTicks(all, root).seconds, 0)]));
}

/** `target`: the forked worker process, whose tree is counted apart from the servers; or the topology's trees. */
export function cpuSnapshot(target?: CpuTarget): CpuSnapshot {
  const u = process.cpuUsage();
  const snap: CpuSnapshot = { node: (u.user + u.system) / 1e6, worker: 0, temporal: 0, postgres: 0, apis: 0, machine: machineBusy() };
  const all = allProcs();
  if (typeof target === 'object') {
    for (const column of ['worker', 'temporal', 'postgres', 'apis'] as const) for (const root of target[column]) snap[column] += treeTicks(all, root).seconds;
    for (const pid of target.apisOwnOnly) snap.apis += (all.find((p) => p.pid === pid)?.cpuTicks ?? 0) / TICKS_PER_SECOND;
    return snap;
  }
  const workerPid = target;
  const workerTree = new Set<number>();
  if (workerPid !== undefined) {
    const root = all.find((p) => p.pid === workerPid);
    for (const p of root ? [root, ...descendantsOf(all, workerPid)] : []) {
      workerTree.add(p.pid);
      snap.worker += p.cpuTicks / TICKS_PER_SECOND;
    }
  }
  for (const p of descendantsOf(all, process.pid)) {
    if (workerTree.has(p.pid)) continue;
    if (p.comm === 'temporal' || p.comm === 'postgres') snap[p.comm] += p.cpuTicks / TICKS_PER_SECOND;
  }
  return snap;
}

export function cpuDelta(from: CpuSnapshot, to: CpuSnapshot): CpuSnapshot {
  return {
    node: to.node - from.node,
    worker: to.worker - from.worker,
    temporal: to.temporal - from.temporal,
    postgres: to.postgres - from.postgres,
    apis: to.apis - from.apis,
    machine: to.machine - from.machine,
  };
}

function vmHwmMiB(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

export interface PeakRss {
  /** This process (MiB; over the whole run, so it carries over from earlier variants). */
  node: number;
  /** The forked worker process, when there is one; the topology: both workers together. */
  worker: number;
  temporal: number;
}

/** Peak resident set sizes in MiB. */
export function peakRss(target?: CpuTarget): PeakRss {
  if (typeof target === 'object') {
    const sum = (pids: number[]) => (pids.length ? pids.reduce((a, pid) => a + vmHwmMiB(pid), 0) : NaN);
    return { node: process.resourceUsage().maxRSS / 1024, worker: sum(target.worker), temporal: sum(target.temporal.slice(0, 1)) };
  }
  const workerPid = target;
  const temporal = descendantsOf(allProcs(), process.pid).find((p) => p.comm === 'temporal');
  return {
    node: process.resourceUsage().maxRSS / 1024,
    worker: workerPid !== undefined ? vmHwmMiB(workerPid) : NaN,
    temporal: temporal ? vmHwmMiB(temporal.pid) : NaN,
  };
}
