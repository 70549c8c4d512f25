import { parseMomoAmount } from '../../rail/momo-amount';
import type { PartnerLine } from '../partner-records';
import { merchantIds, result, type CheckContext, type CheckResult } from './check';

/** One partner reference of a payment: its current attempt (rail_references) or one it left behind (rail_attempts). */
interface Reference {
  partner: string;
  referenceId: string;
  /** `current`, or why the attempt ended: `not_reached`, `refused` (it failed over). */
  outcome: string;
}

const refKey = (partner: string, referenceId: string) => `${partner}:${referenceId.toLowerCase()}`;

/**
 * No payment moved money twice, at our side or at the partners' (charges, payouts, settlement
 * batches and, since issue 45, refunds: their lines on the disbursement statement). Since issue 46 a
 * payment may have tried a second partner (failover, docs/partner-rail.md "Routing and failover"):
 * its references are its current one (rail_references) and those it left behind (rail_attempts),
 * and both partners' books are read (the MoMo fake's and the fake aggregator's statements):
 * - ours: no payment has two ledger transfers of the same kind (transfer ids are per payment and
 *   kind, so a second one would be a second movement);
 * - the partners': every line of either partner's books for one of our payments is under one of its
 *   references, at the partner of that reference; a payment has at most one line per reference and at
 *   most one SUCCESSFUL line across all its references at both partners (no customer debited twice,
 *   no payee paid twice); an attempt left behind (it failed over because it provably moved no money)
 *   left nothing in its partner's books; every line with our kind of id maps to a payment of ours by
 *   its reference (a reference we do not know is money a partner may move that we never asked for);
 * - both agree: a payment we hold succeeded is SUCCESSFUL there, for our amount and currency; one
 *   SUCCESSFUL there that we ended otherwise must have been recorded as a late answer (its
 *   late_success event).
 * Notes: the failovers seen (rail_attempts rows by outcome, and by partner left and taken).
 */
