import { IllegalStateError } from '@temporalio/common';
import { DefaultLogger, makeTelemetryFilterString, Runtime, type LogEntry } from '@temporalio/worker';

/**
 * SDK faults counted (issue 44: "SDK panics counted and failing the run"). The simulation's runtime
 * forwards sdk-core's own log lines to a logger that counts the ones where the SDK says it broke: a
 * Rust panic, or "This is an SDK bug" (the zero-cache eviction of sdk-rust#1482 logged it 224 times
 * in one run before the engine kept its cache in every plan). A run that met one is an engine error
 * (session.ts), whatever the invariants say: the engine ran on an SDK that had lost track of a workflow.
 *
 * The runtime is the process's and is installed once, before the first engine's test server; a
 * process whose runtime was made by something else first (another harness in the same jest worker)
 * counts nothing, and `installSimRuntime` says so.
 */

const SDK_FAULT = /This is an SDK bug|panicked at|\bpanic\b/i;

const faults: string[] = [];
let seen = 0;
let counting: boolean | undefined;

/** Installs the counting runtime (once per process); false when the process's runtime already existed. */
export function installSimRuntime(): boolean {
  if (counting !== undefined) return counting;
  try {
    Runtime.install({
      logger: new DefaultLogger('WARN', (entry: LogEntry) => {
        seen += 1;
        if (SDK_FAULT.test(entry.message)) faults.push(entry.message.split('\n')[0]!);
        // As before: the SDK's errors printed, its warnings (one per worker started) not.
        if (entry.level === 'ERROR') process.stderr.write(`sdk: ${entry.message}\n`);
      }),
      telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'WARN', other: 'ERROR' }), forward: {} } },
    });
    counting = true;
  } catch (error) {
    if (!(error instanceof IllegalStateError)) throw error;
    counting = false;
  }
  return counting;
}

/** How many SDK faults this process has logged so far (a mark: `sdkFaultsSince(mark)`). */
export function sdkFaultMark(): number {
  flush();
  return faults.length;
}

/** How many log lines (warnings and errors, sdk-core's forwarded ones among them) the counting runtime has seen. */
export function sdkLinesSeen(): number {
  flush();
  return seen;
}

/** The SDK faults logged since `mark`. */
export function sdkFaultsSince(mark: number): string[] {
  flush();
  return faults.slice(mark);
}

/** Forwarded lines wait in the runtime's buffer (to put core's and the process's lines in order): flushed before counting. */
function flush(): void {
  if (counting) Runtime.instance().flushLogs();
}
