import { canTransition, CHARGE_STATUSES, type ChargeStatus } from '../../domain/charge-status';
import { DISPUTE_STATUSES } from '../../domain/dispute';
import { canPayoutTransition, PAYOUT_STATUSES, type PayoutStatus } from '../../domain/payout';
import { isTerminalRefundStatus, REFUND_STATUSES } from '../../domain/refund';
import { isTerminalSettlementStatus, SETTLEMENT_STATUSES } from '../../domain/settlement';
import type { Invariant } from '../types';
import { rows } from './sql';

type Pair = [resourceType: string, from: string, to: string];

/** Every (from, to) a status machine allows, by the events' resource_type. */
function allowedPairs(): Pair[] {
  const pairs: Pair[] = [];
  const each = <S extends string>(type: string, statuses: readonly S[], allowed: (from: S, to: S) => boolean) => {
    for (const from of statuses) for (const to of statuses) if (from !== to && allowed(from, to)) pairs.push([type, from, to]);
  };
  each<ChargeStatus>('transaction', CHARGE_STATUSES, canTransition);
  each<PayoutStatus>('payout', PAYOUT_STATUSES, canPayoutTransition);
  // Refunds and settlements (src/domain/refund.ts, settlement.ts): `pending` → either end, nothing after.
  each('refund', REFUND_STATUSES, (from) => !isTerminalRefundStatus(from));
  each('settlement', SETTLEMENT_STATUSES, (from) => !isTerminalSettlementStatus(from));
  // Disputes (src/domain/dispute.ts): needs_response → under_review (evidence) → won | lost, or
  // needs_response → won | lost (the deadline); never back, nothing after an end.
  const rank = (s: string) => DISPUTE_STATUSES.indexOf(s as (typeof DISPUTE_STATUSES)[number]);
  each('dispute', DISPUTE_STATUSES, (from, to) => rank(from) <= 1 && rank(to) > rank(from));
  return pairs;
}

/**
 * The one way out of an end, never taken by the normal machines: late money an operator settles
 * (issue 29: src/domain/charge-status.ts canSettleLate, payout.ts canPayoutSettleLate, a settlement
 * accepted as paid), allowed only after that resource's `<type>.late_success` event.
 */
const LATE_PAIRS: Pair[] = [
  ['transaction', 'expired', 'succeeded'],
  ['transaction', 'failed', 'succeeded'],
  ['payout', 'failed', 'succeeded'],
  ['settlement', 'failed', 'paid'],
];

/**
 * Each payment's status, and the status its last event must say (`evented`). They differ in one place:
 * a dispute whose evidence was recorded is `under_review` with no event of its own (the spec's dispute
 * events are opened, evidence_required, won and lost: SPEC.md "Events"; activities/types.ts
 * recordDisputeEvidence writes no event), so its last event still says `needs_response`.
 */
const RESOURCE_TABLES = `
  select id, 'transaction' as resource_type, status, status as evented from charges
  union all select id, 'payout', status, status from payouts
  union all select id, 'refund', status, status from refunds
  union all select id, 'dispute', status,
         case when status = 'under_review' and evidence_submitted_at is not null then 'needs_response' else status end from disputes
  union all select id, 'settlement', status, status from settlements`;

/**
 * No payment in two terminal states, no transition its state machine forbids: each payment's history
 * is the `status` of the resource in its events (`data.status`, in sequence order: every state change
 * writes one event, state-change.ts); each consecutive pair of different statuses must be allowed by
 * the domain's machine (the pairs are enumerated from `canTransition` and kin and passed to the
 * query, which returns only the pairs that are not). A terminal status followed by another is such a
 * pair. Second, each projection's status is its last event's (a status written without its event, or
 * a payment without any event). One query, each event's body parsed once.
 */
export const transitionsAllowed: Invariant = {
  name: 'no forbidden transition, no payment in two terminal states',
  async check(ctx) {
    const allowed = JSON.stringify(allowedPairs().map(([t, f, to]) => ({ t, f, to })));
    const late = JSON.stringify(LATE_PAIRS.map(([t, f, to]) => ({ t, f, to })));
    const found = await rows<{ kind: 'pair' | 'last'; resource_id: string; resource_type: string; from: string | null; to: string | null; type: string | null; sequence: string | null }>(
      ctx,
      `with e as materialized (
         select resource_id, resource_type, type, sequence, (body::jsonb)->'data'->>'status' as status
           from events where resource_type in ('transaction', 'payout', 'refund', 'dispute', 'settlement')),
       h as (
         select e.*, lag(status) over w as prev, row_number() over (partition by resource_id order by sequence desc) as from_end,
                coalesce(bool_or(type like '%.late_success') over (w rows between unbounded preceding and 1 preceding), false) as late_seen
           from e window w as (partition by resource_id order by sequence))
       select 'pair' as kind, resource_id, resource_type, prev as "from", status as "to", type, sequence
         from h
        where prev is not null and status is distinct from prev
          and not exists (select 1 from jsonb_to_recordset(?::jsonb) a(t text, f text, "to" text) where a.t = h.resource_type and a.f = h.prev and a."to" = h.status)
          and not (late_seen and exists (select 1 from jsonb_to_recordset(?::jsonb) a(t text, f text, "to" text) where a.t = h.resource_type and a.f = h.prev and a."to" = h.status))
       union all
       select 'last', p.id, p.resource_type, p.status, l.status, null, null::bigint
         from (${RESOURCE_TABLES}) p left join (select resource_id, status from h where from_end = 1) l on l.resource_id = p.id
        where l.status is distinct from p.evented
       order by 1 desc, 2, 7`,
      [allowed, late],
    );
    const lines = found.map((f) =>
      f.kind === 'pair'
        ? `${f.resource_type} ${f.resource_id}: ${f.from} → ${f.to} (event ${f.type}, sequence ${f.sequence}) is not an allowed transition`
        : `${f.resource_type} ${f.resource_id}: status ${f.from}, but ${f.to === null ? 'it has no event' : `its last event says ${f.to}`}`,
    );
    return lines;
  },
};
