import type { EntityManager } from '@mikro-orm/postgresql';
import { serialiseEventAround, type EventDraft } from '../../domain/event';
import { newId } from '../../support/new-id';
import type { PostingRow } from '../ledger/ledger';

export interface AppendedEvent {
  id: string;
  sequence: number;
  body: string;
}

/**
 * Issue 48: the balance rows the state change moves (net change per account, balanceDeltas), written
 * in the same statement as the counter, the postings and the event: the merchant's hot rows are held
 * for one round trip and the commit, instead of four. Taken first, in account order, so two writers
 * never wait on each other in a cycle (the counter's insert reads them all before it runs).
 */
export interface BalanceMoves {
  currency: string;
  deltas: { account: string; amount: string }[];
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
export async function appendEvent(em: EntityManager, draft: EventDraft, dedupeKey: string, postings?: EventPostings, balances?: BalanceMoves): Promise<AppendedEvent> {
  await em.flush();
  const rows = postings?.rows ?? [];
  const moves = balances?.deltas ?? [];
  const id = newId('event');
  const { before, after } = serialiseEventAround(id, draft);
  const [written] = await em.execute<{ last_sequence: string; posted: number; logged: number; moved: number }[]>(
    `with moved as (
       insert into account_balances (merchant_id, environment, currency, account, amount, updated_at)
       select ?, ?, ?, d.account, d.amount, now() from jsonb_to_recordset(?::jsonb) as d(account text, amount bigint) order by d.account
       on conflict (merchant_id, environment, currency, account)
       do update set amount = account_balances.amount + excluded.amount, updated_at = excluded.updated_at
       returning 1),
     counter as (
       insert into event_counters (merchant_id, environment, last_sequence)
       select ?, ?, 1 from (select count(*) from moved) as balances_first
       on conflict (merchant_id, environment) do update set last_sequence = event_counters.last_sequence + 1
       returning last_sequence, date_trunc('milliseconds', clock_timestamp()) as posted_at),
     posted as (
       insert into ledger_entries (transfer_id, account, kind, merchant_id, environment, currency, amount, resource_id, created_at, rail_answer_id)
       select p.transfer_id, p.account, p.kind, ?, ?, ?, p.amount, ?, counter.posted_at, ?::bigint
       from counter cross join jsonb_to_recordset(?::jsonb) as p(transfer_id text, account text, kind text, amount bigint)
       returning 1),
     logged as (
       insert into events (id, merchant_id, environment, sequence, type, resource_type, resource_id, dedupe_key, body, created_at)
       select ?, ?, ?, counter.last_sequence, ?, ?, ?, ?, ? || counter.last_sequence::text || ?, ?::timestamptz from counter
       returning 1)
     select counter.last_sequence::text as last_sequence, (select count(*) from posted)::int as posted,
            (select count(*) from logged)::int as logged, (select count(*) from moved)::int as moved
     from counter`,
    [
      draft.merchantId, draft.environment, balances?.currency ?? '', JSON.stringify(moves),
      draft.merchantId, draft.environment,
      draft.merchantId, draft.environment, postings?.currency ?? '', postings?.resourceId ?? '', postings?.railAnswerId ?? null, JSON.stringify(rows),
      id, draft.merchantId, draft.environment, draft.type, draft.resourceType, draft.resourceId, dedupeKey, before, after, draft.createdAt,
    ],
  );
  if (Number(written.posted) !== rows.length) throw new Error(`event ${dedupeKey}: ${written.posted} of ${rows.length} ledger postings written`);
  if (Number(written.moved) !== moves.length) throw new Error(`event ${dedupeKey}: ${written.moved} of ${moves.length} balance rows moved`);
  if (Number(written.logged) !== 1) throw new Error(`event ${dedupeKey}: not written`);
  const sequence = Number(written.last_sequence);
  return { id, sequence, body: `${before}${sequence}${after}` };
}
