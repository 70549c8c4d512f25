import type { EntityManager } from '@mikro-orm/postgresql';
import { serialiseEvent, type EventDraft } from '../domain/event';
import { newId } from '../support/new-id';
import { Event } from './entities';

export interface AppendedEvent {
  id: string;
  sequence: number;
  body: string;
}

/**
 * Appends an event inside the caller's transaction, as the LAST writes before its commit:
 *
 *   1. flush whatever the caller has staged (projection, ledger entries), so none of it is written
 *      while the counter is held;
 *   2. take the next sequence from the per-merchant-and-environment counter row (`event_counters`
 *      upsert ... returning): this locks the counter row until commit;
 *   3. insert the event row. Its trigger (migration 20261123000004) queues `NOTIFY payments_outbox`
 *      when the merchant has an active webhook endpoint; PostgreSQL sends it at commit, waking the
 *      webhook outbox relay.
 *
 * The counter row is the hottest row there is (every state change of the merchant in that environment
 * goes through it), so it is held only for the event insert and the commit. Sequences stay gapless
 * and unique: the increment and the event commit or roll back together, and the next transaction
 * waits for the row. `dedupeKey` is unique, so the same business fact can never be logged twice (a
 * second writer of the same key waits for the first at step 3, then fails, rolling back its increment).
 * Hot rows the caller writes itself (balance rows) must be written before calling this.
 */
export async function appendEvent(em: EntityManager, draft: EventDraft, dedupeKey: string): Promise<AppendedEvent> {
  await em.flush();
  const rows = await em.execute<{ last_sequence: string }[]>(
    `insert into event_counters (merchant_id, environment, last_sequence) values (?, ?, 1)
     on conflict (merchant_id, environment) do update set last_sequence = event_counters.last_sequence + 1
     returning last_sequence`,
    [draft.merchantId, draft.environment],
  );
  const sequence = Number(rows[0].last_sequence);
  const id = newId('event');
  const body = serialiseEvent(id, sequence, draft);
  await em.insert(Event, {
    id,
    merchantId: draft.merchantId,
    environment: draft.environment,
    sequence,
    type: draft.type,
    resourceType: draft.resourceType,
    resourceId: draft.resourceId,
    dedupeKey,
    body,
    createdAt: new Date(draft.createdAt),
  });
  return { id, sequence, body };
}
