import { eventsNewestFirst } from '../../persistence/event-store';
import type { Orm } from '../../persistence/orm';
import type { Caller } from '../../services/context';
import type { Payment, PaymentKind } from './payments-data';

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
  /** False when the search stopped at SCAN_LIMIT events before it reached the payment's first event. */
  complete: boolean;
}

const PAGE = 100;
/** How many of the merchant's events one detail page reads at most, newest first. */
export const SCAN_LIMIT = 5_000;

/**
 * The event a payment's log begins with: written in the transaction that created it, so no event
 * about it has a smaller sequence (src/persistence/*-create-store.ts, the settlement sweep).
 */
function firstEventType(kind: PaymentKind, heldAtAcceptance: boolean): string {
  switch (kind) {
    case 'charge':
      return 'transaction.created';
    case 'payout':
      return heldAtAcceptance ? 'payout.held_for_review' : 'payout.initiated';
    case 'refund':
      return 'refund.created';
    case 'dispute':
      return 'dispute.opened';
    case 'settlement':
      return 'settlement.created';
  }
}

/**
 * A payment's timeline from the event log of its merchant and environment, through the store
 * GET /v1/events reads (eventsNewestFirst): the events whose `resource_id` is the payment, read
 * newest first until its first event, the start of the log, or SCAN_LIMIT events. The store has no
 * query by resource (src/persistence/event-store.ts), so this walks the log's pages.
 */
export async function paymentTimeline(orm: Orm, caller: Caller, payment: Payment): Promise<Timeline> {
  const id = payment.view.id;
  const first = firstEventType(payment.kind, payment.heldAtAcceptance ?? false);
  const entries: TimelineEntry[] = [];
  let before: number | null = null;
  for (let read = 0; read < SCAN_LIMIT; read += PAGE) {
    const page = await eventsNewestFirst(orm, caller.merchantId, caller.environment, before, PAGE);
    let reachedFirst = false;
    for (const body of page.bodies) {
      const event = JSON.parse(body) as { id: string; type: string; resource_id: string; sequence: number; created_at: string };
      if (event.resource_id !== id) continue;
      entries.push({ id: event.id, type: event.type, sequence: event.sequence, createdAt: event.created_at });
      if (event.type === first) reachedFirst = true;
    }
    if (reachedFirst || !page.hasMore || page.lastSequence === null) return { entries: entries.sort((a, b) => a.sequence - b.sequence), complete: true };
    before = page.lastSequence;
  }
  return { entries: entries.sort((a, b) => a.sequence - b.sequence), complete: false };
}
