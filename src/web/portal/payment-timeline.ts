import { eventsOfResource } from '../../persistence/events/event-store';
import type { Orm } from '../../persistence/orm';
import type { Caller } from '../../services/context';
import type { Payment } from './payments-data';

/** One entry of a payment's timeline: an event of the log about it (as GET /v1/events serves it). */
export interface TimelineEntry {
  id: string;
  type: string;
  sequence: number;
  createdAt: string;
}

export interface Timeline {
  /** Oldest first (by sequence). */
  entries: TimelineEntry[];
  /** False when the payment has more than TIMELINE_LIMIT events (the page says so). */
  complete: boolean;
}

/** The most events one timeline shows (a payment has a handful; a long dispute or a disabled-and-replayed endpoint a few more). */
export const TIMELINE_LIMIT = 500;

/**
 * A payment's timeline: the events of its merchant and environment whose `resource_id` is the
 * payment, oldest first, read from the same `events` rows GET /v1/events serves (eventsOfResource,
 * index events_resource). A refund's or dispute's events are on its own page, not its charge's.
 */
export async function paymentTimeline(orm: Orm, caller: Caller, payment: Payment): Promise<Timeline> {
  const found = await eventsOfResource(orm, caller.merchantId, caller.environment, payment.view.id, TIMELINE_LIMIT);
  const entries = found.bodies.map((body) => {
    const event = JSON.parse(body) as { id: string; type: string; sequence: number; created_at: string };
    return { id: event.id, type: event.type, sequence: event.sequence, createdAt: event.created_at };
  });
  return { entries, complete: !found.hasMore };
}
