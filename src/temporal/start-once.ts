import { WorkflowExecutionAlreadyStartedError, type WorkflowOptions } from '@temporalio/client';
import type { Environment } from '../domain/environment';
import { SA } from '../domain/search-attributes';

/**
 * The start options of a workflow whose id is never run twice (a notification, a recovery: the id
 * is the record's), with the merchant's and environment's search attributes.
 */
export function onceStartOptions(merchantId: string, environment: Environment): Pick<WorkflowOptions, 'workflowIdReusePolicy' | 'workflowIdConflictPolicy' | 'typedSearchAttributes'> {
  return {
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
    workflowIdConflictPolicy: 'FAIL',
    typedSearchAttributes: [
      { key: SA.MerchantId, value: merchantId },
      { key: SA.Environment, value: environment },
    ],
  };
}

/** Runs a start whose workflow may exist already (running or closed): `already_started` then, not an error. */
export async function startedOnce(start: () => Promise<unknown>): Promise<'started' | 'already_started'> {
  try {
    await start();
    return 'started';
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    return 'already_started';
  }
}
