import type { ChangeActor } from '../../domain/operator-action';
import type { DeliveryRecord } from '../../domain/webhook-delivery';
import { NOTHING_WAITING, type EndpointWaiting } from '../../domain/webhook-endpoint';
import type { DeliveryOrder, FifoNext } from '../../domain/webhook-fifo';
import { ENVIRONMENTS, type Environment } from '../../domain/environment';
import { recordChange } from '../operators/change-audit';
import type { Orm } from '../orm';
import { iso, TEXT_ARRAY } from '../sql-values';
import { DELIVERY_COLUMNS, deliveryFromRow, type DeliveryRow } from './webhook-delivery-store';
import type { Owner } from './webhook-endpoint-store';

/**
 * Issue 49, ordered delivery (src/domain/webhook-fifo.ts): the queue of a FIFO endpoint is its
 * deliveries with a `fifo_sequence` that are still pending, in that order (index
 * webhook_deliveries_fifo_waiting).
 */

/**
 * The endpoint's setting and the first `limit` deliveries waiting in its queue, in order, up to the
 * first gap: none at or after the sequence of an event of its merchant and environment that it
 * subscribes to and that the outbox relay has not fanned out to it yet (undispatched, no delivery to
 * this endpoint). Such an event gets its delivery later, below the ones already written: an event
 * claimed by a relay killed before its fan-out (taken over once its lease ends), a pass slower than
 * the one beside it (PASSES_AT_ONCE, or another worker's relay), or one left out of a claim's batch.
 * The run sends what is before the gap and waits; the relay's wake-up for the late delivery
 * (signal-with-start) sends the rest.
 */
export async function nextFifoWaiting(orm: Orm, endpointId: string, limit: number): Promise<FifoNext> {
  const conn = orm.em.getConnection();
  const [endpoint] = await conn.execute<{ delivery_order: DeliveryOrder; deleted: boolean }[]>(
    `select delivery_order, deleted_at is not null as deleted from webhook_endpoints where id = ?`,
    [endpointId],
  );
  // The gap: read in the partial index events_undispatched_scope (the scope's events not yet
  // fanned out, normally a few), each probed in webhook_deliveries_fanout.
  const rows = await conn.execute<{ id: string; event_id: string; event_type: string; fifo_sequence: string; attempt_count: number }[]>(
    `select id, event_id, event_type, fifo_sequence, attempt_count from webhook_deliveries
     where endpoint_id = ? and fifo_sequence is not null and status = 'pending'
       and fifo_sequence < coalesce((
         select min(e.sequence) from webhook_endpoints w join events e on e.merchant_id = w.merchant_id and e.environment = w.environment
         where w.id = ? and w.deleted_at is null and e.dispatched_at is null
           and (cardinality(w.subscribed_events) = 0 or e.type = any(w.subscribed_events))
           and not exists (select 1 from webhook_deliveries f where f.event_id = e.id and f.endpoint_id = w.id and f.replay_of is null)), 9223372036854775807)
     order by fifo_sequence limit ?`,
    [endpointId, endpointId, limit],
  );
  return {
    order: !endpoint || endpoint.deleted ? 'deleted' : endpoint.delivery_order,
    waiting: rows.map((r) => ({ deliveryId: r.id, eventId: r.event_id, eventType: r.event_type, sequence: Number(r.fifo_sequence), attemptCount: r.attempt_count })),
  };
}

/** How many deliveries wait in each endpoint's FIFO queue, and since when (absent endpoints: nothing waits). */
export async function fifoWaitingOf(orm: Orm, endpointIds: readonly string[]): Promise<Map<string, EndpointWaiting>> {
  const waiting = new Map<string, EndpointWaiting>(endpointIds.map((id) => [id, NOTHING_WAITING]));
  if (endpointIds.length === 0) return waiting;
  const rows = await orm.em.getConnection().execute<{ endpoint_id: string; n: string; since: Date }[]>(
    `select endpoint_id, count(*) as n, min(created_at) as since from webhook_deliveries
     where endpoint_id = any(${TEXT_ARRAY}) and fifo_sequence is not null and status = 'pending' group by endpoint_id`,
    [JSON.stringify(endpointIds)],
  );
  for (const r of rows) waiting.set(r.endpoint_id, { count: Number(r.n), since: iso(r.since) });
  return waiting;
}

