import { parseMomoAmount } from '../../rail/momo-amount';
import type { StatementLine } from '../../rail/momo-statement';
import { merchantIds, result, type CheckContext, type CheckResult } from './check';

/**
 * No payment moved money twice, at our side or at the partner's (charges, payouts, settlement
 * batches and, since issue 45, refunds: their lines on the disbursement statement). The partner here
 * is the mobile-money one: its payments only (payouts to wallets, batches whose `rail` is momo; the
 * aggregator's books are the simulator's partner-books invariant's, not this run's yet):
 * - ours: no payment has two ledger transfers of the same kind (transfer ids are per payment and
 *   kind, so a second one would be a second movement);
 * - the partner's: for each of our live payments, the fake partner's statement lists at most one
 *   submission (one reference), and that reference is the one we keep for it (rail_references); a
 *   reference it accepted that we do not know is money it may move that we never asked for;
 * - both agree: a payment we hold succeeded is SUCCESSFUL there, for our amount and currency; one
 *   SUCCESSFUL there that we ended otherwise must have been recorded as a late answer (its
 *   late_success event).
 */
export async function checkMoneyOnce(ctx: CheckContext): Promise<CheckResult> {
  const ids = merchantIds(ctx);
  const violations: string[] = [];
  const twice = await ctx.db.rows<{ resource_id: string; kind: string; n: string }>(
    `select resource_id, kind, count(distinct transfer_id)::text as n from ledger_entries where merchant_id = any($1) group by resource_id, kind having count(distinct transfer_id) > 1`,
    [ids],
  );
  for (const t of twice) violations.push(`${t.resource_id}: ${t.n} ledger transfers of kind ${t.kind}`);

  const ours = await ctx.db.rows<{ id: string; status: string; kind: string; amount: string; currency: string; reference_id: string | null; late: boolean }>(
    `select p.id, p.status, p.kind, p.amount::text as amount, p.currency, r.reference_id::text as reference_id,
            exists (select 1 from events e where e.resource_id = p.id and e.type like '%.late_success') as late
       from (select id, status, 'collection' as kind, amount, currency from charges where merchant_id = any($1) and environment = 'live'
             union all select id, status, 'disbursement', amount, currency from payouts where merchant_id = any($1) and environment = 'live' and channel = 'mobile_money'
             union all select id, status, 'disbursement', amount, currency from settlements where merchant_id = any($1) and environment = 'live' and coalesce(rail, 'momo') = 'momo'
             union all select id, status, 'refund', amount, currency from refunds where merchant_id = any($1) and environment = 'live') p
       left join rail_references r on r.payment_id = p.id`,
    [ids],
  );
  // The partner's records read after ours: whatever we hold as answered by the partner, it held first.
  let partner;
  try {
    partner = await ctx.readPartner();
  } catch (e) {
    violations.push(`the fake partner's records could not be read: ${(e as Error).message}`);
    return result('no payment moved money twice (ours and the partner’s)', ours.length, violations);
  }
  const byExternal = new Map<string, StatementLine[]>();
  for (const line of [...partner.collection, ...partner.disbursement, ...partner.refund]) byExternal.set(line.externalId, [...(byExternal.get(line.externalId) ?? []), line]);
  let submitted = 0;
  for (const p of ours) {
    const lines = byExternal.get(p.id) ?? [];
    const refs = new Set(lines.map((l) => l.referenceId.toLowerCase()));
    if (lines.length) submitted++;
    if (refs.size > 1) violations.push(`${p.id}: the partner holds ${refs.size} submissions (${[...refs].join(', ')})`);
    const successful = lines.filter((l) => l.status === 'SUCCESSFUL');
    if (new Set(successful.map((l) => l.referenceId)).size > 1) violations.push(`${p.id}: the partner moved its money ${successful.length} times`);
    for (const ref of refs) if (p.reference_id && ref !== p.reference_id.toLowerCase()) violations.push(`${p.id}: the partner holds reference ${ref}, ours is ${p.reference_id}`);
    if (lines.length && !p.reference_id) violations.push(`${p.id}: the partner holds a submission, we keep no reference for it`);
    if ((p.status === 'succeeded' || p.status === 'paid') && successful.length === 0) violations.push(`${p.id}: succeeded here, ${lines.length ? lines.map((l) => l.status).join('/') : 'unknown'} at the partner`);
    // Amounts (issue 44): what the partner moved is what we asked for, in our currency.
    for (const l of successful) {
      const moved = parseMomoAmount(l.amount, l.currency);
      if (l.currency !== p.currency || moved !== Number(p.amount)) violations.push(`${p.id}: the partner moved ${l.amount} ${l.currency} under ${l.referenceId}, ours is ${p.amount} ${p.currency} (minor units)`);
    }
    if (successful.length > 0 && ['failed', 'expired'].includes(p.status) && !p.late) violations.push(`${p.id}: ${p.status} here, SUCCESSFUL at the partner, and no late answer recorded`);
  }
  const ourIds = new Set(ours.map((p) => p.id));
  const mine = (id: string) => ourIds.has(id);
  const strangers = [...byExternal.keys()].filter((id) => !mine(id) && /^(txn|po|stl|re)_/.test(id));
  return result('no payment moved money twice (ours and the partner’s)', ours.length, violations, [
    `${ours.length} live payments, ${submitted} submitted to the partner; ${twice.length} payments with a repeated ledger transfer; ${strangers.length} partner lines of other merchants (not checked)`,
  ]);
}
