import { runCli } from '../cli-runner';
import { merchantIds, result, type CheckContext, type CheckResult } from './check';

/** Statuses from which a payment of each kind moves no more (src/domain/*: isTerminal…). */
const TERMINAL: Record<string, readonly string[]> = {
  charges: ['succeeded', 'failed', 'expired', 'reversed'],
  payouts: ['succeeded', 'failed', 'reversed'],
  refunds: ['succeeded', 'failed'],
  disputes: ['won', 'lost'],
  settlements: ['paid', 'failed'],
};

/**
 * How long a payment may rightly still be on its way without being flagged: a live payment the
 * partner has not answered is flagged NeedsAttention after 10 minutes (PARTNER_NO_ANSWER_ATTENTION_MS);
 * a dispute waits for the merchant's evidence until evidence_due_by; the sandbox ends everything
 * the load starts within seconds.
 */
const LIVE_WAIT_MS = 11 * 60_000;
const SANDBOX_WAIT_MS = 2 * 60_000;

interface Row {
  id: string;
  kind: string;
  environment: string;
  status: string;
  age_ms: string;
  due: boolean | null;
}

/**
 * Every payment of the run's merchants is terminal, or waiting with NeedsAttention and a reason
 * (`npm run cli -- payments stuck`, which reads the NeedsAttention search attribute and asks each
 * workflow why), or still within the wait it is allowed (above).
 */
export async function checkPayments(ctx: CheckContext): Promise<CheckResult> {
  const ids = merchantIds(ctx);
  const rows: Row[] = [];
  for (const kind of Object.keys(TERMINAL)) {
    const due = kind === 'disputes' ? 'evidence_due_by > now()' : 'null::boolean';
    rows.push(
      ...(await ctx.db.rows<Row>(
        `select id, '${kind}' as kind, environment, status, (extract(epoch from now() - created_at) * 1000)::bigint::text as age_ms, ${due} as due from ${kind} where merchant_id = any($1)`,
        [ids],
      )),
    );
  }
  const open = rows.filter((r) => !TERMINAL[r.kind]!.includes(r.status));
  const stuck = open.length === 0 ? [] : ((await runCli(ctx.dir, ['payments', 'stuck'])) as { data: Array<{ id: string; needs_attention: boolean; reason: string }> }).data;
  const flagged = new Map(stuck.filter((s) => s.needs_attention && s.reason).map((s) => [s.id, s.reason]));
  const violations: string[] = [];
  let flaggedCount = 0;
  let waiting = 0;
  let awaitingEvidence = 0;
  for (const r of open) {
    if (flagged.has(r.id)) {
      flaggedCount++;
      continue;
    }
    if (r.kind === 'disputes' && r.status === 'needs_response' && r.due) {
      awaitingEvidence++;
      continue;
    }
    const allowance = r.environment === 'live' ? LIVE_WAIT_MS : SANDBOX_WAIT_MS;
    if (Number(r.age_ms) < allowance) {
      waiting++;
      continue;
    }
    violations.push(`${r.id} (${r.environment} ${r.kind}) is ${r.status} after ${Math.round(Number(r.age_ms) / 1000)} s, not NeedsAttention`);
  }
  const notes = [`${rows.length} payments: ${rows.length - open.length} terminal, ${flaggedCount} NeedsAttention with a reason, ${awaitingEvidence} disputes awaiting evidence, ${waiting} still within their wait`];
  for (const r of open.filter((o) => flagged.has(o.id)).slice(0, 10)) notes.push(`  NeedsAttention ${r.id}: ${flagged.get(r.id)}`);
  return result('every payment terminal or NeedsAttention with a reason', rows.length, violations, notes);
}
