import { WorkflowNotFoundError } from '@temporalio/client';
import { SA } from '../../domain/search-attributes';
import { parseMomoAmount } from '../../rail/momo-amount';
import type { FakeTransaction } from '../../rail/fake-partner';
import type { FakeAggregatorTransaction } from '../../rail/aggregator/fake';
import type { PartnerBooks, Invariant, SimContext } from '../types';
import { rows } from './sql';

/** Every live payment that may go to the partner, with its reference and its late answer, if any. */
const OURS = `
  select p.id, p.kind, p.product, p.status, p.amount::text as amount, p.currency,
         r.reference_id::text as reference_id, coalesce(r.partner, 'momo') as partner,
         (la.payment_id is not null) as late, la.settled_action, la.return_reference_id::text as return_reference_id, la.return_status
    from (select id, 'charge' as kind, 'collection' as product, status, amount, currency from charges where environment = 'live'
          union all select id, 'payout', 'disbursement', status, amount, currency from payouts where environment = 'live'
          union all select id, 'settlement', 'disbursement', status, amount, currency from settlements where environment = 'live'
          union all select id, 'refund', 'refund', status, amount, currency from refunds where environment = 'live') p
    left join rail_references r on r.payment_id = p.id
    left join late_answers la on la.payment_id = p.id
   order by p.id`;

/** Issue 46: the attempts each payment left behind when it failed over (each moved no money, the failover gate proved it). */
const ATTEMPTS = `select payment_id, partner, reference_id::text as reference_id, outcome from rail_attempts order by payment_id, attempt`;

/** Batches of a live balance sent after the partner's SUCCESSFUL of an earlier failed batch of it was recorded, its late money unsettled then. */
const SENT_AGAIN = `
  select f.id as failed, n.id as again, n.status
    from settlements f
    join rail_answers a on a.payment_id = f.id and a.outcome = 'succeeded'
    join settlements n on n.merchant_id = f.merchant_id and n.environment = 'live' and n.currency = f.currency and n.id <> f.id
                      and n.status in ('pending', 'paid') and n.created_at > a.recorded_at
    left join late_answers la on la.payment_id = f.id
   where f.environment = 'live' and f.status = 'failed'
     and (la.settled_at is null or la.settled_at > n.created_at)
   order by f.id, n.id`;

interface Ours {
  id: string;
  kind: 'charge' | 'payout' | 'settlement' | 'refund';
  /** The partner resource (a refund's is `refund`, on the disbursement statement). */
  product: 'collection' | 'disbursement' | 'refund';
  status: string;
  amount: string;
  currency: string;
  reference_id: string | null;
  /** The partner its reference was sent to (rail_references.partner; none recorded: the MoMo partner, as partnerOfReference reads it). */
  partner: Partner;
  late: boolean;
  settled_action: 'credit' | 'return' | 'accept' | null;
  return_reference_id: string | null;
  return_status: 'requested' | 'submitted' | 'succeeded' | 'failed' | null;
}

/** Our end statuses in which the money moved (a reversal is a movement of its own, after the rail's). */
const MOVED = new Set(['succeeded', 'paid', 'reversed']);
/** Our end statuses in which it did not. */
const NOT_MOVED = new Set(['failed', 'expired']);

/** Describes in flight at once (only for payments with a difference: a few). */
const AT_ONCE = 4;

const lower = (s: string | null | undefined) => (s ?? '').toLowerCase();

type Partner = 'momo' | 'aggregator';

/** One transaction of either partner's books, as the invariant compares it (the MoMo fake's status words). */
interface BookLine {
  partner: Partner;
  resource: FakeTransaction['resource'];
  referenceId: string;
  status: 'PENDING' | 'SUCCESSFUL' | 'FAILED';
  /** Minor units (undefined: an amount the partner wrote that we cannot read). */
  minor: number | undefined;
  /** As the partner wrote it. */
  amount: string;
  currency: string;
  externalId: string;
}

function momoLine(t: FakeTransaction): BookLine {
  return { partner: 'momo', resource: t.resource, referenceId: t.referenceId, status: t.state.status as BookLine['status'], minor: parseMomoAmount(t.state.amount, t.state.currency), amount: t.state.amount, currency: t.state.currency, externalId: t.state.externalId };
}

const AGGREGATOR_STATUS = { pending: 'PENDING', successful: 'SUCCESSFUL', failed: 'FAILED' } as const;

