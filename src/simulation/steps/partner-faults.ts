import type { SimContext, Step, StepHandler } from '../types';
import { answerLine, done, keyOf, merchantById, ok, resolveRef, skipped } from './common';

/**
 * Issue 46's partner faults in the simulator (docs/simulation.md, "Step kinds"), each for a span: the
 * step's own, so a plan cut by the shrinker never leaves a partner down:
 * - `partner_down`: the partner's calls (submissions and status reads) fail as never reached
 *   (RailUnavailable.notReached: the connection refused) without reaching it (sim-partner.ts);
 * - `partner_declining`: the fake's setDeclining: every new request refused at once with its
 *   retry-elsewhere reason (MoMo's 400 COULD_NOT_PERFORM_TRANSACTION, the aggregator's
 *   SERVICE_DECLINING), nothing kept.
 * While in force, `count` live mobile-money payments (charges, or payouts) of the plan's first merchant
 * are created and the engine settles; then the fault is lifted and the engine settles again. The
 * simulation routes mobile money `momo|aggregator` (engine.ts SIM_RAIL_ROUTES): with MoMo down or
 * declining, each new one fails over to the aggregator at its first submission (its first attempt
 * provably moved no money); with the aggregator down or declining, they go to MoMo as always and
 * what is at the aggregator waits (its status reads fail, then answer again). The partner-books
 * invariant then reads every reference of each payment (rail_attempts too) at both partners: paid at
 * most once, nothing left at a partner by an attempt that failed over. The party's own ending plays
 * (`normal`), whatever behaviour an earlier step set. The payments are not ones the plan names.
 */
export const partnerFaultStep: StepHandler = async (ctx, step: Step) => {
  const ref = resolveRef(ctx, step, 'merchant');
  if (typeof ref === 'string') return skipped(step, ref);
  const fault = ctx.partner.fault;
  if (!fault) return skipped(step, 'this engine has no partner faults');
  const partner = step.params.partner === 'aggregator' ? 'aggregator' : 'momo';
  const kind = step.kind === 'partner_down' ? 'down' : 'declining';
  const before = ctx.partner.behaviour?.() ?? 'normal';
  ctx.partner.setBehaviour('normal');
  fault(kind, partner, true);
  let made: Made[];
  try {
    made = await payments(ctx, step);
    await ctx.settle();
  } finally {
    fault(kind, partner, false);
    ctx.partner.setBehaviour(before);
  }
  await ctx.settle();
  // Where each went: its partner now and its attempts (GET one charge or payout: `rail`, `attempts`).
  const merchant = merchantById(ctx, (resolveRef(ctx, step, 'merchant') as { id: string }).id)!;
  const lines: string[] = [];
  for (const m of made) {
    if (!m.id) {
      lines.push(m.line);
      continue;
    }
    const read = await ctx.api('live', 'GET', `/v1/${m.payout ? 'payouts' : 'charges'}/${m.id}`, { key: keyOf(merchant, 'live') });
    const json = (ok(read) ? read.json : null) as { status?: string; rail?: string; attempts?: Array<{ partner: string; outcome: string }> } | null;
    const attempts = (json?.attempts ?? []).map((a) => `${a.partner} ${a.outcome}`).join(' → ');
    lines.push(`${m.id} ${json?.status ?? answerLine(read)} at ${json?.rail ?? '?'}${attempts ? ` (attempts: ${attempts})` : ''}`);
  }
  return done(step, `${partner} ${kind === 'down' ? 'down (not reached)' : 'declining'} for the step: ${lines.join('; ')}`);
};

interface Made {
  payout: boolean;
  id: string | undefined;
  line: string;
}

async function payments(ctx: SimContext, step: Step): Promise<Made[]> {
  const p = step.params;
  const merchant = merchantById(ctx, (resolveRef(ctx, step, 'merchant') as { id: string }).id)!;
  const payout = p.target === 'payout';
  const keys = String(p.idempotency_keys).split(',');
  const made: Made[] = [];
  for (const [i, key] of keys.entries()) {
    const identifier = `23324${String(p.phone_prefix)}${5000 + ((Number(p.phone_suffix) + i * 37) % 5000)}`;
    const common = { amount: Number(p.amount) + i * 100, currency: 'GHS', channel: 'mobile_money', momo_network_id: p.momo_network_id };
    const body = payout
      ? { ...common, recipient: { identifier, name: 'Kofi Boateng' }, reference: `sim-pf-${step.n}-${i}` }
      : { ...common, customer: { identifier, name: 'Ama Mensah' }, reference: `sim-pf-${step.n}-${i}`, description: 'simulation', metadata: {} };
    const answer = await ctx.api('live', 'POST', payout ? '/v1/payouts' : '/v1/charges', { key: keyOf(merchant, 'live'), body, idempotencyKey: key });
    const id = ok(answer) ? (answer.json as { id?: string } | null)?.id : undefined;
    made.push({ payout, id, line: `live ${payout ? 'payout' : 'charge'}: ${answerLine(answer)}` });
  }
  return made;
}
