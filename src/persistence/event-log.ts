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
 * Appends an event inside the caller's transaction. The sequence comes from a per-account counter
 * row, locked until commit, so sequences have no gap and no duplicate; `dedupeKey` is unique, so the
 * same business fact can never be logged twice.
 */
export async function appendEvent(em: EntityManager, draft: EventDraft, dedupeKey: string): Promise<AppendedEvent> {
  const rows = await em.execute<{ last_sequence: string }[]>(
    `insert into event_counters (merchant_id, environment, last_sequence) values (?, ?, 1)
     on conflict (merchant_id, environment) do update set last_sequence = event_counters.last_sequence + 1
     returning last_sequence`,
    [draft.merchantId, draft.environment],
  );
  const sequence = Number(rows[0].last_sequence);
  const id = newId('event');
  const body = serialiseEvent(id, sequence, draft);
  em.create(Event, {
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