/** The aggregator keeps minor units: its record of the money (`amount`: one less than asked for its `0015`). */
function aggregatorLine(t: FakeAggregatorTransaction): BookLine {
  return { partner: 'aggregator', resource: t.resource, referenceId: t.referenceId, status: AGGREGATOR_STATUS[t.status], minor: t.amount, amount: `${t.amount} (minor)`, currency: t.currency, externalId: t.externalId };
}

/** Both partners' books as one list (the aggregator's absent: a context with the MoMo partner only). */
export function bookLines(books: PartnerBooks): BookLine[] {
  return [...books.collection.map(momoLine), ...books.disbursement.map(momoLine), ...(books.aggregator ?? []).map(aggregatorLine)];
}

function partnerLine(t: BookLine | undefined): string {
  if (!t) return 'unknown there';
  return `${t.status} ${t.amount} ${t.currency} under ${t.referenceId}`;
}

/** What the workflows say of a payment: running, and a NeedsAttention flag with its reason (its own run or its review's). */
async function watch(ctx: SimContext, id: string): Promise<{ running: boolean; flag: string | null }> {
  let running = false;
  let flag: string | null = null;
  for (const workflowId of [id, `review-${id}`]) {
    try {
      const d = await ctx.temporal.client.workflow.getHandle(workflowId).describe();
      if (workflowId === id) running = d.status.name === 'RUNNING';
      const reason = d.typedSearchAttributes.get(SA.NeedsAttentionReason)?.trim() ?? '';
      if (!flag && (d.typedSearchAttributes.get(SA.NeedsAttention) ?? false) && reason) flag = `${workflowId}: ${reason}`;
    } catch (error) {
      if (!(error instanceof WorkflowNotFoundError)) throw error;
    }
  }
  return { running, flag };
}

/**
 * The eighth invariant, the partner's books as the oracle (issue 43): for every live reference, our
 * books and the fake partner's own records agree, or an open review names the difference; and, with
 * no exception, no transfer is paid twice.
 *
 * Read after the engine settled (run.ts: no workflow task or activity pending, outboxes and start
 * relays drained, every answer the fakes have scheduled given). Our side: every live charge, payout,
 * settlement and refund (issue 45), its reference (rail_references) with the partner it was sent to
 * (`rail_references.partner`: `momo` or `aggregator`; none recorded reads as `momo`, as the worker's
 * RoutedRail reads it) and its late answer (late_answers). The partners' side: every transaction
 * each fake keeps (SimContext.partner.records: the MoMo fake's per product, the aggregator's books;
 * status, amount, currency, and our payment id as its externalId; a late return's transfer has
 * externalId `<payment>-return`), the aggregator's statuses read as MoMo's words (pending PENDING,
 * successful SUCCESSFUL, failed FAILED) and its amounts already in minor units. Every rule below is
 * checked against the books of the partner the reference was sent to. A payment with no reference
 * and nothing at either partner (a card charge whose page was never used, a payout held for review,
 * one refused before it was sent) is not a partner's business and is passed over.
 *
 * Issue 46: a payment may have failed over (docs/partner-rail.md, "Routing and failover"); its
 * current reference is rail_references', and each attempt it left behind (rail_attempts: partner,
 * reference, `not_reached` or `refused`) is one of its references too, each read at its own partner.
 *
 * Always a violation (no review excuses it):
 * - an attempt left behind is held by its partner (under its reference, any status): the failover
 *   gate moved the payment only because that attempt provably moved no money and left nothing;
 * - a partner no reference of the payment was sent to holds any transaction of it (of its resource,
 *   our payment id as its externalId), or a partner other than the current one holds a late return
 *   of it: a payment's money goes through the partner of its current reference only;
 * - the partners paid a payment more than once (two SUCCESSFUL references with its externalId, at
 *   one partner or across both: the customer debited twice, the payee paid twice);
 * - the partner holds a submission of our payment under a reference we do not keep, not FAILED
 *   (money it may move that nothing of ours follows);
 * - a late return paid more than once;
 * - a late return recorded failed (the operator told to send it by hand) that the partner paid or
 *   still may (SUCCESSFUL or PENDING there; issue 43, finding 2);
 * - a live balance sent again (a batch created, pending or paid) after the partner's SUCCESSFUL of an
 *   earlier failed batch of it was recorded and before that late money was settled (issue 43,
 *   finding 4: the balance paid twice, under two of our ids).
 *
 * A difference, a violation unless an open review names it:
 * - amount or currency of our reference's transaction not ours (compared in minor units);
 * - ours ended with the money moved (succeeded, paid, reversed) while the partner says PENDING,
 *   FAILED or does not know the reference;
 * - ours ended without it (failed, expired) while the partner says SUCCESSFUL, unless that late
 *   money was settled: credited or accepted, or returned with the return on its way (requested,
 *   submitted) or paid at the partner (a return `succeeded` here must be SUCCESSFUL there); a
 *   customer debited with neither the merchant credited nor a return on its way is this case;
 * - ours ended without it while the partner still says PENDING (it may still pay);
 * - ours still open (pending, awaiting_action) while the partner's answer is final, and the
 *   payment's workflow is no longer running. While it runs, this is in flight, not a difference:
 *   a settled engine has nothing running, but a workflow waiting on a timer (its next poll, its
 *   expiry) may not have asked yet since the partner's answer (one without a callback).
 * An open review names a difference when the payment has an unsettled late_answers row, or its own
 * workflow or its payment review (`review-<id>`) is marked NeedsAttention with a reason.
 *
 * Without the partner's records (a context with no partner) it reports every live reference as
 * unchecked: never a silent pass.
 */
