import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';

/**
 * Who sent an update, as Temporal recorded it (issue 43, Low: a raw update's audit identity was
 * whatever the sender claimed): the identity in the run's `WorkflowExecutionUpdateAccepted` event
 * (the sending client's `identity`: the CLI's and the API's `pid@host`, the Temporal UI's own).
 * The workflow cannot read it (the SDK keeps the update's metadata to itself); the run's history has it.
 */

/** The identity of update `updateId` in `history`, or null when its acceptance is not there (yet), or names none. */
export function identityOfUpdate(history: temporal.api.history.v1.IHistory, updateId: string): string | null {
  for (const event of history.events ?? []) {
    const accepted = event.workflowExecutionUpdateAcceptedEventAttributes;
    if (!accepted) continue;
    const id = accepted.acceptedRequest?.meta?.updateId ?? accepted.protocolInstanceId;
    if (id !== updateId) continue;
    const identity = accepted.acceptedRequest?.meta?.identity;
    return identity ? identity : null;
  }
  return null;
}

/** The identity of update `updateId` of one run (workflow id and run id), read from its history. */
export async function updateSenderIdentity(client: Client, run: { workflowId: string; runId: string }, updateId: string): Promise<string | null> {
  return identityOfUpdate(await client.workflow.getHandle(run.workflowId, run.runId).fetchHistory(), updateId);
}
