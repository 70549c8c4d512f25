import type { EntityManager } from '@mikro-orm/postgresql';
import { failoverCause, nextPartner, parseRailRoute, type FailoverResult } from '../../domain/rail-failover';
import { isPartnerName, type PartnerName } from '../../domain/rail-routes';
import { newUuid } from '../../support/new-id';
import type { Orm } from '../orm';

/** Whether a partner takes new payments now (its circuit breaker); every partner does when no breaker is kept. */
export type PartnerAdmits = (em: EntityManager, partner: PartnerName) => Promise<boolean>;

const PAYMENT_TABLE: Readonly<Record<string, string>> = { txn_: 'charges', po_: 'payouts', stl_: 'settlements' };

function paymentTable(paymentId: string): string | undefined {
  return Object.entries(PAYMENT_TABLE).find(([prefix]) => paymentId.startsWith(prefix))?.[1];
}

/**
 * The failover gate (issue 46; src/domain/rail-failover.ts): in one transaction, under the lock of
 * the payment's `rail_references` row, reads what the database holds of its current attempt (sends,
 * sends that provably never reached the partner, a retry-elsewhere refusal, any acknowledgement)
 * and, only when the attempt provably moved no money, moves the payment to the next partner of its
 * route (`rail_route`) that admits new payments: the attempt goes to `rail_attempts`, the payment
 * gets a new reference with that partner (`attempt` + 1, nothing sent yet) and its `rail` follows.
 * Anything else changes nothing and answers why. A refund, a card charge and a payment without a
 * route of two partners never move.
 */
export async function failOver(orm: Orm, paymentId: string, admits: PartnerAdmits): Promise<FailoverResult> {
  const table = paymentTable(paymentId);
  if (!table) return { moved: false, why: 'only a charge, a payout or a settlement batch may fail over (a refund goes back through the partner that took its charge)' };
  return orm.em.fork().transactional(async (em) => {
    const [row] = await em.execute<Array<{ reference_id: string; product: string; partner: string | null; attempt: number; sends: number; unreached: number; refused_elsewhere: string | null; environment: string; created_at: Date | string; acknowledged: boolean; rail_route: string | null; channel: string | null }>>(
      `select r.reference_id::text, r.product, r.partner, r.attempt, r.sends, r.unreached, r.refused_elsewhere, r.environment, r.created_at,
         exists (select 1 from rail_answers a where a.payment_id = r.payment_id and a.reference_id = r.reference_id and a.outcome in ('acknowledged', 'succeeded')) as acknowledged,
         p.rail_route, ${table === 'settlements' ? `'bank'` : 'p.channel'} as channel
       from rail_references r join ${table} p on p.id = r.payment_id where r.payment_id = ? for update of r`,
      [paymentId],
    );
    if (!row) return { moved: false, why: 'the payment has no partner reference: nothing was sent' };
    if (row.channel === 'card') return { moved: false, why: 'a card charge never fails over (the customer typed the card into the partner\'s page)' };
    const verdict = failoverCause({ sends: row.sends, unreached: row.unreached, refusedElsewhere: row.refused_elsewhere, acknowledged: row.acknowledged });
    if ('why' in verdict) return { moved: false, why: verdict.why };
    const from: PartnerName = isPartnerName(row.partner) ? row.partner : 'momo';
    const route = parseRailRoute(row.rail_route);
    const earlier = await em.execute<Array<{ partner: string }>>(`select partner from rail_attempts where payment_id = ?`, [paymentId]);
    const tried = [from, ...earlier.map((e) => e.partner)];
    const next = await nextPartner(route, tried, (partner) => admits(em, partner));
    if (!next) {
      return { moved: false, why: route.length < 2 ? 'its route names no other partner' : `no other partner of its route (${route.join(', ')}) that it has not tried admits new payments now` };
    }
    const reason = verdict.cause === 'refused' ? `refused ${row.refused_elsewhere} (retry elsewhere)` : `never reached the partner (${row.sends} submission(s), none delivered)`;
    await em.execute(
      `insert into rail_attempts (payment_id, attempt, product, partner, reference_id, environment, outcome, reason, sends, next_partner, started_at)
       values (?, ?, ?, ?, ?::uuid, ?, ?, ?, ?, ?, coalesce((select max(ended_at) from rail_attempts where payment_id = ?), ?))`,
      [paymentId, row.attempt, row.product, from, row.reference_id, row.environment, verdict.cause, reason, row.sends, next, paymentId, row.created_at],
    );
    await em.execute(
      `update rail_references set reference_id = ?::uuid, partner = ?, attempt = attempt + 1, sends = 0, unreached = 0, refused_elsewhere = null where payment_id = ?`,
      [newUuid(), next, paymentId],
    );
    await em.execute(`update ${table} set rail = ? where id = ?`, [next, paymentId]);
    return { moved: true, partner: next, from, attempt: row.attempt + 1, cause: verdict.cause };
  });
}

/** A send of the attempt's reference provably never reached the partner (counted against `sends`). */
export async function recordUnreached(em: Pick<EntityManager, 'execute'>, paymentId: string, referenceId: string): Promise<void> {
  await em.execute(`update rail_references set unreached = least(unreached + 1, sends) where payment_id = ? and reference_id = ?::uuid`, [paymentId, referenceId]);
}

/** The attempt's first submission was refused with a reason its partner's table marks retry-elsewhere. */
export async function recordRefusedElsewhere(em: Pick<EntityManager, 'execute'>, paymentId: string, referenceId: string, reason: string): Promise<void> {
  await em.execute(`update rail_references set refused_elsewhere = ? where payment_id = ? and reference_id = ?::uuid`, [reason.slice(0, 200), paymentId, referenceId]);
}
