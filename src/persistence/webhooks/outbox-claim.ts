import type { Environment } from '../../domain/environment';
import type { Orm } from '../orm';
import { TEXT_ARRAY } from '../sql-values';

/** An event the webhook outbox relay claimed. */
export interface ClaimedEvent {
  id: string;
  merchant_id: string;
  environment: Environment;
  type: string;
  dispatch_lease_until: Date;
}

/** An undispatched event no pass holds: never leased, or its lease has ended. */
const claimable = (t = ''): string => `${t}dispatched_at is null and (${t}dispatch_lease_until is null or ${t}dispatch_lease_until < now())`;

/**
 * The fair claim's choice, as a query of the ids to claim (parameters: environments, batch, batch).
 *
 * Fair per merchant and environment (a scope): each scope's oldest claimable event, then each one's
 * second, and so on up to the batch (a turn), ties between scopes going to the older event; so a
 * merchant with a flood of events takes no more than its turn of a pass. The same choice the claim made
 * before issue 34, which numbered every undispatched event (`row_number() over (partition by merchant_id,
 * environment)`) and sorted them all; now every step reads the index events_undispatched_scope
 * (merchant_id, environment, created_at, id) where dispatched_at is null:
 *  1. `scopes`: each scope's oldest claimable event (its head), one index descent per scope (a loose
 *     index scan: the first claimable entry after the previous scope). Leased events on the way are
 *     passed over: at most the batches of the passes in flight.
 *  2. `top`: the batch's scopes. A turn is taken by every scope before any takes another, so with at
 *     least `batch` scopes the claim is the `batch` oldest heads, one each; with fewer (S), every scope
 *     takes part and none can take more than batch + 1 - S events.
 *  3. each of those scopes' oldest `per` claimable events, numbered by turn, and the first `batch` of
 *     them by turn, then age.
 * Cost: one descent per scope with undispatched events plus at most `batch` short index ranges, whatever
 * the backlog (issue 34: 3,000,000 events over 1,000 merchants, docs/benchmarks.md).
 */
export const FAIR_CLAIM_IDS = `
  with recursive scopes as (
    (select merchant_id, environment, created_at, id from events where ${claimable()}
     order by merchant_id, environment, created_at, id limit 1)
    union all
    select next.* from scopes s cross join lateral (
      select merchant_id, environment, created_at, id from events
      where ${claimable()} and (merchant_id, environment) > (s.merchant_id, s.environment)
      order by merchant_id, environment, created_at, id limit 1) next),
  heads as (select * from scopes where environment = any(${TEXT_ARRAY})),
  top as (select merchant_id, environment from heads order by created_at, id limit ?),
  per as (select ? + 1 - least(count(*), ?) as n from heads)
  select turns.id from top cross join per cross join lateral (
    select e.id, e.created_at, row_number() over (order by e.created_at, e.id) as turn from events e
    where e.merchant_id = top.merchant_id and e.environment = top.environment and ${claimable('e.')}
    order by e.created_at, e.id limit per.n) turns
  order by turns.turn, turns.created_at, turns.id limit ?`;

/**
 * The claim itself: leases the chosen events for `leaseSeconds`. Parameters: fairClaimParams. `for
 * update skip locked`, so passes of several relays never hold the same event, and a lease, so a
 * crashed pass's events are taken over once it ends. The lease has millisecond precision, so a pass
 * that fails can give back exactly its own claim. The chosen ids are locked and updated by primary key
 * (`= any(array(…))`), never by a scan of the table, whatever its size.
 */
export const FAIR_CLAIM_SQL = `update events set dispatch_lease_until = date_trunc('milliseconds', now() + make_interval(secs => ?))
  where id = any(array(select id from events where id = any(array(${FAIR_CLAIM_IDS})) and ${claimable()} for update skip locked))
  returning id, merchant_id, environment, type, dispatch_lease_until`;

export const fairClaimParams = (leaseSeconds: number, environments: readonly Environment[], batch: number): unknown[] => [
  leaseSeconds,
  JSON.stringify(environments),
  batch,
  batch,
  batch,
  batch,
];

/** Claims up to `batch` undispatched events of these environments for `leaseSeconds`, fairly over merchants (FAIR_CLAIM_IDS, FAIR_CLAIM_SQL). */
export async function claimUndispatchedEvents(orm: Orm, leaseSeconds: number, environments: readonly Environment[], batch: number): Promise<ClaimedEvent[]> {
  return orm.em.getConnection().execute<ClaimedEvent[]>(FAIR_CLAIM_SQL, fairClaimParams(leaseSeconds, environments, batch));
}
