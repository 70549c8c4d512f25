import { rfc3339Ms } from '../domain/charge-lifetime';
import { ApiError } from '../domain/errors';
import type { ChangeActor } from '../domain/operator-action';
import { recoverSinceProblem, recoveryJson, type RecoveryRecord } from '../domain/webhook-recovery';
import { claimIdempotencyKey, completeIdempotencyKey, unlockIdempotencyKey } from '../persistence/idempotency-store';
import type { Orm } from '../persistence/orm';
import { findEndpoint, type Owner } from '../persistence/webhooks/webhook-endpoint-store';
import { insertRecovery, markRecoveryStarted } from '../persistence/webhooks/webhook-recovery-store';
import { DEFAULT_EVENTS_WALK_WINDOW_MS } from '../runtime/retention-settings';
import { newId } from '../support/new-id';
import type { TemporalHandle } from '../temporal/connection';
import { startRecoveryWorkflow } from '../temporal/recovery-start';
import { requestHash } from './create-charge';
import { withTemporalDeadline } from './dependency-unavailable';
import { notFound } from './webhook-endpoints';

/** What a recovery needs: the API's ServiceDeps, or what the CLI builds from its configuration. */
export interface RecoveryDeps {
  orm: Orm;
  temporal: TemporalHandle;
  /** TEMPORAL_TASK_QUEUE (the base). */
  taskQueue: string;
  temporalDeadlineMs?: number;
  /** EVENTS_WALK_WINDOW: how far back `since` may reach (GET /v1/events' window). */
  eventsWalkWindowMs?: number;
  webhooks: { retryScheduleMs: number[] };
}

const windowText = (ms: number) => (ms % 86_400_000 === 0 ? `${ms / 86_400_000} days` : `${Math.round(ms / 3_600_000)} hours`);

/**
 * POST /v1/webhook-endpoints/{id}/recover (issue 49), the portal's "Recover since" and `cli webhooks
 * recover`: checks the endpoint (the owner's: else 404 `not_found`), `since` (an RFC 3339 instant the
 * schema accepted; in the future or before the events' walkable window: 422
 * `recover_since_out_of_range`) and that the endpoint is active (409 `endpoint_disabled`), in that
 * order and before anything is written; then writes the recovery and its `webhook_endpoint.recover`
 * audit row in one transaction and starts its workflow (workflow id = recovery id). A start that fails
 * or times out leaves the recovery written: the relay's sweep starts it (and a retry with the same
 * Idempotency-Key answers the same recovery).
 */
export async function recoverEndpoint(deps: RecoveryDeps, owner: Owner, endpointId: string, since: string, actor: ChangeActor, id: string = newId('webhookRecovery'), nowMs = Date.now()): Promise<RecoveryRecord> {
  const endpoint = await findEndpoint(deps.orm, owner, endpointId);
  if (!endpoint) throw notFound(endpointId);
  const sinceMs = rfc3339Ms(since);
  const windowMs = deps.eventsWalkWindowMs ?? DEFAULT_EVENTS_WALK_WINDOW_MS;
  const problem = recoverSinceProblem(sinceMs, nowMs, windowMs, windowText(windowMs));
  if (problem) throw new ApiError('recover_since_out_of_range', `${problem} Nothing was recovered.`, { param: 'since' });
  if (endpoint.status !== 'active') {
    throw new ApiError('endpoint_disabled', `Endpoint ${endpoint.id} is disabled: enable it first (PATCH {"status":"active"}, or Enable in the portal), then recover.`);
  }
  const recovery = await insertRecovery(deps.orm, owner, endpoint.id, id, new Date(sinceMs).toISOString(), actor);
  await withTemporalDeadline(deps.temporal, deps.temporalDeadlineMs, () =>
    startRecoveryWorkflow(deps.temporal.client, {
      recoveryId: recovery.id,
      merchantId: owner.merchantId,
      environment: owner.environment,
      endpointId: endpoint.id,
      baseQueue: deps.taskQueue,
      retryScheduleMs: deps.webhooks.retryScheduleMs,
    }),
  );
  await markRecoveryStarted(deps.orm, recovery.id);
  return recovery;
}

/**
 * The recover request with an optional Idempotency-Key: the same key answers the first recovery
 * (its answer as first given) instead of starting a second one.
 */
export async function recoverEndpointOnce(deps: RecoveryDeps, owner: Owner, endpointId: string, since: string, key: string | undefined, actor: ChangeActor): Promise<{ body: string; replayed: boolean }> {
  if (!key) return { body: JSON.stringify(recoveryJson(await recoverEndpoint(deps, owner, endpointId, since, actor))), replayed: false };
  const scope = { merchantId: owner.merchantId, environment: owner.environment, key };
  const claim = await claimIdempotencyKey(deps.orm, scope, requestHash('POST', `/v1/webhook-endpoints/${endpointId}/recover`, { since }), newId('webhookRecovery'));
  if (claim.kind === 'replay') return { body: claim.body, replayed: true };
  if (claim.kind === 'in_use') throw new ApiError('idempotency_key_in_use', 'A request with this Idempotency-Key is still being processed; retry shortly.');
  if (claim.kind === 'reused') throw new ApiError('idempotency_key_reused', 'This Idempotency-Key was used with a different request.');
  try {
    const recovery = await recoverEndpoint(deps, owner, endpointId, since, actor, claim.resourceId);
    const stored = await completeIdempotencyKey(deps.orm, scope, 202, JSON.stringify(recoveryJson(recovery)));
    return { body: stored.body, replayed: false };
  } catch (error) {
    await unlockIdempotencyKey(deps.orm, scope).catch(() => undefined);
    throw error;
  }
}
