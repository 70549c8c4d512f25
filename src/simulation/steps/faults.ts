import type { StepHandler } from '../types';
import { done } from './common';

/** `receiver_failure`: a webhook receiver answers ok, 500, slowly, or drops the connection from now on. */
export const receiverFailureStep: StepHandler = async (ctx, step) => {
  const mode = String(step.params.mode) as 'ok' | 'fail_500' | 'slow' | 'drop';
  ctx.receivers.setMode(Number(step.params.receiver), mode);
  return done(step, `receiver ${step.params.receiver}: ${mode}`);
};

/** `restart_worker`: the worker (and its relays) stops and a new one starts; workflows go on from their histories. */
export const restartWorkerStep: StepHandler = async (ctx, step) => {
  await ctx.restartWorker();
  return done(step, 'restarted');
};

/** `cut_db_connections`: every server session of the run's database is terminated; the pools reconnect. */
export const cutDbConnectionsStep: StepHandler = async (ctx, step) => {
  await ctx.cutDbConnections();
  return done(step, 'cut');
};

/** `fail_activity`: the next `times` attempts of an activity fail with a retryable error. */
export const failActivityStep: StepHandler = async (ctx, step) => {
  // `when: 'after'`: the calls run (their effects committed) and their answers are lost; Temporal retries them.
  const when = step.params.when === 'after' ? 'after' : 'before';
  ctx.failActivity(String(step.params.activity), Number(step.params.times), when);
  return done(step, `${step.params.activity} × ${step.params.times}${when === 'after' ? ', each answer lost after it ran' : ''}`);
};
