import type { Client } from '@temporalio/client';
import { subscribes } from '../domain/webhook-endpoint';
import type { Environment } from '../domain/environment';
import type { Orm } from '../persistence/orm';
import { TEXT_ARRAY } from '../persistence/sql-values';
import type { Logger } from '../support/logger';
import { startDeliveryWorkflow } from '../temporal/delivery-start';
import { fanOutDeliveryId } from './delivery-id';

export interface RelayDeps {
  orm: Orm;
  client: Client;
  taskQueue: string;
  retryScheduleMs: number[];
  log: Logger;
}

const BATCH = 100;
// Long enough for one pass; short, so events a crashed relay claimed are taken over soon (redoing a
// pass is harmless: every step is idempotent).
const LEASE_SECONDS = 15;
const START_CONCURRENCY = 16;

interface ClaimedEvent {
  id: string;
  merchant_id: string;
  environment: Environment;
  type: string;
}

interface EndpointRow {
  id: string;
  status: 'active' | 'disabled';
  subscribed_events: string[];
}

async function inBatches<T>(items: T[], size: number, fn: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(fn));
}

/**
 * One pass of the transactional outbox: claims events not yet fanned out (a lease, so relays in
 * several workers share the work), writes one delivery per subscribed endpoint of the same merchant
 * and environment (id fixed by event and endpoint), starts a workflow for each pending one, and only
 * then marks the events dispatched. A crash at any point leaves the events claimable again once the
 * lease ends; the rerun inserts nothing twice and starts no workflow twice. Returns events handled.
 */
export async function relayOnce(deps: RelayDeps): Promise<number> {
  const conn = deps.orm.em.getConnection();
  const events = await conn.execute<ClaimedEvent[]>(
    `update events set dispatch_lease_until = now() + make_interval(secs => ?)
     where id in (select id from events where dispatched_at is null and (dispatch_lease_until is null or dispatch_lease_until < now())
                  order by created_at limit ? for update skip locked)
     returning id, merchant_id, environment, type`,
    [LEASE_SECONDS, BATCH],
  );
  if (events.length === 0) return 0;

  const endpointsByScope = new Map<string, EndpointRow[]>();
  const rows: unknown[][] = [];
  for (const event of events) {
    const scope = `${event.merchant_id}|${event.environment}`;
    if (!endpointsByScope.has(scope)) {
      endpointsByScope.set(
        scope,
        await conn.execute<EndpointRow[]>(
          `select id, status, subscribed_events from webhook_endpoints where merchant_id = ? and environment = ? and deleted_at is null`,
          [event.merchant_id, event.environment],
        ),
      );
    }
    for (const endpoint of endpointsByScope.get(scope)!) {
      if (!subscribes(endpoint.subscribed_events, event.type)) continue;
      const pending = endpoint.status === 'active';
      rows.push([fanOutDeliveryId(event.id, endpoint.id), endpoint.id, event.id, event.merchant_id, event.environment, event.type,
        pending ? 'pending' : 'skipped', pending ? null : 'endpoint disabled']);
    }
  }
  if (rows.length > 0) {
    await conn.execute(
      `insert into webhook_deliveries (id, endpoint_id, event_id, merchant_id, environment, event_type, status, last_error, created_at, updated_at,
         completed_at)
       select v.*, date_trunc('milliseconds', now()), now(), case when v.status = 'skipped' then now() end
       from (values ${rows.map(() => '(?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}) as v(id, endpoint_id, event_id, merchant_id, environment, event_type,
         status, last_error)
       on conflict do nothing`,
      rows.flat(),
    );
  }
  const ids = events.map((e) => e.id);
  const toStart = await conn.execute<{ id: string; endpoint_id: string; event_id: string; merchant_id: string; environment: Environment; event_type: string }[]>(
    `select id, endpoint_id, event_id, merchant_id, environment, event_type from webhook_deliveries
     where event_id = any(${TEXT_ARRAY}) and replay_of is null and status = 'pending' and attempt_count = 0`,
    [JSON.stringify(ids)],
  );
  await inBatches(toStart, START_CONCURRENCY, (d) =>
    startDeliveryWorkflow(deps.client, deps.taskQueue, {
      deliveryId: d.id,
      eventId: d.event_id,
      eventType: d.event_type,
      endpointId: d.endpoint_id,
      merchantId: d.merchant_id,
      environment: d.environment,
      retryScheduleMs: deps.retryScheduleMs,
    }),
  );
  await conn.execute(`update events set dispatched_at = now(), dispatch_lease_until = null where id = any(${TEXT_ARRAY})`, [JSON.stringify(ids)]);
  return events.length;
}

export interface OutboxRelay {
  /** Look now instead of at the next poll. */
  wake(): void;
  stop(): Promise<void>;
}

/** Runs `relayOnce` until stopped: back to back while there is a backlog, else every `pollMs`. */
export function startOutboxRelay(deps: RelayDeps, pollMs: number): OutboxRelay {
  let stopped = false;
  let wake: () => void = () => {};
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  const loop = (async () => {
    while (!stopped) {
      try {
        const handled = await relayOnce(deps);
        if (handled < BATCH) await pause(pollMs);
      } catch (error) {
        deps.log.error({ err: error }, 'webhook outbox relay pass failed; retrying');
        await pause(Math.max(pollMs, 1000));
      }
    }
  })();
  return {
    wake: () => wake(),
    async stop() {
      stopped = true;
      wake();
      await loop;
    },
  };
}
