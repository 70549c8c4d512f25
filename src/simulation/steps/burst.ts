import { ACCOUNTS } from '../../domain/ledger';
import type { SimAnswer, SimContext, StepHandler } from '../types';
import { callbackRaceStep } from './callback-race';
import { slowPartnerRaceStep } from './slow-partner-race';
import { chargeBody } from './charges';
import { payoutBody } from './payouts';
import { done, keyOf, merchantById, resolveRef, skipped } from './common';

/**
 * `burst` (issue 44, concurrency): several requests at once, where the engine must serialise them.
 * - `refunds`: `count` refunds of all that is left of one earlier sandbox charge, each with its own
 *   Idempotency-Key, sent together: at most one can take the money (invariant "refunds and disputes
 *   within their charge").
 * - `same_key_charge`: one sandbox charge sent `count` times together under one Idempotency-Key: one
 *   charge at most, every stored answer naming it (a 2xx, or the sandbox `indeterminate` outcome's
 *   504 `partner_timeout` with its `transaction_id`), the others `idempotency_key_in_use` (409) (invariant
 *   "one resource per Idempotency-Key"; the answers are kept in the registry's `bursts`).
 * - `payouts`: `count` sandbox payouts of one merchant at once, each of more than half its available
 *   balance: at most one is covered (invariant "payouts at once never overdraw": available not below
 *   zero after the burst; the figures are kept in the registry's `balanceRaces`).
 * - `callback_race`: a live charge the partner keeps PENDING, then its callback, a resolve and a review
 *   at once (callback-race.ts).
 * - `slow_partner_race`: a live charge or payout the partner answers slowly, and an operator acting on
 *   it while its submission hangs (slow-partner-race.ts).
 * What a burst creates is not referenced by later steps.
 */
export const burstStep: StepHandler = async (ctx, step) => {
  if (step.params.shape === 'callback_race') return callbackRaceStep(ctx, step);
  if (step.params.shape === 'slow_partner_race') return slowPartnerRaceStep(ctx, step);
  const count = Number(step.params.count);
  if (step.params.shape === 'refunds') {
    const ref = resolveRef(ctx, step, 'charge');
    if (typeof ref === 'string') return skipped(step, ref);
    const merchant = merchantById(ctx, ref.extra.merchant);
    if (!merchant) return skipped(step, `the merchant of charge ${ref.id} is unknown`);
    if (ref.extra.environment === 'live') return skipped(step, `charge ${ref.id} is live (a burst of refunds takes a sandbox charge)`);
    const answers = await Promise.all(
      Array.from({ length: count }, (_, i) =>
        ctx.api('sandbox', 'POST', '/v1/refunds', { key: keyOf(merchant, 'sandbox'), body: { charge: ref.id, reason: 'requested_by_customer' }, idempotencyKey: `${step.params.idempotency_key}-${i}` }),
      ),
    );
    return done(step, `${count} refunds of ${ref.id} at once: ${summary(answers)}`);
  }
  const ref = resolveRef(ctx, step, 'merchant');
  if (typeof ref === 'string') return skipped(step, ref);
  const merchant = merchantById(ctx, ref.id)!;
  if (step.params.shape === 'payouts') {
    // Each payout more than half of what is available now: at most one can be covered.
    const before = await availableOf(ctx, merchant.id);
    const amount = Math.floor((before * 0.55) / 100) * 100;
    if (amount < 100) return skipped(step, `merchant ${merchant.id} has ${before} GHS minor units available in the sandbox: nothing to race for`);
    const answers = await Promise.all(
      Array.from({ length: count }, (_, i) =>
        ctx.api('sandbox', 'POST', '/v1/payouts', { key: keyOf(merchant, 'sandbox'), body: payoutBody({ ...step, params: { ...step.params, amount } }), idempotencyKey: `${step.params.idempotency_key}-${i}` }),
      ),
    );
    const after = await availableOf(ctx, merchant.id);
    ctx.registry.balanceRaces.push({ n: step.n, merchant: merchant.id, before, after });
    return done(step, `${count} payouts of ${amount} at once from ${before} available: ${summary(answers)}; ${after} left`);
  }
  const idempotencyKey = String(step.params.idempotency_key);
  const answers = await Promise.all(
    Array.from({ length: count }, () => ctx.api('sandbox', 'POST', '/v1/charges', { key: keyOf(merchant, 'sandbox'), body: chargeBody(step), idempotencyKey })),
  );
  // The object an answer names: a 2xx's `id`, or the charge a saved 504 partner_timeout names (`transaction_id`).
  const named = (a: SimAnswer) => {
    const json = a.json as { id?: string; error?: { code?: string; transaction_id?: string } } | null;
    return { status: a.status, id: json?.id ?? json?.error?.transaction_id, code: json?.error?.code };
  };
  ctx.registry.bursts.push({ n: step.n, idempotencyKey, answers: answers.map(named) });
  return done(step, `a charge ${count} times at once under one key: ${summary(answers)}`);
};

/** The merchant's available sandbox GHS balance (minor units) now. */
async function availableOf(ctx: SimContext, merchantId: string): Promise<number> {
  const [row] = await ctx.orm.em.fork().execute<Array<{ amount: string }>>(
    `select amount::text as amount from account_balances where merchant_id = ? and environment = 'sandbox' and currency = 'GHS' and account = ?`,
    [merchantId, ACCOUNTS.merchantAvailable],
  );
  return row ? Number(row.amount) : 0;
}

/** `200 ×1, 409 idempotency_key_in_use ×2`, in order of status. */
function summary(answers: SimAnswer[]): string {
  const counts = new Map<string, number>();
  for (const a of answers) {
    const code = (a.json as { error?: { code?: string } } | null)?.error?.code;
    const key = `${a.status}${code ? ` ${code}` : ''}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([k, n]) => `${k} ×${n}`).join(', ');
}
