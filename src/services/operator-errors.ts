import { userInfo } from 'node:os';
import { ActivityFailure, ServiceError, WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { isTemporalUnavailable } from './dependency-unavailable';
import { paymentTypeOf } from '../domain/payment-types';

/** Who sent an operator command from this machine (`cli:<login>`), recorded with the decision. */
export function cliSender(): string {
  try {
    return `cli:${userInfo().username}`.slice(0, 100);
  } catch {
    return 'cli';
  }
}

/**
 * The message of an update's failure: the handler's own, or, when an activity of the handler refused
 * (a store's refusal, such as settle-late's), that activity's (the ActivityFailure's cause), not
 * "Activity task failed".
 */
function refusalMessage(cause: Error | undefined): string | undefined {
  if (cause instanceof ActivityFailure && cause.cause?.message) return cause.cause.message;
  return cause?.message;
}

/**
 * The error an operator command on a payment's workflow reports: the workflow's own refusal (its
 * validator's or its handler's message), a missing run, or a Temporal that did not answer in time.
 */
export function operatorError(paymentId: string, what: string, error: unknown, deadlineMs: number, deadline: number): unknown {
  const payment = `${paymentTypeOf(paymentId) ?? 'payment'} ${paymentId}`;
  if (error instanceof WorkflowUpdateFailedError) return new Error(refusalMessage(error.cause) ?? error.message);
  if (error instanceof WorkflowNotFoundError) return new Error(`${payment}: its workflow is not running; nothing was ${what}`);
  const atDeadline = error instanceof ServiceError && Date.now() >= deadline - 100;
  if (isTemporalUnavailable(error) || atDeadline) {
    return new Error(
      `${payment}: the workflow did not answer within ${deadlineMs / 1000} s (Temporal or the payment workers may be unavailable). ` +
        `If it was accepted it takes effect: run the same command again, or open workflow ${paymentId} in the Temporal UI.`,
    );
  }
  return error;
}

