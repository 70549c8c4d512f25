import type { Environment } from '../../domain/environment';
import type { Orm } from '../orm';
import { TEXT_ARRAY } from '../sql-values';

/** An event the webhook outbox relay claimed. */
export interface ClaimedEvent {
  id: string;
  merchant_id: string;
  environment: Environment;
  type: string;
  /** bigint, as the driver gives it: the event's place in its merchant's environment (a FIFO delivery's order). */
  sequence: string;
  dispatch_lease_until: Date;
}

/** Where the round robin stands: the last merchant and environment (scope) a claim served. */
export interface ClaimCursor {
  merchantId: string;
  environment: string;
}

/** An undispatched event no pass holds: never leased, or its lease has ended. */
const claimable = (t = ''): string => `${t}dispatched_at is null and (${t}dispatch_lease_until is null or ${t}dispatch_lease_until < now())`;

/**
 * One leg of the walk over the scopes with claimable events, in index order, one descent each (a
 * loose index scan of events_undispatched_scope: the first claimable entry after the previous scope;
 * leased events on the way are passed over, at most the batches of the passes in flight). `m` counts
 * the scopes of the served environments; the walk stops at the batch's worth of them.
 * `wrapped`, the walk from the start of the keys up to the cursor, runs only when `after` found too few.
 */
const walk = (name: string, lower: string, upper: string): string => `
  ${name} as (
    (select merchant_id, environment, (environment = any(${TEXT_ARRAY}))::int as m from events
     where ${claimable()} and ${lower} ${upper}
     order by merchant_id, environment, created_at, id limit 1)
    union all
    select next.merchant_id, next.environment, w.m + (next.environment = any(${TEXT_ARRAY}))::int from ${name} w cross join lateral (
      select merchant_id, environment from events
      where ${claimable()} and (merchant_id, environment) > (w.merchant_id, w.environment) ${upper}
      order by merchant_id, environment, created_at, id limit 1) next
    where w.m < ?)`;

/**
 * The fair claim's choice (issue 9's fairness, issue 34's cost): a round robin over the merchants and
 * environments (scopes) with claimable events, in key order, starting after the scope the previous
 * claim ended on (the cursor) and wrapping round. Each of the next `batch` scopes gives its oldest
 * claimable event, so a merchant with a flood of events takes no more than its turn of a pass and
 * every merchant with a backlog is served once every (scopes ÷ batch) claims. With fewer scopes than
 * the batch, every scope takes part and the claim goes on by turns: each one's second event, and so
 * on (a scope takes at most batch + 1 − scopes). Within a scope, oldest first.
 *
 * Every step reads the partial index events_undispatched_scope (merchant_id, environment, created_at,
 * id) where dispatched_at is null: at most 2 × batch scope descents per environment served, and batch
 * short ranges, whatever the backlog and however many merchants have one. (Before issue 34 the claim
 * numbered every undispatched event with row_number() over (partition by merchant_id, environment) and
 * sorted them all: seconds at 3,000,000 events, past the worker's statement timeout.)
 *
 * Columns: the event id and its place in the claim (`pos`: by turn, then the scope's place in the round
 * robin). The next claim starts after the scope of the last one, so with fewer scopes than the batch
 * the turn that does not go round all of them starts, next time, where this one stopped.
 */
const fairChoice = `
  with recursive
  ${walk('after', '(merchant_id, environment) > (?, ?)', '')},
  ${walk('wrapped', 'coalesce((select max(m) from after), 0) < ?', 'and (merchant_id, environment) <= (?, ?)')},
  ring as (
    select merchant_id, environment, m as ord from after where environment = any(${TEXT_ARRAY})
    union all
    select merchant_id, environment, ? + m from wrapped where environment = any(${TEXT_ARRAY})),
  top as (select merchant_id, environment, ord from ring order by ord limit ?),
  per as (select ? + 1 - count(*) as n from top)
  select turns.id, row_number() over (order by turns.turn, top.ord) as pos from top cross join per cross join lateral (
    select e.id, row_number() over (order by e.created_at, e.id) as turn from events e
    where e.merchant_id = top.merchant_id and e.environment = top.environment and ${claimable('e.')}
    order by e.created_at, e.id limit per.n) turns
  order by turns.turn, top.ord limit ?`;

/**
 * The claim itself: leases the chosen events for `leaseSeconds` and answers each with its place in the
 * claim. Parameters: fairClaimParams. `for update skip locked`, so passes of several relays never
 * hold the same event, and a lease, so a crashed pass's events are taken over once it ends. The lease
 * has millisecond precision, so a pass that fails can give back exactly its own claim. The chosen ids
 * are locked and updated by primary key (`= any(array(…))`), never by a scan of the table.
 */
export const FAIR_CLAIM_SQL = `with chosen as materialized (${fairChoice})
  update events set dispatch_lease_until = date_trunc('milliseconds', now() + make_interval(secs => ?))
  from chosen
  where events.id = chosen.id
    and events.id = any(array(select id from events where id = any(array(select id from chosen)) and ${claimable()} for update skip locked))
  returning events.id, events.merchant_id, events.environment, events.type, events.sequence, events.dispatch_lease_until, chosen.pos`;

export const fairClaimParams = (leaseSeconds: number, environments: readonly Environment[], batch: number, cursor: ClaimCursor | null): unknown[] => {
  const envs = JSON.stringify(environments);
  const at = [cursor?.merchantId ?? '', cursor?.environment ?? ''];
  // In the order of the placeholders: the two walks, the ring, top, per, the limit, the lease.
  return [envs, ...at, envs, batch, envs, batch, ...at, envs, ...at, batch, envs, batch, envs, batch, batch, batch, leaseSeconds];
};

/** Each ORM's (so each process's relay passes') place in the round robin. */
const cursors = new WeakMap<Orm, ClaimCursor>();

/**
 * Claims up to `batch` undispatched events of these environments for `leaseSeconds`, fairly over
 * merchants (FAIR_CLAIM_SQL), and moves this process's round robin on to the scope of the last event claimed.
 */
export async function claimUndispatchedEvents(orm: Orm, leaseSeconds: number, environments: readonly Environment[], batch: number): Promise<ClaimedEvent[]> {
  const rows = await orm.em
    .getConnection()
    .execute<Array<ClaimedEvent & { pos: number | string }>>(FAIR_CLAIM_SQL, fairClaimParams(leaseSeconds, environments, batch, cursors.get(orm) ?? null));
  let last: (ClaimedEvent & { pos: number | string }) | undefined;
  for (const row of rows) if (!last || Number(row.pos) > Number(last.pos)) last = row;
  if (last) cursors.set(orm, { merchantId: last.merchant_id, environment: last.environment });
  return rows.map(({ pos: _pos, ...event }) => event);
}
