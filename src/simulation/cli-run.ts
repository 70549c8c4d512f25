import fs from 'node:fs';
import { freePort } from '../support/free-port';
import os from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres, type RunningPostgres } from '../persistence/embedded-postgres';
import { privateDirMode } from '../support/private-dir';
import type { SimulateOptions, SimulateSummary } from './cli-options';
import { runParallelSweep } from './cli-parallel';
import { replayCheck } from './cli-replay-check';
import { plan } from './plan';
import { rerunLine, writeReproFile } from './repro-file';
import { describeFailure, rerunShrunk, runSession, shrinkSession, stepLine, type SessionOptions } from './session';
import { createSimTemplate, type SimTemplate } from './sim-database';
import { MAX_SEED } from './cli-options';
import { testServerBinary } from './test-server-binary';



/** The PostgreSQL server the runs' databases go on: DATABASE_URL's, else an embedded one in a temporary folder. */
async function databaseServer(say: (line: string) => void, keep: boolean): Promise<{ url: string; stop(): Promise<void> }> {
  if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL, stop: async () => {} };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'simulate-pg-'));
  // Started by root, PostgreSQL runs as `postgres`, which must pass through the folder (0711, as DATA_DIR).
  fs.chmodSync(dir, privateDirMode());
  const port = await freePort();
  say(`no DATABASE_URL: an embedded PostgreSQL in ${dir} on port ${port}`);
  let server: RunningPostgres;
  try {
    server = await startEmbeddedPostgres(path.join(dir, 'data'), port, () => {}, ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off']);
  } catch (error) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    url: server.url,
    stop: async () => {
      await server.stop();
      if (keep) say(`the embedded PostgreSQL's data stays in ${dir}`);
      else fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

const seconds = (ms: number) => (ms / 1000).toFixed(1);

/** `--replay-check`: the seed's plan twice; the first step whose database state differs, or agreement. Exit 0 agree, 1 differ, 2 an engine error. */
async function runReplayCheck(options: SimulateOptions, session: SessionOptions, say: (line: string) => void): Promise<number> {
  const started = performance.now();
  let check;
  try {
    check = await replayCheck(plan(options.seed, options.steps, options.mix), session);
  } catch (error) {
    say(`seed ${options.seed}: ENGINE ERROR: ${(error as Error).message.split('\n')[0]}`);
    say(JSON.stringify({ seeds: 1, steps: 0, violations: 0, engine_errors: 1, steps_per_s: 0 }));
    return 2;
  }
  const ms = performance.now() - started;
  const d = check.firstDifference;
  if (d) {
    say(`seed ${options.seed}: the two runs' databases first differ after step ${d.n} (${d.kind}), in ${d.tables.map((t) => t.table).join(', ')}`);
    for (const t of d.tables) say(`  ${t.table}: rows ${t.rows[0]} / ${t.rows[1]}; columns that differ: ${t.columns.join(', ') || '(none alone: the rows pair them otherwise)'}`);
  } else say(`seed ${options.seed}: the two runs' databases agree after each of ${check.steps} steps`);
  if (check.traceDifferences.length > 0) say(`  the steps' outcomes differ at ${check.traceDifferences.slice(0, 20).join(', ')}${check.traceDifferences.length > 20 ? ', …' : ''}`);
  const t = check.firstTraceDifference;
  if (t) say(`  step ${t.n}, first run: ${t.first.slice(0, 200)}\n  step ${t.n}, second run: ${t.second.slice(0, 200)}`);
  say(`summary: replay check of seed ${options.seed}, ${check.steps} steps twice, ${(ms / 1000).toFixed(1)} s: ${d ? 'DIFFER' : 'agree'}`);
  say(JSON.stringify({ seeds: 1, steps: check.steps * 2, violations: d ? 1 : 0, engine_errors: 0, steps_per_s: Number(((check.steps * 2) / (ms / 1000)).toFixed(2)), replay: d ? { step: d.n, tables: d.tables.map((t) => t.table) } : 'agree' }));
  return d ? 1 : 0;
}

/**
 * `npm run simulate`: one seed, seed after seed for --hours, or --sweep N seeds; prints a line per
 * seed, the failure (seed, step, invariant and its lines), the shrinking and the reproduction's path,
 * then a summary, and last a line of JSON (SimulateSummary). --hours stops at the first violation;
 * --sweep runs every seed and counts them.
 * Answers the exit code: 0 no violation, 1 a violation, 2 the run could not happen.
 */
export async function runSimulateCli(options: SimulateOptions, say: (line: string) => void): Promise<number> {
  // A sweep runs in child processes (one unless --parallel), whose stderr shows sdk-core's panics.
  if (options.sweep !== undefined && !process.env.SIMULATE_CHILD) return runParallelSweep({ ...options, sweep: options.sweep }, say);
  say(`seed ${options.seed}${options.seedGiven ? '' : ' (random)'}; ${options.steps} steps${options.mix === 'all' ? '' : ` (${options.mix} mix)`}${options.hours ? ` per seed, for ${options.hours} h` : ''}${options.sweep ? ` per seed, ${options.sweep} seeds` : ''}${options.defect ? `; injected defect: ${options.defect}` : ''}`);
  const binary = testServerBinary();
  if ('missing' in binary) {
    say(`simulate: ${binary.missing}`);
    return 2;
  }
  process.env.TEMPORAL_TEST_SERVER_PATH = binary.path;
  let server: { url: string; stop(): Promise<void> };
  try {
    server = await databaseServer(say, options.keepDb);
  } catch (error) {
    say(`simulate: no PostgreSQL: set DATABASE_URL to a server whose user may create databases, or let the embedded one start (${(error as Error).message.split('\n')[0]})`);
    return 2;
  }
  // Every run's database (each seed's, each shrink trial's) is a copy of one template migrated here
  // once, not a database migrated again (sim-database.ts).
  let template: SimTemplate;
  try {
    template = await createSimTemplate(server.url);
  } catch (error) {
    await server.stop();
    say(`simulate: could not make the runs' template database on the PostgreSQL server (its user must be allowed to create databases): ${(error as Error).message.split('\n')[0]}`);
    return 2;
  }
  if (options.replayCheck) {
    try {
      return await runReplayCheck(options, { serverUrl: server.url, template, defect: options.defect }, say);
    } finally {
      await template.drop().catch(() => undefined);
      await server.stop();
    }
  }
  // performance.now(), not Date: the engine shifts the process's Date with workflow time while it runs.
  const started = performance.now();
  const deadline = options.hours === undefined ? undefined : started + options.hours * 3_600_000;
  const sweep = options.sweep;
  /** Another seed after this one: within --hours, or --sweep's count. */
  const more = () => (sweep !== undefined ? seeds < sweep : deadline !== undefined && performance.now() < deadline);
  let seeds = 0;
  let steps = 0;
  let violations = 0;
  let engineErrors = 0;
  try {
    let seed = options.seed;
    do {
      const thePlan = plan(seed, options.steps, options.mix);
      let result;
      try {
        result = await runSession(thePlan, {
          defect: options.defect,
          keepDb: options.keepDb,
          serverUrl: server.url,
          template,
          ...(options.verbose
            ? {
                onSlow: say,
                onChecked: (o, t) => say(`  step ${o.n + 1}/${thePlan.steps.length} ${o.kind}: ${o.result === 'skipped' ? 'skipped, ' : ''}${o.detail} (step ${Math.round(t.stepMs)} ms, settle ${Math.round(t.settleMs)} ms, checks ${Math.round(t.checkMs)} ms)`),
              }
            : {}),
        });
      } catch (error) {
        // The engine itself failed (a hang past the run's bound, a step that threw): not an invariant's
        // verdict. One seed: exit 2; with --hours, counted and the next seed runs.
        engineErrors += 1;
        seeds += 1;
        say(`seed ${seed}: ENGINE ERROR: ${(error as Error).message.split('\n')[0]}`);
        if (!more()) break;
        seed = seed >= MAX_SEED ? 1 : seed + 1;
        continue;
      }
      seeds += 1;
      steps += result.stepsRun;
      say(`seed ${seed}: ${result.stepsRun} steps in ${seconds(result.ms)} s (${(result.stepsRun / (result.ms / 1000)).toFixed(1)} steps/s): ${result.failure ? 'FAILED' : 'no violation'}${result.database ? `; database ${result.database}` : ''}`);
      if (result.failure) {
        violations += 1;
        for (const line of describeFailure(seed, result.failure)) say(line);
        if (options.shrink) {
          const invariant = result.failure.violations[0]!.invariant;
          say(`shrinking ${result.failure.step.n + 1} steps, keeping "${invariant}" failing (at most ${options.maxTrials} trials)…`);
          const shrunk = await shrinkSession(thePlan, result.failure, invariant, {
            defect: options.defect,
            serverUrl: server.url,
            template,
            maxTrials: options.maxTrials,
            onEngineError: (error) => say(`  (a trial's engine failed: ${error.message.split('\n')[0]})`),
            onTrial: (t) => say(`  trial ${t.trial}: ${t.size} step${t.size === 1 ? '' : 's'} ${t.failed ? 'still fail' : t.invariant ? `fail otherwise (${t.invariant})` : 'pass'}; smallest so far ${t.best}`),
          });
          say(`shrunk to ${shrunk.plan.steps.length} steps in ${shrunk.trials} trials, ${seconds(shrunk.ms)} s:`);
          for (const s of shrunk.plan.steps) say(`  ${s.n}: ${stepLine(s)}`);
          const reruns = await rerunShrunk(shrunk.plan, invariant, { defect: options.defect, serverUrl: server.url, template });
          say(`the shrunk plan, run again: ${rerunLine(reruns)}`);
          const file = writeReproFile(options.reproDir, {
            plan: shrunk.plan,
            step: result.failure.step,
            violation: result.failure.violations.find((v) => v.invariant === invariant)!,
            originalSteps: thePlan.steps.length,
            reruns,
          });
          say(`reproduction: ${file}`);
          if (options.defect) say(`  (the defect came from --defect, not from the code: the reproduction replays without it, so it passes)`);
        }
        if (sweep === undefined) break;
      }
      seed = seed >= MAX_SEED ? 1 : seed + 1;
    } while (more());
  } finally {
    await template.drop().catch((error: unknown) => say(`simulate: the template database ${template.name} was not dropped: ${(error as Error).message.split('\n')[0]}`));
    await server.stop();
  }
  const ms = performance.now() - started;
  say(`summary: seeds ${seeds}, steps ${steps}, violations ${violations}, engine errors ${engineErrors}, ${seconds(ms)} s (${(steps / (ms / 1000)).toFixed(1)} steps/s)`);
  const summary: SimulateSummary = { seeds, steps, violations, engine_errors: engineErrors, steps_per_s: Number((steps / (ms / 1000)).toFixed(2)) };
  say(JSON.stringify(summary));
  return violations > 0 ? 1 : engineErrors > 0 ? 2 : 0;
}
