import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { SEARCH_ATTRIBUTE_DEFINITIONS } from '../domain/search-attributes';
import { indexedValueType } from '../temporal/connection';

/** Retries `work` every 500 ms until it succeeds or `timeoutMs` passed (then its last error, with `what`). */
async function retrying<T>(what: string, timeoutMs: number, work: () => Promise<T>): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await work();
    } catch (error) {
      if (Date.now() > until) throw new Error(`${what} did not succeed within ${Math.round(timeoutMs / 1000)} s: ${(error as Error).message}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

/**
 * On the real server (which starts with no namespace): the namespace (72 h retention, as
 * docker-compose.yml's temporal-namespace), then our search attributes (src/domain/search-attributes.ts).
 * Both are left alone when they exist. The dev server gets them from its flags.
 */
export async function ensureNamespace(address: string, namespace: string): Promise<void> {
  const connection = await Connection.connect({ address });
  try {
    const exists = await connection.workflowService.describeNamespace({ namespace }).then(
      () => true,
      (error: { code?: number }) => {
        if (error.code === 5) return false; // NOT_FOUND
        throw error;
      },
    );
    if (!exists) await connection.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('72h') });
    // The frontend sees a new namespace once its namespace cache refreshes (about 10 s).
    await retrying(`adding the search attributes to namespace ${namespace}`, 90_000, async () => {
      const existing = await connection.operatorService.listSearchAttributes({ namespace });
      const known = new Set(Object.keys(existing.customAttributes ?? {}));
      const missing = SEARCH_ATTRIBUTE_DEFINITIONS.filter((d) => !known.has(d.name));
      if (missing.length > 0) await connection.operatorService.addSearchAttributes({ namespace, searchAttributes: Object.fromEntries(missing.map((d) => [d.name, indexedValueType(d.type)])) });
    });
  } finally {
    await connection.close();
  }
}

/**
 * Makes the workers' build the deployment's current version (until then a versioned worker gets no
 * task), once both workers registered it on every task queue; a no-op when it is current already.
 */
export async function makeBuildCurrent(address: string, namespace: string, deployment: { deploymentName: string; buildId: string }): Promise<void> {
  const connection = await Connection.connect({ address });
  try {
    await retrying(`making build ${deployment.buildId} of ${deployment.deploymentName} current`, 90_000, async () => {
      const described = await connection.workflowService.describeWorkerDeployment({ namespace, deploymentName: deployment.deploymentName }).catch(() => undefined);
      const current = described?.workerDeploymentInfo?.routingConfig?.currentDeploymentVersion?.buildId;
      if (current === deployment.buildId) return;
      await connection.workflowService.setWorkerDeploymentCurrentVersion({ namespace, deploymentName: deployment.deploymentName, buildId: deployment.buildId, identity: 'npm run topology' });
    });
  } finally {
    await connection.close();
  }
}