export const partnerBooksAgree: Invariant = {
  name: "for every live reference our books and the partner's agree, or an open review names the difference; nothing paid twice",
  async check(ctx) {
    const ours = await rows<Ours>(ctx, OURS);
    const referenced = ours.filter((p) => p.reference_id);
    if (!ctx.partner.records) return referenced.map((p) => `${p.kind} ${p.id}: live reference ${p.reference_id}, and no partner records to compare with`);
    const byExternal = new Map<string, BookLine[]>();
    for (const t of bookLines(ctx.partner.records())) byExternal.set(t.externalId, [...(byExternal.get(t.externalId) ?? []), t]);

    const attemptsOf = new Map<string, Array<{ partner: string; reference_id: string; outcome: string }>>();
    for (const a of await rows<{ payment_id: string; partner: string; reference_id: string; outcome: string }>(ctx, ATTEMPTS)) attemptsOf.set(a.payment_id, [...(attemptsOf.get(a.payment_id) ?? []), a]);

    const hard: string[] = [];
    const differences: Array<{ p: Ours; what: string; partner: string; inFlight: boolean }> = [];
    for (const p of ours) {
      const anywhere = (byExternal.get(p.id) ?? []).filter((t) => t.resource === p.product);
      if (!p.reference_id && anywhere.length === 0) continue;
      const attempts = attemptsOf.get(p.id) ?? [];
      // Issue 46: an attempt left behind moved no money and left nothing at its partner.
      for (const a of attempts) {
        for (const held of anywhere.filter((t) => t.partner === a.partner && lower(t.referenceId) === lower(a.reference_id))) {
          hard.push(`${p.kind} ${p.id} (ours: ${p.status} ${p.amount} ${p.currency}, now at ${p.partner}): its attempt ${a.reference_id} at ${a.partner} failed over (${a.outcome}), yet ${a.partner} holds it, ${held.status} ${held.amount} ${held.currency}`);
        }
      }
      const paidAnywhere = anywhere.filter((x) => x.status === 'SUCCESSFUL');
      if (paidAnywhere.length > 1 && new Set(paidAnywhere.map((x) => x.partner)).size > 1) hard.push(`${p.kind} ${p.id} (ours: ${p.status} ${p.amount} ${p.currency}): paid at both partners (${paidAnywhere.map((x) => `${x.partner} ${x.referenceId}`).join(', ')})`);
      // Issue 45: a payment goes to one partner, the one its reference names; the other never hears of it (issue 46: but for its attempts left behind, above).
      for (const wrong of anywhere.filter((t) => t.partner !== p.partner && !attempts.some((a) => a.partner === t.partner && lower(a.reference_id) === lower(t.referenceId)))) {
        hard.push(`${p.kind} ${p.id} (ours: ${p.status} ${p.amount} ${p.currency}, sent to ${p.partner}): the ${wrong.partner} partner holds it too, ${wrong.status} ${wrong.amount} ${wrong.currency} under ${wrong.referenceId}${lower(wrong.referenceId) === lower(p.reference_id) ? ' (our reference, at the partner it was not sent to)' : ''}`);
      }
      const mine = anywhere.filter((t) => t.partner === p.partner);
      const ref = lower(p.reference_id);
      const t = mine.find((x) => lower(x.referenceId) === ref);
      const label = `${p.kind} ${p.id} (ours: ${p.status} ${p.amount} ${p.currency}; partner: ${partnerLine(t)}) at ${p.partner}`;
      const paid = mine.filter((x) => x.status === 'SUCCESSFUL');
      if (paid.length > 1) hard.push(`${label}: the partner paid it ${paid.length} times (references ${paid.map((x) => x.referenceId).join(', ')})`);
      for (const stranger of mine) {
        if (lower(stranger.referenceId) === ref || stranger.status === 'FAILED') continue;
        hard.push(`${label}: the partner holds a submission under reference ${stranger.referenceId} (${stranger.status} ${stranger.amount} ${stranger.currency}) that we do not keep${p.reference_id ? ` (ours is ${p.reference_id})` : ''}`);
      }
      const differ = (what: string, inFlight = false) => differences.push({ p, what, partner: label, inFlight });
      if (t && (t.minor !== Number(p.amount) || t.currency !== p.currency)) differ(`amount differs: the partner has ${t.amount} ${t.currency}, we have ${p.amount} ${p.currency} (minor units)`);
      const theirs = t?.status ?? 'unknown';
      if (MOVED.has(p.status) && theirs !== 'SUCCESSFUL') differ(`${p.status} here, ${theirs} at the partner`);
      else if (NOT_MOVED.has(p.status) && theirs === 'PENDING') differ(`${p.status} here while the partner still says PENDING (it may still pay)`);
      else if (NOT_MOVED.has(p.status) && theirs === 'SUCCESSFUL') {
        const settled = p.settled_action === 'credit' || p.settled_action === 'accept' || (p.settled_action === 'return' && (p.return_status === 'requested' || p.return_status === 'submitted'));
        const allReturns = byExternal.get(`${p.id}-return`) ?? [];
        // A late return goes to the partner of the payment it returns (partnerOfReference): never the other.
        for (const wrong of allReturns.filter((x) => x.partner !== p.partner)) hard.push(`${label}: its late return is held by the ${wrong.partner} partner (${wrong.status} under ${wrong.referenceId}), not by ${p.partner}, where the payment was`);
        const returns = allReturns.filter((x) => x.partner === p.partner);
        const returning = returns.filter((x) => x.status === 'SUCCESSFUL' || x.status === 'PENDING');
        if (p.settled_action === 'return' && p.return_status === 'failed' && returning.length > 0) {
          // Finding 2: the operator is told to send it by hand, and the payer is then paid twice.
          hard.push(`${label}: its late return is recorded failed (to be sent by hand) while the partner has it ${returning.map((x) => `${x.status} under ${x.referenceId}`).join(', ')}: sent again, the payer is paid twice`);
        }
        if (p.settled_action === 'return' && p.return_status === 'succeeded') {
          const returned = returns.filter((x) => x.status === 'SUCCESSFUL');
          if (returned.length > 1) hard.push(`${label}: its late return was paid ${returned.length} times (references ${returned.map((x) => x.referenceId).join(', ')})`);
          if (returned.length === 0) differ(`${p.status} here, SUCCESSFUL at the partner, its return recorded succeeded but the partner paid no return`);
        } else if (!settled) {
          differ(`${p.status} here, SUCCESSFUL at the partner: ${p.late ? `its late money settled ${p.settled_action ?? 'not yet'}${p.return_status ? `, return ${p.return_status}` : ''}` : 'no late answer recorded'} (neither credited nor a return on its way)`);
        }
      } else if (!MOVED.has(p.status) && !NOT_MOVED.has(p.status) && (theirs === 'SUCCESSFUL' || theirs === 'FAILED')) {
        differ(`${p.status} here, ${theirs} at the partner`, true);
      }
    }

    // A failed batch the partner's SUCCESSFUL was recorded for, then another batch of the same balance
    // sent while that late money was unsettled (or settled only after): the balance paid twice.
    for (const r of await rows<{ failed: string; again: string; status: string }>(ctx, SENT_AGAIN)) {
      hard.push(`settlement ${r.failed}: failed here, the partner's SUCCESSFUL on record, and batch ${r.again} (${r.status}) of the same balance was sent after it, before its late money was settled: the balance paid twice`);
    }

    const lines = [...hard];
    let next = 0;
    const lane = async () => {
      while (next < differences.length) {
        const d = differences[next++];
        if (d.p.late && d.p.settled_action === null) continue; // an open late answer names it
        const { running, flag } = await watch(ctx, d.p.id);
        if (flag) continue;
        if (d.inFlight && running) continue;
        lines.push(`${d.partner}: ${d.what}; no open review names it (no unsettled late answer, no NeedsAttention with a reason${d.inFlight ? ', and its workflow is not running' : ''})`);
      }
    };
    await Promise.all(Array.from({ length: Math.min(AT_ONCE, differences.length) }, lane));
    return lines.sort();
  },
};
