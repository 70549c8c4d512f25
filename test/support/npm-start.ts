/**
 * `npm start` (src/main.ts) run as a user runs it: its own embedded PostgreSQL and Temporal dev server
 * in a new folder, on free ports. Used by the tests that start, load, look at and stop the whole thing
 * (npm-start-shutdown, temporal-ui).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../src/support/free-port';
import { temporalCliPath } from './binaries';

const ROOT = path.resolve(__dirname, '../..');

export interface StartedMain {
  child: ChildProcess;
  /** The run's folder (its data); removed by `cleanUp`. */
  parent: string;
  ports: { pg: number; temporal: number; sandbox: number; ui: number; codec: number };
  /** The environment it runs with: a CLI run with it reaches the same PostgreSQL and Temporal. */
  env: NodeJS.ProcessEnv;
  output: () => { stdout: string; stderr: string };
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface StartMainOptions {
  /** Use this port for the dev server (a test that occupies it first). */
  temporalPort?: number;
  /** Start the Temporal UI and the codec endpoint it decodes payloads with (off by default). */
  ui?: boolean;
  env?: Record<string, string>;
  /**
   * Bundle the workflow code as a user's `npm start` does (webpack, seconds of CPU). By default it
   * takes the suite's bundle (WORKFLOW_BUNDLE_PATH, test/support/suite-setup.ts), the same code.
   */
  ownBundle?: boolean;
}

export async function startMain(options: StartMainOptions = {}): Promise<StartedMain> {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'payments-npm-start-'));
  if (process.getuid?.() === 0) fs.chmodSync(parent, 0o777);
  const ports = {
    pg: await freePort(),
    temporal: options.temporalPort ?? (await freePort()),
    sandbox: await freePort(),
    ui: options.ui ? await freePort() : 0,
    codec: options.ui ? await freePort() : 0,
  };
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    DATA_DIR: path.join(parent, 'data'),
    PORT: String(ports.sandbox),
    LIVE_PORT: String(await freePort()),
    WEB_PORT: String(await freePort()),
    DOCS_PORT: String(await freePort()),
    EMBEDDED_PG_PORT: String(ports.pg),
    TEMPORAL_DEV_PORT: String(ports.temporal),
    TEMPORAL_UI_PORT: String(ports.ui),
    METRICS_PORT: '0',
    WORKER_METRICS_PORT: '0',
    CODEC_PORT: String(ports.codec),
    TEMPORAL_CLI_PATH: temporalCliPath(),
    LOG_LEVEL: 'info',
    ...(process.env.WORKFLOW_BUNDLE_PATH && !options.ownBundle ? { WORKFLOW_BUNDLE_PATH: process.env.WORKFLOW_BUNDLE_PATH } : {}),
    ...options.env,
  };
  // Its own process group, so that a failed test can kill what it started (worker, dev server, PostgreSQL) too.
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return { child, parent, ports, env, output: () => ({ stdout, stderr }), exited };
}

/** Resolves once `npm start` printed its banner (ready), or rejects with its output when it exited first. */
export async function ready(s: StartedMain, timeoutMs = 100_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!s.output().stdout.includes('Sandbox API')) {
    if (s.child.exitCode !== null || s.child.signalCode !== null) throw new Error(`npm start exited before it was ready:\n${s.output().stdout}\n${s.output().stderr}`);
    if (Date.now() > until) throw new Error(`npm start not ready after ${timeoutMs} ms:\n${s.output().stdout}\n${s.output().stderr}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The demo merchant's sandbox key, from the banner. */
export function demoKey(s: StartedMain): string {
  const key = /Sandbox key\s+(\S+)/.exec(s.output().stdout)?.[1];
  if (!key) throw new Error(`npm start printed no demo sandbox key:\n${s.output().stdout}`);
  return key;
}

/**
 * Stops what is left of a run (SIGTERM, as a service manager stops it; after 30 s its whole process
 * group is killed) and removes its folder.
 */
export async function cleanUp(s: StartedMain): Promise<void> {
  if (s.child.exitCode === null && s.child.signalCode === null) {
    s.child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const stopped = await Promise.race([s.exited.then(() => true), new Promise<false>((r) => (timer = setTimeout(() => r(false), 30_000)))]);
    clearTimeout(timer);
    if (!stopped) {
      process.kill(-s.child.pid!, 'SIGKILL');
      await s.exited;
    }
  }
  fs.rmSync(s.parent, { recursive: true, force: true, maxRetries: 3 });
}

export function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Whether `port` stops listening within `ms` (a process that just exited may take a moment to release it). */
export async function closedWithin(port: number, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (!(await listening(port))) return true;
    await new Promise((r) => setTimeout(r, 250));
  }
  return !(await listening(port));
}

/** pino lines at error level or above (50+), parsed from the output. */
export function errorLines(text: string): Array<{ level: number; msg: string }> {
  return text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => {
      try {
        return JSON.parse(l) as { level: number; msg: string };
      } catch {
        return { level: 0, msg: '' };
      }
    })
    .filter((l) => l.level >= 50);
}

/**
 * stderr lines that mention an error, except the Temporal dev server's own lines stamped before
 * `since` (its `time=…` is local time). While it comes up the dev server may log one
 * `GetSystemInfo … Frontend is not healthy yet` error, answering the SDK's first readiness poll
 * (seen once in CI); that is start-up, not stopping. Lines without a stamp always count.
 */
export function stderrErrorsSince(stderr: string, since: Date): string[] {
  return stderr
    .split('\n')
    .filter((l) => /error/i.test(l))
    .filter((l) => {
      const stamp = /^time=(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?)\s/.exec(l);
      return !stamp || new Date(stamp[1]!).getTime() >= since.getTime();
    });
}