export async function checkMoneyOnce(ctx: CheckContext): Promise<CheckResult> {
  const ids = merchantIds(ctx);
  const violations: string[] = [];
  const twice = await ctx.db.rows<{ resource_id: string; kind: string; n: string }>(
    `select resource_id, kind, count(distinct transfer_id)::text as n from ledger_entries where merchant_id = any($1) group by resource_id, kind having count(distinct transfer_id) > 1`,
    [ids],
  );
  for (const t of twice) violations.push(`${t.resource_id}: ${t.n} ledger transfers of kind ${t.kind}`);

  const ours = await ctx.db.rows<{ id: string; status: string; kind: string; amount: string; currency: string; reference_id: string | null; partner: string | null; late: boolean }>(
    `select p.id, p.status, p.kind, p.amount::text as amount, p.currency, r.reference_id::text as reference_id, coalesce(r.partner, p.rail, 'momo') as partner,
            exists (select 1 from events e where e.resource_id = p.id and e.type like '%.late_success') as late
       from (select id, status, 'collection' as kind, amount, currency, rail from charges where merchant_id = any($1) and environment = 'live'
             union all select id, status, 'disbursement', amount, currency, rail from payouts where merchant_id = any($1) and environment = 'live'
             union all select id, status, 'disbursement', amount, currency, rail from settlements where merchant_id = any($1) and environment = 'live'
             union all select id, status, 'refund', amount, currency, rail from refunds where merchant_id = any($1) and environment = 'live') p
       left join rail_references r on r.payment_id = p.id`,
    [ids],
  );
  const attempts = await ctx.db.rows<{ payment_id: string; partner: string; reference_id: string; outcome: string; next_partner: string }>(
    `select a.payment_id, a.partner, a.reference_id::text as reference_id, a.outcome, a.next_partner
       from rail_attempts a where a.payment_id = any($1::text[]) order by a.payment_id, a.attempt`,
    [ours.map((p) => p.id)],
  );
  const refsOf = new Map<string, Reference[]>();
  for (const p of ours) if (p.reference_id) refsOf.set(p.id, [{ partner: p.partner ?? 'momo', referenceId: p.reference_id, outcome: 'current' }]);
  for (const a of attempts) refsOf.set(a.payment_id, [...(refsOf.get(a.payment_id) ?? []), { partner: a.partner, referenceId: a.reference_id, outcome: a.outcome }]);

  // The partners' records read after ours: whatever we hold as answered by a partner, it held first.
  let books;
  try {
    books = await ctx.readPartner();
  } catch (e) {
    violations.push(`the fake partners' records could not be read: ${(e as Error).message}`);
    return result('no payment moved money twice (ours and both partners’)', ours.length, violations);
  }
  const all: PartnerLine[] = [...books.collection, ...books.disbursement, ...books.refund];
  const byExternal = new Map<string, PartnerLine[]>();
  for (const line of all) byExternal.set(line.externalId, [...(byExternal.get(line.externalId) ?? []), line]);

  let submitted = 0;
  let atBoth = 0;
  for (const p of ours) {
    const lines = byExternal.get(p.id) ?? [];
    const refs = refsOf.get(p.id) ?? [];
    const known = new Map(refs.map((r) => [refKey(r.partner, r.referenceId), r]));
    if (lines.length) submitted++;
    if (new Set(lines.map((l) => l.partner)).size > 1) atBoth++;
    const perRef = new Map<string, number>();
    for (const l of lines) {
      const key = refKey(l.partner, l.referenceId);
      perRef.set(key, (perRef.get(key) ?? 0) + 1);
      const ref = known.get(key);
      if (!ref) {
        const elsewhere = refs.find((r) => r.referenceId.toLowerCase() === l.referenceId.toLowerCase());
        violations.push(
          elsewhere
            ? `${p.id}: ${l.partner} holds reference ${l.referenceId}, which we sent to ${elsewhere.partner}`
            : refs.length
              ? `${p.id}: ${l.partner} holds reference ${l.referenceId}, ours are ${refs.map((r) => `${r.partner}:${r.referenceId}`).join(', ')}`
              : `${p.id}: ${l.partner} holds a submission (${l.referenceId}), we keep no reference for it`,
        );
      } else if (ref.outcome !== 'current') {
        violations.push(`${p.id}: attempt ${ref.partner}:${ref.referenceId} failed over (${ref.outcome}) yet ${l.partner} holds it, ${l.status}`);
      }
    }
    for (const [key, n] of perRef) if (n > 1) violations.push(`${p.id}: ${n} lines for reference ${key}`);
    const successful = lines.filter((l) => l.status === 'SUCCESSFUL');
    if (successful.length > 1) violations.push(`${p.id}: the partners moved its money ${successful.length} times (${successful.map((l) => `${l.partner}:${l.referenceId}`).join(', ')})`);
    if ((p.status === 'succeeded' || p.status === 'paid') && successful.length === 0) violations.push(`${p.id}: succeeded here, ${lines.length ? lines.map((l) => `${l.partner} ${l.status}`).join('/') : 'unknown'} at the partners`);
    // Amounts (issue 44): what the partner moved is what we asked for, in our currency.
    for (const l of successful) {
      const moved = parseMomoAmount(l.amount, l.currency);
      if (l.currency !== p.currency || moved !== Number(p.amount)) violations.push(`${p.id}: ${l.partner} moved ${l.amount} ${l.currency} under ${l.referenceId}, ours is ${p.amount} ${p.currency} (minor units)`);
    }
    if (successful.length > 0 && ['failed', 'expired'].includes(p.status) && !p.late) violations.push(`${p.id}: ${p.status} here, SUCCESSFUL at ${successful[0]!.partner}, and no late answer recorded`);
  }

  // Every line of our kind of id maps to a payment by its reference (any merchant's: the database and the fakes are shared by the runs on one topology).
  const ourIds = new Set(ours.map((p) => p.id));
  const others = all.filter((l) => !ourIds.has(l.externalId) && /^(txn|po|stl|re)_/.test(l.externalId));
  const mapped = new Map<string, string>();
  if (others.length) {
    const rows = await ctx.db.rows<{ reference_id: string; payment_id: string }>(
      `select reference_id::text as reference_id, payment_id from rail_references where reference_id = any($1::uuid[])
       union all select reference_id::text, payment_id from rail_attempts where reference_id = any($1::uuid[])`,
      [[...new Set(others.map((l) => l.referenceId.toLowerCase()))]],
    );
    for (const r of rows) mapped.set(r.reference_id.toLowerCase(), r.payment_id);
  }
  let strangers = 0;
  for (const l of others) {
    const payment = mapped.get(l.referenceId.toLowerCase());
    if (payment === undefined) {
      strangers++;
      violations.push(`${l.partner} holds ${l.referenceId} (${l.externalId}, ${l.status}), a reference no payment of ours has`);
    } else if (payment !== l.externalId) violations.push(`${l.partner} holds ${l.referenceId} for ${l.externalId}, our reference of ${payment}`);
  }

  const byOutcome = new Map<string, number>();
  const byRoute = new Map<string, number>();
  for (const a of attempts) {
    byOutcome.set(a.outcome, (byOutcome.get(a.outcome) ?? 0) + 1);
    byRoute.set(`${a.partner}→${a.next_partner}`, (byRoute.get(`${a.partner}→${a.next_partner}`) ?? 0) + 1);
  }
  const count = (m: Map<string, number>) => ([...m].length ? [...m].sort().map(([k, n]) => `${k} ${n}`).join(', ') : 'none');
  const perPartner = books.partners.map((partner) => `${partner} ${all.filter((l) => l.partner === partner).length}`).join(', ');
  return result('no payment moved money twice (ours and both partners’)', ours.length, violations, [
    `${ours.length} live payments, ${submitted} submitted to a partner (${atBoth} with lines at both); ${twice.length} payments with a repeated ledger transfer; partners' lines read: ${perPartner}; ${others.length} lines of other runs' payments (mapped by reference; ${strangers} unknown)`,
    `failovers seen: ${attempts.length} attempts left behind (rail_attempts), by outcome: ${count(byOutcome)}; by partners: ${count(byRoute)}`,
  ]);
}
