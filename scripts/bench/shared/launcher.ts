import { fork } from 'node:child_process';
import readline from 'node:readline';

/** Message the measuring process sends its launcher: the Markdown report. */
export interface ReportMessage {
  report: string;
}

export const isReportMessage = (m: unknown): m is ReportMessage => typeof m === 'object' && m !== null && typeof (m as ReportMessage).report === 'string';

/** pino's JSON lines below warn (the API's access log, the worker's start-up lines). */
function isQuietLog(line: string): boolean {
  if (!line.startsWith('{')) return false;
  try {
    const level = (JSON.parse(line) as { level?: unknown }).level;
    return typeof level === 'number' && level < 40;
  } catch {
    return false;
  }
}

/**
 * Runs the measurement in a child process (`entry` with BENCH_INNER=1) whose stdout is a pipe: the
 * API and worker log to stdout as under `npm start` (the worker process inherits it), so their
 * warnings and errors are passed on to stderr and their info lines are counted, and stdout carries
 * only the report, which the child sends over IPC. Exits with the child's code.
 */
export function launch(entry: string): void {
  const child = fork(entry, process.argv.slice(2), { env: { ...process.env, BENCH_INNER: '1' }, stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  let report: string | undefined;
  let quiet = 0;
  child.on('message', (m) => {
    if (isReportMessage(m)) report = m.report;
  });
  readline.createInterface({ input: child.stdout! }).on('line', (line) => {
    if (isQuietLog(line)) quiet++;
    else process.stderr.write(`${line}\n`);
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => {
    if (report !== undefined) process.stdout.write(`${report}\n`);
    process.stderr.write(`bench: ${quiet} info-level log lines of the API and worker were not shown\n`);
    process.exit(code ?? (signal ? 2 : 1));
  });
}

/** Sends a bench child's Markdown report to the launcher over IPC (or prints it when run alone). */
export function sendReport(report: string): Promise<void> {
  const message: ReportMessage = { report };
  if (!process.send) {
    console.log(report);
    return Promise.resolve();
  }
  return new Promise((resolve) => process.send!(message, undefined, {}, () => resolve()));
}

/**
 * Runs a bench child's `main` and exits when it is done: what the servers' clients leave open
 * (pools, timers) would otherwise keep the process, and the launcher prints the report when it exits.
 */
export function runBenchChild(main: () => Promise<void>): void {
  main()
    .then(() => process.exit(0))
    .catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
}
