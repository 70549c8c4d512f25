import { parseStatementFile } from '../../rail/momo-statement';
import { importAndFlag } from '../../reconcile/import-statement';
import { flagPaymentReview } from '../../services/payment-review';
import type { StepHandler } from '../types';
import { done, refusal } from './common';

/** `partner_behaviour`: how the fake partner answers the next live payments (normal, late, twice, never). */
export const partnerBehaviourStep: StepHandler = async (ctx, step) => {
  const behaviour = String(step.params.behaviour) as Parameters<typeof ctx.partner.setBehaviour>[0];
  ctx.partner.setBehaviour(behaviour);
  return done(step, behaviour);
};

/**
 * `partner_statement`: the fake partner's statement of a day (`days_ago` before the simulated now), with
 * `breaks` lines changed, imported as `reconcile import FILE` does it (breaks flagged for review).
 */
export const partnerStatementStep: StepHandler = async (ctx, step) => {
  const day = new Date((await ctx.now()) - Number(step.params.days_ago) * 86_400_000).toISOString().slice(0, 10);
  const breaks = Number(step.params.breaks);
  const content = await ctx.partner.statement(day, breaks);
  try {
    const statement = parseStatementFile(content, { date: day, product: 'collection' });
    const flag = (start: Parameters<typeof flagPaymentReview>[1]) => flagPaymentReview(ctx.temporal.client, start, ctx.taskQueue);
    const summary = await importAndFlag({ orm: ctx.orm, flag }, statement, `simulation:${day}`);
    return done(step, `${day} breaks ${breaks}: ${JSON.stringify(summary).slice(0, 200)}`);
  } catch (error) {
    return done(step, `${day} breaks ${breaks}: ${refusal(error)}`);
  }
};
