import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { PieceSpec, SharedPieceSpec } from './piece';
import type { Health, PieceState } from './state';

/** Restart delays: 0.5 s, doubling, at most 5 s; back to 0.5 s once a piece stayed up for 30 s. */
const FIRST_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 5_000;
const STABLE_AFTER_MS = 30_000;
/** How long a piece gets to stop on its stop signal before SIGKILL. */
const STOP_GRACE_MS = 20_000;
const PROBE_EVERY_MS = 1_000;

interface Running {
  spec: PieceSpec;
  child: ChildProcess | undefined;
  health: Health;
  restarts: number;
  ready: boolean;
  startedAt: number;
  backoffMs: number;
  restartTimer: NodeJS.Timeout | undefined;
  probing: boolean;
}

/**
 * Owns every piece's process: spawns it (output appended to `<logDir>/<name>.log`), probes its
 * health every second, restarts it when it exits without being asked to (with backoff), and stops
 * them all in reverse order. `onChange` is called whenever a pid, a health or a restart count
 * changes (the state file is rewritten then).
 */
export class Supervisor {
  private readonly pieces = new Map<string, Running>();
  private readonly shared: SharedPieceSpec[] = [];
  private readonly sharedHealth = new Map<string, Health>();
  private stopping = false;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly logDir: string,
    private readonly onChange: () => void,
    private readonly say: (line: string) => void = () => {},
  ) {
    fs.mkdirSync(logDir, { recursive: true });
    this.timer = setInterval(() => void this.probeAll(), PROBE_EVERY_MS);
  }

  /** Starts a piece and resolves once it is healthy (rejects after its start timeout, naming its log). */
  async add(spec: PieceSpec): Promise<void> {
    const running: Running = { spec, child: undefined, health: 'starting', restarts: 0, ready: false, startedAt: 0, backoffMs: FIRST_BACKOFF_MS, restartTimer: undefined, probing: false };
    this.pieces.set(spec.name, running);
    this.spawn(running);
    await this.waitHealthy(spec.name, spec.startTimeoutMs ?? 120_000);
  }

  /** A piece without a process of its own (shown with the pid of the piece it lives in). */
  async addShared(spec: SharedPieceSpec, timeoutMs = 60_000): Promise<void> {
    this.shared.push(spec);
    this.sharedHealth.set(spec.name, 'starting');
    await this.waitHealthy(spec.name, timeoutMs);
  }

  logFile(name: string): string {
    return path.join(this.logDir, `${name}.log`);
  }

  private spawn(running: Running): void {
    const { spec } = running;
    const cmd = spec.command();
    const out = fs.openSync(this.logFile(spec.name), 'a');
    fs.writeSync(out, `\n--- ${new Date().toISOString()} topology: starting ${spec.name}${running.restarts ? ` (restart ${running.restarts})` : ''}\n`);
    const child = spawn(cmd.file, cmd.args, {
      cwd: cmd.cwd,
      env: cmd.env ?? process.env,
      stdio: spec.ipc ? ['ignore', out, out, 'ipc'] : ['ignore', out, out],
      ...(cmd.uid !== undefined ? { uid: cmd.uid, gid: cmd.gid } : {}),
    });
    fs.closeSync(out);
    running.child = child;
    running.ready = false;
    running.health = 'starting';
    running.startedAt = Date.now();
    child.on('message', (m) => {
      if (m === 'ready') running.ready = true;
    });
    child.on('error', (error) => this.say(`${spec.name}: ${error.message}`));
    child.once('exit', (code, signal) => this.exited(running, child, code, signal));
    this.onChange();
  }

  private exited(running: Running, child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (running.child !== child) return;
    running.child = undefined;
    running.health = 'down';
    this.onChange();
    if (this.stopping) return;
    const { spec } = running;
    if (Date.now() - running.startedAt > STABLE_AFTER_MS) running.backoffMs = FIRST_BACKOFF_MS;
    const delay = running.backoffMs;
    running.backoffMs = Math.min(MAX_BACKOFF_MS, running.backoffMs * 2);
    this.say(`${spec.name} exited (${signal ?? `code ${code}`}); restarting in ${delay} ms`);
    running.restartTimer = setTimeout(() => {
      running.restartTimer = undefined;
      if (this.stopping) return;
      running.restarts += 1;
      this.spawn(running);
    }, delay);
  }

  private async probeAll(): Promise<void> {
    await Promise.all([...this.pieces.values()].map((r) => this.probe(r)));
    await Promise.all(
      this.shared.map(async (s) => {
        const owner = this.pieces.get(s.processOf);
        const health: Health = owner?.child ? await s.probe().catch(() => 'starting' as const) : 'down';
        if (health !== this.sharedHealth.get(s.name)) {
          this.sharedHealth.set(s.name, health);
          this.onChange();
        }
      }),
    );
  }

  private async probe(running: Running): Promise<void> {
    if (!running.child || running.probing) return;
    running.probing = true;
    try {
      const health = await running.spec.probe(running.ready).catch(() => 'starting' as const);
      if (running.child && health !== running.health) {
        running.health = health;
        this.onChange();
      }
    } finally {
      running.probing = false;
    }
  }

  private async waitHealthy(name: string, timeoutMs: number): Promise<void> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      await this.probeAll();
      if (this.health(name) === 'ok') return;
      if (this.stopping) throw new Error(`stopped while ${name} was starting`);
      if (Date.now() > until) throw new Error(`${name} was not healthy within ${Math.round(timeoutMs / 1000)} s: see ${this.logFile(this.shared.some((s) => s.name === name) ? this.shared.find((s) => s.name === name)!.processOf : name)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  private health(name: string): Health {
    return this.pieces.get(name)?.health ?? this.sharedHealth.get(name) ?? 'down';
  }

  /** Every piece as topology.json shows it, in start order. */
  states(): PieceState[] {
    const own = [...this.pieces.values()].map(
      (r): PieceState => ({
        name: r.spec.name,
        kind: r.spec.kind,
        ...(r.spec.version ? { version: r.spec.version } : {}),
        pid: r.child?.pid ?? null,
        port: r.spec.port,
        ...(r.spec.ports ? { ports: r.spec.ports } : {}),
        health: r.health,
        restarts: r.restarts,
        log: this.logFile(r.spec.name),
      }),
    );
    const shared = this.shared.map((s): PieceState => {
      const owner = this.pieces.get(s.processOf);
      return {
        name: s.name,
        kind: s.kind,
        ...(s.version ? { version: s.version } : {}),
        pid: owner?.child?.pid ?? null,
        port: s.port,
        health: this.sharedHealth.get(s.name) ?? 'down',
        restarts: owner?.restarts ?? 0,
        log: this.logFile(s.processOf),
        process_of: s.processOf,
      };
    });
    return [...own, ...shared];
  }

  /** Stops every piece, last started first, each on its stop signal, then SIGKILL after a grace period. */
  async stopAll(): Promise<void> {
    this.stopping = true;
    clearInterval(this.timer);
    for (const running of [...this.pieces.values()].reverse()) {
      if (running.restartTimer) clearTimeout(running.restartTimer);
      const child = running.child;
      if (!child || child.exitCode !== null || child.signalCode !== null) continue;
      this.say(`stopping ${running.spec.name} (pid ${child.pid})`);
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill(running.spec.stopSignal ?? 'SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
      await exited;
      clearTimeout(killer);
    }
    this.onChange();
  }
}
