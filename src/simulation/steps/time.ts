import type { StepHandler } from '../types';
import { done } from './common';

/** `time_jump`: workflow time, the process's clock and the database's move forward by `ms` (seconds to days). */
export const timeJumpStep: StepHandler = async (ctx, step) => {
  const ms = Number(step.params.ms);
  await ctx.timeJump(ms);
  return done(step, `+${ms} ms`);
};
