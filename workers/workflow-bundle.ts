import fs from 'node:fs';
import { bundleWorkflowCode, DefaultLogger, Runtime, type LogLevel, type WorkflowBundle } from '@temporalio/worker';
import { IllegalStateError } from '@temporalio/common';

/*
 * The SDK's runtime of this process and the workflow bundle: what a Worker, a replay and a test
 * environment need before any workflow runs. Kept apart from create-worker.ts, which loads every
 * activity (the ORM, the HTTP clients, the mailer): a replay or a time-skipping test imports this one.
 */

/**
 * The workflow code's entry, resolved when it is bundled (not at import): a worker given a prebuilt
 * bundle (WORKFLOW_BUNDLE_PATH) never needs `workflows/`, and may itself run from a bundle elsewhere.
 */
const workflowsPath = (): string => require.resolve('../workflows');

let bundle: Promise<WorkflowBundle> | undefined;
let runtimeInstalled = false;

/**
 * SDK log level for this process (TEMPORAL_LOG_LEVEL, default WARN) and, when given, the SDK's
 * Prometheus exporter address (worker task latencies, workflow and activity outcomes, and the
 * payments_charge_transitions counter); settable once, before any worker.
 */
export function installRuntime(level: LogLevel = (process.env.TEMPORAL_LOG_LEVEL as LogLevel) || 'WARN', metricsAddress?: string): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  try {
    Runtime.install({
      logger: new DefaultLogger(level),
      ...(metricsAddress ? { telemetryOptions: { metrics: { prometheus: { bindAddress: metricsAddress } } } } : {}),
    });
  } catch (error) {
    // Already created (e.g. by a dev server or test environment in this process): keep that runtime.
    if (!(error instanceof IllegalStateError)) throw error;
  }
}

const quietBundlerLogger = { trace() {}, debug() {}, info() {}, warn() {}, error: console.error, log() {} } as never;

/**
 * The workflow code, bundled once per process (webpack takes seconds of CPU). With WORKFLOW_BUNDLE_PATH
 * set, the file there is used instead of bundling: the test suite's global setup bundles once and hands
 * that file to every jest worker and worker child (a stale file would run old workflow code, so nothing
 * else sets it).
 */
export function workflowBundle(): Promise<WorkflowBundle> {
  const prebuilt = process.env.WORKFLOW_BUNDLE_PATH;
  bundle ??= prebuilt ? readWorkflowBundle(prebuilt) : bundleWorkflowCode({ workflowsPath: workflowsPath(), logger: quietBundlerLogger });
  return bundle;
}

/** Bundles the workflow code into `file` (for WORKFLOW_BUNDLE_PATH). */
export async function writeWorkflowBundle(file: string): Promise<void> {
  const { code } = await bundleWorkflowCode({ workflowsPath: workflowsPath(), logger: quietBundlerLogger });
  await fs.promises.writeFile(file, code);
}

async function readWorkflowBundle(file: string): Promise<WorkflowBundle> {
  return { code: await fs.promises.readFile(file, 'utf8') };
}
