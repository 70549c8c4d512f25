import type { EntityManager } from '@mikro-orm/postgresql';
import { serialiseEvent, type EventDraft } from '../../domain/event';
import { newId } from '../../support/new-id';
import { Event } from '../entities';
import type { PostingRow } from '../ledger/ledger';

export interface AppendedEvent {
  id: string;
  sequence: number;
  body: string;
}

/** The ledger rows of the state change the event records (merchant and environment: the event's). */
export interface EventPostings {
  currency: string;
  resourceId: string;
  rows: PostingRow[];
  /** The partner answer (rail_answers.id) a live payment's end rests on, kept on each posting (issue 43); none for any other change. */
  railAnswerId?: string | null;
}

/**
 * Appends an event inside the caller's transaction, as the LAST writes before its commit, with the
 * state change's ledger postings (`postings`, none for an event that moves no money):
 *
 *   1. flush whatever the caller has staged (the projection), so none of it is written while the
 *      counter is held;
 *   2. one statement: take the next sequence from the per-merchant-and-environment counter row
 *      (`event_counters` upsert ... returning; this locks the counter row until commit), read the
 *      database's clock once the row is held (`clock_timestamp()`, to the millisecond, the precision
 *      of every timestamp the API shows and of its cursors), and insert the postings dated with it;
 *   3. insert the event row. Its trigger (migration 20261123000004) queues `NOTIFY payments_outbox`
 *      when the merchant has an active webhook endpoint; PostgreSQL sends it at commit, waking the
 *      webhook outbox relay.
 *
 * The counter row is the hottest row there is (every state change of the merchant in that environment
 * goes through it), so it is held only for the postings and event inserts and the commit. Sequences
 * stay gapless and unique: the increment and the event commit or roll back together, and the next
 * transaction waits for the row. `dedupeKey` is unique, so the same business fact can never be logged
 * twice (a second writer of the same key waits for the first at step 3, then fails, rolling back its
 * increment). Hot rows the caller writes itself (balance rows) must be written before calling this.
 *
 * Why the postings are dated here (issue 18, review finding 4): a posting dated before its
 * transaction held its locks (the workflow's time, or `now()`, which is the transaction's start) can
 * commit after a posting dated later, e.g. a capture that waited behind a settlement sweep's lock on
 * the available balance row, or a step an operator retried days after its workflow took its time;
 * a merchant who syncs balance transactions with `created_after` then misses it. Every transaction
 * that posts for a merchant and environment holds this counter row from here to its commit, so they
 * commit in the order they take it, which is the order of their sequences and of these timestamps:
 * a posting committed after another of the same merchant and environment (whatever its balance,
 * account or currency) is never dated earlier. Equal dates are possible (two commits within one
 * millisecond), and the guarantee holds as long as the database server's clock does not step
 * backwards. Postings written before this rule keep their dates.
 */
export async function appendEvent(em: EntityManager, draft: EventDraft, dedupeKey: string, postings?: EventPostings): Promise<AppendedEvent> {
  await em.flush();
  const rows = postings?.rows ?? [];
  const [counter] = await em.execute<{ last_sequence: string; posted: number }[]>(
    `with counter as (
       insert into event_counters (merchant_id, environment, last_sequence) values (?, ?, 1)
       on conflict (merchant_id, environment) do update set last_sequence = event_counters.last_sequence + 1
       returning last_sequence, date_trunc('milliseconds', clock_timestamp()) as posted_at),
     posted as (
       insert into ledger_entries (transfer_id, account, kind, merchant_id, environment, currency, amount, resource_id, created_at, rail_answer_id)
       select p.transfer_id, p.account, p.kind, ?, ?, ?, p.amount, ?, counter.posted_at, ?::bigint
       from counter cross join jsonb_to_recordset(?::jsonb) as p(transfer_id text, account text, kind text, amount bigint)
       returning 1)
     select counter.last_sequence::text as last_sequence, (select count(*) from posted)::int as posted from counter`,
    [draft.merchantId, draft.environment, draft.merchantId, draft.environment, postings?.currency ?? '', postings?.resourceId ?? '', postings?.railAnswerId ?? null, JSON.stringify(rows)],
  );
  if (Number(counter.posted) !== rows.length) throw new Error(`event ${dedupeKey}: ${counter.posted} of ${rows.length} ledger postings written`);
  const sequence = Number(counter.last_sequence);
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
