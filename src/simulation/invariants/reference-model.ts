import { chargeFee, payoutFee, type ModelFee } from '../model/rates';
import { expectedPhase, sandboxEnd } from '../model/outcomes';
import type { Invariant, SimContext } from '../types';
import { TEXT_ARRAY } from '../../persistence/sql-values';
import { rows } from './sql';

/**
 * The reference model (issue 44): what each sandbox create the plan sent should have become, reckoned
 * from the request, its answer, the simulated clock and the published prices and outcomes alone
 * (src/simulation/model/), against the engine's rows. It holds the engine to the plan, where the other
 * invariants hold it to itself:
 * - every accepted charge keeps the amount, currency and channel sent, its fee is the published rate's
 *   and its merchant_amount the rest; every accepted payout's fee and total_debit are the published
 *   payout rate's;
 * - each charge, refund and payout is open until its outcome is due and has its outcome (status and
 *   failure class) from MODEL_SLACK_MS after, unless an operator acted on it (`charges reverse`,
 *   `charges resolve`, `payouts approve|reject|reverse`: their outcome is the operator's), or it
 *   was held for review (its outcome then is the reviewer's).
 * Sandbox only: a live payment's outcome is the partner's (the partner-books invariant). Refund caps,
 * idempotent repeats and cover for payouts are other invariants' (refundsWithinCharge,
 * idempotentReplays, payoutsNeverOverdraw; docs/simulation.md "The reference model").
 */

interface Sent {
  kind: 'charge' | 'refund' | 'payout';
  id: string;
  at: number;
  body: Record<string, unknown>;
  answer: Record<string, unknown>;
}

const OPEN: Record<Sent['kind'], readonly string[]> = { charge: ['pending', 'awaiting_action'], refund: ['pending'], payout: ['pending'] };
const PATHS: Record<string, Sent['kind']> = { '/v1/charges': 'charge', '/v1/refunds': 'refund', '/v1/payouts': 'payout' };

/** The sandbox creates the plan sent and the engine accepted (an id in a 2xx answer), with when they were sent. */
function sandboxCreates(ctx: SimContext): Sent[] {
  const sent: Sent[] = [];
  for (const r of ctx.registry.requests) {
    const kind = PATHS[r.path];
    const answer = r.json as Record<string, unknown> | null;
    if (!kind || r.method !== 'POST' || r.environment !== 'sandbox' || r.status >= 300 || typeof answer?.id !== 'string' || r.at === undefined) continue;
    sent.push({ kind, id: answer.id, at: r.at, body: (r.body ?? {}) as Record<string, unknown>, answer });
  }
  return sent;
}

interface Row {
  id: string;
  amount: string;
  currency: string;
  channel: string | null;
  status: string;
  failure_class: string | null;
  fee_platform: string | null;
  fee_tax: string | null;
  merchant_amount: string | null;
  total_debit: string | null;
}

const ROWS = `
  select id, amount::text as amount, currency, channel, status, failure_class, fee_platform::text as fee_platform, fee_tax::text as fee_tax,
         merchant_amount::text as merchant_amount, null::text as total_debit from charges where id = any(${TEXT_ARRAY})
  union all
  select id, amount::text, currency, null, status, failure_class, null, null, null, null from refunds where id = any(${TEXT_ARRAY})
  union all
  select id, amount::text, currency, channel, status, failure_class, fee_platform::text, fee_tax::text, null, total_debit::text from payouts where id = any(${TEXT_ARRAY})`;

/** The operator commands whose outcome is the operator's, not the model's. */
const OPERATOR_OUTCOMES = new Set(['charges reverse', 'charges resolve', 'payouts approve', 'payouts reject', 'payouts reverse', 'payments restart']);

function feeLines(label: string, row: Row, fee: ModelFee | undefined, amount: number): string[] {
  if (!fee) return [];
  const lines: string[] = [];
  if (Number(row.fee_platform) !== fee.platform || Number(row.fee_tax) !== fee.tax) lines.push(`${label}: fee ${row.fee_platform} + tax ${row.fee_tax}, the published rate gives ${fee.platform} + ${fee.tax}`);
  if (row.merchant_amount !== null && Number(row.merchant_amount) !== amount - fee.platform - fee.tax) lines.push(`${label}: merchant_amount ${row.merchant_amount}, the published rate leaves ${amount - fee.platform - fee.tax}`);
  if (row.total_debit !== null && Number(row.total_debit) !== amount + fee.platform + fee.tax) lines.push(`${label}: total_debit ${row.total_debit}, the published rate makes ${amount + fee.platform + fee.tax}`);
  return lines;
}

export const modelAgrees: Invariant = {
  name: 'the reference model: each sandbox payment as its request, its outcome and the published prices say',
  async check(ctx) {
    const sent = sandboxCreates(ctx);
    if (sent.length === 0) return [];
    const now = await ctx.now();
    const ids = (kind: Sent['kind']) => sent.filter((s) => s.kind === kind).map((s) => s.id);
    const found = new Map((await rows<Row>(ctx, ROWS, [JSON.stringify(ids('charge')), JSON.stringify(ids('refund')), JSON.stringify(ids('payout'))])).map((r) => [r.id, r]));
    const operated = new Set(ctx.registry.operatorActed.filter((a) => OPERATOR_OUTCOMES.has(a.command)).map((a) => a.id));
    const lines: string[] = [];
    for (const s of sent) {
      const label = `${s.kind} ${s.id}`;
      const row = found.get(s.id);
      if (!row) {
        lines.push(`${label}: answered ${JSON.stringify(s.answer.status ?? null)} to its create, and no row`);
        continue;
      }
      const amount = Number(row.amount);
      if (s.kind !== 'refund') {
        if (amount !== s.body.amount || row.currency !== s.body.currency || row.channel !== s.body.channel) lines.push(`${label}: ${amount} ${row.currency} by ${row.channel}, sent ${String(s.body.amount)} ${String(s.body.currency)} by ${String(s.body.channel)}`);
        lines.push(...feeLines(label, row, s.kind === 'charge' ? chargeFee(amount, row.channel ?? '') : payoutFee(amount, row.channel ?? ''), amount));
      }
      if (operated.has(s.id) || (s.kind === 'payout' && s.answer.status === 'held_for_review')) continue;
      const end = sandboxEnd((s.body.metadata as Record<string, unknown> | undefined)?.sandbox_outcome);
      if (!end) continue;
      const phase = expectedPhase(end, s.at, now);
      const open = OPEN[s.kind].includes(row.status);
      if (phase === 'open' && !open) lines.push(`${label}: ${row.status} ${Math.round(now - s.at)} ms after it was sent, before its outcome is due (${end.status} after ${end.afterMs} ms)`);
      if (phase === 'ended' && (row.status !== end.status || row.failure_class !== end.failureClass)) {
        lines.push(`${label}: ${row.status}${row.failure_class ? ` (${row.failure_class})` : ''} ${Math.round(now - s.at)} ms after it was sent; its outcome is ${end.status}${end.failureClass ? ` (${end.failureClass})` : ''} from ${end.afterMs} ms`);
      }
    }
    return lines;
  },
};
