import { merchantIds, result, type CheckContext, type CheckResult } from './check';

/**
 * Every merchant's event log, per environment: sequences 1..N with no gap and no repeat, and no
 * event twice (the same type for the same resource).
 */
export async function checkEvents(ctx: CheckContext): Promise<CheckResult> {
  const ids = merchantIds(ctx);
  const seqs = await ctx.db.rows<{ merchant_id: string; environment: string; n: string; distinct_n: string; min: string | null; max: string | null }>(
    `select merchant_id, environment, count(*)::text as n, count(distinct sequence)::text as distinct_n, min(sequence)::text as min, max(sequence)::text as max
       from events where merchant_id = any($1) group by merchant_id, environment`,
    [ids],
  );
  const violations: string[] = [];
  let total = 0;
  for (const s of seqs) {
    total += Number(s.n);
    if (s.n !== s.distinct_n) violations.push(`${s.merchant_id} ${s.environment}: ${Number(s.n) - Number(s.distinct_n)} repeated sequence numbers`);
    if (s.min !== '1' || s.max !== s.distinct_n) violations.push(`${s.merchant_id} ${s.environment}: sequences ${s.min}..${s.max} for ${s.distinct_n} events (a gap)`);
  }
  const twice = await ctx.db.rows<{ merchant_id: string; type: string; resource_id: string; n: string }>(
    `select merchant_id, type, resource_id, count(*)::text as n from events where merchant_id = any($1) group by merchant_id, type, resource_id having count(*) > 1`,
    [ids],
  );
  for (const t of twice) violations.push(`${t.merchant_id}: ${t.type} of ${t.resource_id} recorded ${t.n} times`);
  return result('every event sequence gapless, no duplicate', total, violations, [`${total} events in ${seqs.length} merchant logs`]);
}
