import { isTemporalUnavailable, withTemporalDeadline } from './dependency-unavailable';
import type { ServiceDeps } from './context';

/**
 * CHARGE_START_WAIT_MS when unset: how long a create waits for its workflow's start before it
 * answers anyway. A start takes a few milliseconds to ~150 ms (p99) on a healthy server, so this is
 * reached only when Temporal is slow or down; the start goes on in the background (up to the
 * request deadline) and the payment's start relay starts whatever it missed.
 */
export const DEFAULT_CHARGE_START_WAIT_MS = 1_000;

/** The payment a create just committed, and how its workflow is started and marked started. */
export interface WorkflowStartJob {
  /** `charge`, `payout`, `refund`, `dispute`: names the log field (`<kind>Id`) and the relay. */
  kind: string;
  id: string;
  start: () => Promise<unknown>;
  /** Marks the workflow started, so the <kind>-start relay never repeats a start merely queued behind a busy worker. */
  markStarted: () => Promise<unknown>;
}

/**
 * Write first, then start: the payment is durable at commit, so its workflow start waits at most
 * CHARGE_START_WAIT_MS and never throws. A start that is slow or fails is logged and finished by the
 * payment's start relay (src/runtime/start-relay.ts); one that succeeds is marked at once.
 */
export async function startWithin(deps: ServiceDeps, job: WorkflowStartJob): Promise<void> {
  const field = { [`${job.kind}Id`]: job.id };
  const relay = `the ${job.kind}-start relay`;
  const start = withTemporalDeadline(deps.temporal, deps.temporalDeadlineMs, job.start).then(
    () =>
      job.markStarted().then(
        () => undefined,
        (error: unknown) => deps.log.warn({ ...field, err: error }, `${job.kind} workflow started but not marked; ${relay} will confirm it`),
      ),
    (error: unknown) => {
      const message = `${job.kind} workflow not started; ${relay} will start it`;
      if (isTemporalUnavailable(error)) deps.log.warn({ ...field, err: error }, message);
      else deps.log.error({ ...field, err: error }, message);
    },
  );
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, deps.chargeStartWaitMs ?? DEFAULT_CHARGE_START_WAIT_MS);
  });
  await Promise.race([start, waited]);
  clearTimeout(timer);
}
