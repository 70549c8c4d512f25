import type { Context as ActivityContext } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { recordAuditIdentity } from '../persistence/operators/audit-identity-store';
import type { Orm } from '../persistence/orm';
import { updateSenderIdentity } from '../temporal/update-identity';

/**
 * Temporal's identity of an audited update, beside the operator it claims (issue 43, Low). An
 * operator action arrives as an update; its audit row is written by an activity: `recordOperatorAction`
 * (its entry's `requestId`), or the write of the record itself (an `audit` of the request: a
 * payout's decision, a reversal), often a local activity inside the very workflow task that accepts
 * the update, before the acceptance is in the history. So once such an activity has succeeded, the
 * worker reads the update's acceptance from the run's history (src/temporal/update-identity.ts) and
 * sets the row's `temporal_identity`, retrying while the acceptance is not there yet. Best effort,
 * never awaited: it never fails or delays the activity; a worker that stops meanwhile leaves the
 * column null (a warning is logged when the lookup fails).
 */

/** Waits between lookups (ms): the acceptance lands with the workflow task's completion, normally well within the first. */
export const IDENTITY_LOOKUP_DELAYS_MS = [200, 500, 1_000, 2_000, 5_000, 10_000] as const;

/** The update id an activity's first argument carries for an audit row, or null. */
export function auditedRequestId(activityType: string, args: readonly unknown[]): string | null {
  const first = args[0] as { requestId?: unknown; audit?: { requestId?: unknown } } | null | undefined;
  if (!first || typeof first !== 'object') return null;
  const id = activityType === 'recordOperatorAction' ? first.requestId : first.audit?.requestId;
  return typeof id === 'string' && id !== '' ? id : null;
}

export interface AuditIdentityDeps {
  client: Client;
  orm: Orm;
  onError(error: unknown): void;
  sleep?: (ms: number) => Promise<void>;
}

/** Looks the update's identity up until its acceptance is in the history, then records it; false when none was found. */
export async function fillAuditIdentity(deps: AuditIdentityDeps, run: { workflowId: string; runId: string }, updateId: string): Promise<boolean> {
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  for (const delay of IDENTITY_LOOKUP_DELAYS_MS) {
    await sleep(delay);
    const identity = await updateSenderIdentity(deps.client, run, updateId);
    if (identity !== null) {
      await recordAuditIdentity(deps.orm, updateId, identity);
      return true;
    }
  }
  return false;
}

export function auditIdentityInterceptor(deps: AuditIdentityDeps): ActivityInterceptorsFactory {
  return (ctx: ActivityContext) => ({
    inbound: {
      async execute(input, next) {
        const result = await next(input);
        const run = ctx.info.workflowExecution;
        const updateId = auditedRequestId(ctx.info.activityType, input.args);
        // A started action's request id is its run id: no update, no identity to look for.
        if (run && updateId !== null && updateId !== run.runId) {
          void fillAuditIdentity(deps, { workflowId: run.workflowId, runId: run.runId }, updateId).catch(deps.onError);
        }
        return result;
      },
    },
  });
}
