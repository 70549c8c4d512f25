import { judge, type RequestRecord } from '../request-log';
import { result, type CheckContext, type CheckResult } from './check';

/**
 * While a dependency was down the API answered 503 with Retry-After: never a 500, never a hang past
 * its deadline (request-log.ts `judge`), and every fault recovered by itself, /health saying so
 * (the injector waits for both APIs' /health to answer 200 and every piece to be ok).
 */
export function checkApiAnswers(ctx: CheckContext): CheckResult {
  const violations: string[] = [];
  const grouped = new Map<string, { n: number; first: RequestRecord }>();
  for (const r of ctx.log.records) {
    const verdict = judge(r);
    if (verdict.ok) continue;
    const key = `${r.method} ${r.route} :${r.port}: ${verdict.why.replace(/[0-9]+ ms/g, 'N ms')} during faults [${r.faults.join(',')}]`;
    const seen = grouped.get(key);
    if (seen) seen.n++;
    else grouped.set(key, { n: 1, first: r });
  }
  for (const [key, { n, first }] of grouped) violations.push(`${n} × ${key} (first at ${new Date(first.at).toISOString()}, ${judge(first).ok ? '' : (judge(first) as { why: string }).why})`);
  for (const f of ctx.faults) {
    if (f.recoveryS === null) violations.push(`fault ${f.n} ${f.kind}${f.target ? ` (${f.target})` : ''}: did not recover by itself (/health and the topology's status not ok)`);
    if (f.restarted === false) violations.push(`fault ${f.n} ${f.kind} (${f.target}): the piece was not restarted with a new pid`);
  }
  const during = ctx.log.records.filter((r) => r.faults.length > 0);
  const s503 = during.filter((r) => r.status === 503).length;
  return result('API: 503 with Retry-After during faults, never a 500 or a hang; recovered by itself', ctx.log.records.length, violations, [
    `${ctx.log.records.length} requests, ${during.length} during faults (${s503} answered 503 with Retry-After); slowest answer ${Math.max(0, ...ctx.log.records.map((r) => r.latencyMs))} ms`,
  ]);
}
