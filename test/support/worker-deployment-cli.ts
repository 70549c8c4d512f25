import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { temporalCliPath } from './binaries';

const run = promisify(execFile);

/**
 * `temporal worker deployment …` against this jest worker's dev server (TEST_TEMPORAL_ADDRESS), the
 * commands docs/testing.md "Releasing a new build" gives an operator. Rejects with the CLI's own
 * message when it exits non-zero.
 */
export async function deploymentCli(...args: string[]): Promise<string> {
  const address = process.env.TEST_TEMPORAL_ADDRESS;
  if (!address) throw new Error('TEST_TEMPORAL_ADDRESS is not set: run through jest (global setup starts the servers)');
  try {
    const { stdout } = await run(temporalCliPath(), ['worker', 'deployment', ...args, '--address', address, '--namespace', 'default'], { timeout: 30_000 });
    return stdout;
  } catch (error) {
    const { stderr, stdout, message } = error as { stderr?: string; stdout?: string; message: string };
    throw new Error(`temporal worker deployment ${args.join(' ')}: ${(stderr || stdout || message).trim()}`);
  }
}

/**
 * Fails, naming what is missing, when the server has no Worker Deployments (Temporal server 1.29.1
 * or newer; older servers need them switched on with dynamic config).
 */
export async function requireWorkerDeployments(serverVersion: string): Promise<void> {
  try {
    await deploymentCli('list');
  } catch (error) {
    throw new Error(
      `the Temporal dev server (server ${serverVersion || 'version unknown'}) does not answer Worker Deployment requests, which this test needs: ` +
        'Worker Deployments need Temporal server 1.29.1 or newer (an older server: start it with --dynamic-config-value ' +
        'system.enableDeploymentVersions=true --dynamic-config-value frontend.workerVersioningWorkflowAPIs=true). ' +
        `The CLI answered: ${(error as Error).message}`,
    );
  }
}

export interface DeploymentRouting {
  current: string | null;
  ramping: string | null;
  rampingPercentage: number;
  /** Build id → drainage status (`unspecified`, `draining`, `drained`). */
  drainage: Record<string, string>;
}

/** `describe --name … -o json`, reduced to the routing and each version's drainage. */
export async function describeDeployment(name: string): Promise<DeploymentRouting> {
  const json = JSON.parse(await deploymentCli('describe', '--name', name, '-o', 'json')) as {
    routingConfig?: { currentVersionBuildID?: string; rampingVersionBuildID?: string; rampingVersionPercentage?: number };
    versionSummaries?: Array<{ BuildID: string; drainageStatus?: string }>;
  };
  const routing = json.routingConfig ?? {};
  return {
    current: routing.currentVersionBuildID || null,
    ramping: routing.rampingVersionBuildID || null,
    rampingPercentage: routing.rampingVersionPercentage ?? 0,
    drainage: Object.fromEntries((json.versionSummaries ?? []).map((v) => [v.BuildID, v.drainageStatus ?? 'unspecified'])),
  };
}

/** The task queues (`<name> <type>`) the version's workers poll, from `describe-version -o json`; [] before its first poll. */
export async function versionTaskQueues(deploymentName: string, buildId: string): Promise<string[]> {
  const text = await deploymentCli('describe-version', '--deployment-name', deploymentName, '--build-id', buildId, '-o', 'json').catch(() => undefined);
  if (!text) return [];
  const json = JSON.parse(text) as { taskQueuesInfos?: Array<{ name: string; type: string }> };
  return (json.taskQueuesInfos ?? []).map((q) => `${q.name} ${q.type}`).sort();
}