export type SkipOutcome =
  | { kind: 'skipped'; delivery: DeliveryRecord }
  /** Skipped before (a repeated request): nothing written again. */
  | { kind: 'already_skipped'; delivery: DeliveryRecord }
  /** Delivered (or ended) before the skip: nothing written. */
  | { kind: 'not_waiting'; delivery: DeliveryRecord }
  | { kind: 'none' };

export const SKIPPED_BY_MERCHANT = 'skipped by the merchant (POST /v1/webhook-endpoints/{id}/skip): the events behind it go on';

/**
 * Skips the delivery of event `sequence` held in `endpointId`'s FIFO queue (the caller's endpoint:
 * the service checked), with its `webhook_delivery.skip` audit row, in one transaction. Only a
 * pending one moves (`pending -> skipped`, named in the update): one delivered meanwhile stays as
 * it is and is answered `not_waiting`.
 */
export async function skipFifoDelivery(orm: Orm, owner: Owner, endpointId: string, sequence: number, actor: ChangeActor): Promise<SkipOutcome> {
  return orm.em.fork().transactional(async (em) => {
    const [row] = await em.execute<DeliveryRow[]>(
      `select ${DELIVERY_COLUMNS} from webhook_deliveries
       where endpoint_id = ? and merchant_id = ? and environment = ? and fifo_sequence = ? for update`,
      [endpointId, owner.merchantId, owner.environment, sequence],
    );
    if (!row) return { kind: 'none' } as const;
    const before = deliveryFromRow(row);
    if (before.status === 'skipped') return { kind: 'already_skipped', delivery: before } as const;
    if (before.status !== 'pending') return { kind: 'not_waiting', delivery: before } as const;
    const [updated] = await em.execute<DeliveryRow[]>(
      `update webhook_deliveries set status = 'skipped', last_error = ?, next_attempt_at = null, completed_at = now(), updated_at = now()
       where id = ? and status = 'pending' returning ${DELIVERY_COLUMNS}`,
      [SKIPPED_BY_MERCHANT, before.id],
    );
    const after = deliveryFromRow(updated);
    await recordChange(em, actor, {
      action: 'webhook_delivery.skip',
      subjectId: after.id,
      merchantId: owner.merchantId,
      environment: owner.environment,
      before: { status: before.status, endpoint_id: endpointId, event_id: before.eventId, sequence, attempt_count: before.attemptCount },
      after: { status: after.status, last_error: after.lastError },
    });
    return { kind: 'skipped', delivery: after } as const;
  });
}

/**
 * FIFO endpoints whose queue looks unattended: its first waiting delivery was never attempted and
 * has waited `olderThanSeconds`, or its retry is that much overdue. The relay's sweep wakes (or
 * starts) each one's workflow: a start or a wake-up that was lost. A head waiting out its retry delay
 * is not one of them. Bounded by `limit`.
 */
export async function fifoQueuesToWake(
  orm: Orm,
  olderThanSeconds: number,
  limit: number,
  environments: readonly Environment[] = ENVIRONMENTS,
): Promise<{ endpoint_id: string; merchant_id: string; environment: Environment }[]> {
  return orm.em.getConnection().execute(
    `select endpoint_id, merchant_id, environment from (
       select distinct on (endpoint_id) endpoint_id, merchant_id, environment, attempt_count, updated_at, next_attempt_at
       from webhook_deliveries
       where fifo_sequence is not null and status = 'pending' and environment = any(${TEXT_ARRAY})
       order by endpoint_id, fifo_sequence) head
     where (attempt_count = 0 and updated_at < now() - make_interval(secs => ?)) or next_attempt_at < now() - make_interval(secs => ?)
     limit ?`,
    [JSON.stringify(environments), olderThanSeconds, olderThanSeconds, limit],
  );
}
