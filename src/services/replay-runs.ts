import fs from 'node:fs';
import path from 'node:path';
import { IllegalStateError, type DataConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { bundleWorkflowCode, DefaultLogger, makeTelemetryFilterString, Runtime, Worker, type LogLevel, type WorkflowBundle } from '@temporalio/worker';

/**
 * Replays server histories against this checkout's workflow code, as the release gate does
 * (src/cli/replay-main.ts): the workers' code (WORKFLOW_BUNDLE_PATH when set, else workflows/ bundled here)
 * and the payload codec, one replay worker for all of them. `payments move-build` (move-build.ts)
 * moves a run only when its history replays. Light on purpose: the CLI imports it, so it does not pull
 * in the worker's activities (workers/create-worker.ts), and it resolves workflows/ only when it bundles.
 */
export interface RunToReplay {
  workflowId: string;
  runId: string;
  history: temporal.api.history.v1.IHistory;
}

export interface ReplayedRun {
  workflowId: string;
  runId: string;
  /** What diverged, on one line (the SDK names the event); null when the history replayed. */
  error: string | null;
}

const quiet = { trace() {}, debug() {}, info() {}, warn() {}, error: console.error, log() {} } as never;

/**
 * The SDK's Core logs at TEMPORAL_LOG_LEVEL, by default ERROR here, to stderr: a replay that fails is
 * reported in the command's answer, not also as Core's warning on stdout, which holds only the answer.
 * The runtime is the process's, installed once: in a process that has one already (a worker, a test
 * run of the CLI inside jest), that one's logger is kept.
 */
function quietRuntime(env: NodeJS.ProcessEnv): void {
  try {
    const level = (env.TEMPORAL_LOG_LEVEL as LogLevel) || 'ERROR';
    Runtime.install({
      logger: new DefaultLogger(level, (entry) => void process.stderr.write(`[${entry.level}] ${entry.message}\n`)),
      // Core's own logs through that logger too (by default it prints them on stdout itself).
      telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: level }), forward: {} } },
    });
  } catch (error) {
    // Installed already (by an earlier call, a worker or a test environment in this process): keep it.
    if (!(error instanceof IllegalStateError)) throw error;
  }
}

/** The workflow code by where it comes from (a WORKFLOW_BUNDLE_PATH file, or '' for workflows/ bundled here), made once each per process. */
const bundles = new Map<string, Promise<WorkflowBundle>>();
function workflowCode(env: NodeJS.ProcessEnv): Promise<WorkflowBundle> {
  const prebuilt = env.WORKFLOW_BUNDLE_PATH || '';
  let bundle = bundles.get(prebuilt);
  if (!bundle) {
    bundle = prebuilt
      ? fs.promises.readFile(prebuilt, 'utf8').then((code) => ({ code }))
      : bundleWorkflowCode({ workflowsPath: path.resolve(__dirname, '../../workflows'), logger: quiet }).then(({ code }) => ({ code }));
    // A file that could not be read is tried again next time.
    bundle.catch(() => bundles.delete(prebuilt));
    bundles.set(prebuilt, bundle);
  }
  return bundle;
}

/** Replays `runs` against the workflow code `env` names (WORKFLOW_BUNDLE_PATH, else workflows/ bundled here). */
export async function replayRuns(dataConverter: DataConverter, runs: readonly RunToReplay[], env: NodeJS.ProcessEnv): Promise<ReplayedRun[]> {
  if (runs.length === 0) return [];
  quietRuntime(env);
  const errors = new Map<string, string | null>();
  const histories = runs.map((r) => ({ workflowId: r.workflowId, history: r.history }));
  for await (const result of Worker.runReplayHistories({ workflowBundle: await workflowCode(env), dataConverter, replayName: 'move-build' }, histories)) {
    const message = result.error === undefined ? null : (result.error instanceof Error ? result.error.message : String(result.error)).split('\n')[0]!.slice(0, 500);
    errors.set(result.workflowId, message);
  }
  return runs.map((r) => ({ workflowId: r.workflowId, runId: r.runId, error: errors.has(r.workflowId) ? errors.get(r.workflowId)! : 'no replay result' }));
}
