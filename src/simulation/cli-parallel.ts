import { spawn } from 'node:child_process';
import readline from 'node:readline';
import type { SimulateOptions, SimulateSummary } from './cli-options';

/**
 * `npm run simulate -- --sweep N --parallel P` (issue 44): the N seeds split into P blocks of
 * consecutive seeds, each run by a process of its own (this script again, with `--sweep` of its
 * block), each with its own PostgreSQL and test servers. Their lines are printed as they come,
 * prefixed `[i]`; the summary and the last line of JSON add theirs up (steps per second over the
 * whole wall time), with the Rust panics sdk-core printed on the children's stderr: `sdk_panics`
 * (each an engine error: the run fails) and `sdk_known_panics` (KNOWN_SHUTDOWN_PANIC, counted and
 * reported; docs/simulation.md "SDK faults" says why). Answers the exit code: 1 when any block found a violation, else 2 when any had an
 * engine error or did not end with its summary, else 0.
 */
export async function runParallelSweep(options: SimulateOptions & { sweep: number; parallel: number }, say: (line: string) => void): Promise<number> {
  const blocks = splitSeeds(options.seed, options.sweep, options.parallel);
  say(`seeds ${options.seed} to ${options.seed + options.sweep - 1}, ${options.steps} steps each, in ${blocks.length === 1 ? 'a process' : `${blocks.length} processes`} of their own`);
  const started = performance.now();
  const results = await Promise.all(blocks.map((block, i) => runBlock(i, block, options, say)));
  const total: SimulateSummary & { sdk_panics: number; sdk_known_panics: number } = { seeds: 0, steps: 0, violations: 0, engine_errors: 0, steps_per_s: 0, sdk_panics: 0, sdk_known_panics: 0 };
  let incomplete = 0;
  for (const { summary: r, panics } of results) {
    total.sdk_panics += panics.other;
    total.sdk_known_panics += panics.known;
    // A panic other than the known one fails the run: counted as an engine error of its block.
    total.engine_errors += panics.other;
    if (!r) {
      incomplete += 1;
      continue;
    }
    total.seeds += r.seeds;
    total.steps += r.steps;
    total.violations += r.violations;
    total.engine_errors += r.engine_errors;
  }
  const ms = performance.now() - started;
  total.steps_per_s = Number((total.steps / (ms / 1000)).toFixed(2));
  say(`summary: seeds ${total.seeds}, steps ${total.steps}, violations ${total.violations}, engine errors ${total.engine_errors} (SDK panics among them ${total.sdk_panics}), known SDK panics at a worker's stop ${total.sdk_known_panics}${incomplete ? `, ${incomplete} process(es) ended without a summary` : ''}, ${(ms / 1000).toFixed(1)} s (${total.steps_per_s} steps/s over ${blocks.length} process${blocks.length === 1 ? '' : 'es'})`);
  say(JSON.stringify(total));
  return total.violations > 0 ? 1 : total.engine_errors > 0 || incomplete > 0 ? 2 : 0;
}

/** N seeds from `first` in at most `parallel` blocks of consecutive seeds, as even as can be. */
export function splitSeeds(first: number, count: number, parallel: number): Array<{ seed: number; count: number }> {
  const blocks: Array<{ seed: number; count: number }> = [];
  const n = Math.min(parallel, count);
  let seed = first;
  for (let i = 0; i < n; i++) {
    const size = Math.floor(count / n) + (i < count % n ? 1 : 0);
    blocks.push({ seed, count: size });
    seed += size;
  }
  return blocks;
}

/**
 * A Rust panic in sdk-core, as its panic hook writes it to the process's stderr (`thread '…' (id)
 * panicked at …`): not a log line, so only a parent reading the child's stderr can count it.
 */
export const SDK_PANIC_LINE = /^thread '.*' (\(\d+\) )?panicked at /;

/**
 * The one panic known to be harmless, counted apart (`sdk_known_panics`): sdk-core 1.24.0's stale
 * local-activity start-to-close timer (TimeoutBag::mark_started does not abort the timer of an
 * earlier attempt: temporalio/sdk-rust#1454, the fix proposed in #1465) firing after its worker's
 * local-activity manager was dropped, that is after a worker stopped; it panics inside that timer's
 * tokio task only (`receive half not dropped`). Any other panic fails the run (an engine error).
 */
export const KNOWN_SHUTDOWN_PANIC = /panicked at sdk-core\/crates\/sdk-core\/src\/worker\/activities\/local_activities\.rs:997:/;

/** One block's process; answers its last line of JSON (null when it ended without one) and the SDK panics it printed. */
function runBlock(i: number, block: { seed: number; count: number }, options: SimulateOptions, say: (line: string) => void): Promise<{ summary: SimulateSummary | null; panics: { known: number; other: number } }> {
  const args = ['--seed', String(block.seed), '--sweep', String(block.count), '--steps', String(options.steps), '--mix', options.mix, '--max-trials', String(options.maxTrials), '--repro-dir', options.reproDir];
  if (!options.shrink) args.push('--no-shrink');
  if (options.keepDb) args.push('--keep-db');
  if (options.verbose) args.push('--verbose');
  if (options.defect) args.push('--defect', options.defect);
  // This script again, under the same loader (tsx's flags are in execArgv).
  const child = spawn(process.execPath, [...process.execArgv, process.argv[1]!, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, SIMULATE_CHILD: '1' } });
  let last: SimulateSummary | null = null;
  const panics = { known: 0, other: 0 };
  for (const stream of [child.stdout, child.stderr]) {
    readline.createInterface({ input: stream }).on('line', (line) => {
      if (line.startsWith('{"seeds"')) last = JSON.parse(line) as SimulateSummary;
      else {
        if (SDK_PANIC_LINE.test(line)) panics[KNOWN_SHUTDOWN_PANIC.test(line) ? 'known' : 'other'] += 1;
        say(`[${i}] ${line}`);
      }
    });
  }
  return new Promise((resolve) => child.on('close', () => resolve({ summary: last, panics })));
}
