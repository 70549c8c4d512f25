import type { WorkflowHandle, WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { deliverInTurn, IN_TURN_BUDGET_MS } from '../../../activities/deliver-in-turn';
import type { DeliverWebhookInput, WebhookActivities, WebhookFifoActivities, WebhookInTurnActivities } from '../../../activities/types';
import { fifoWorkflowId, type FifoNext, type FifoState, type FifoWaiting, type FifoWorkflowInput } from '../../../src/domain/webhook-fifo';
import { randomBase62 } from '../../../src/support/new-id';
import { webhookTaskQueueFor } from '../../../src/temporal/task-queues';
import { fifoSkipSignal, fifoStateQuery, fifoWakeSignal, type webhookFifoWorkflow } from '../../../workflows/webhook-fifo';
import { FakeWebhookReceiver, type Script } from './fake-webhook-activities';
import { startDeliveryQueueWorker, type TimeSkippingWorkers } from './time-skipping-workers';
import { signalsAnswered, waitFor } from './wait-for';

export { failed, skipped, succeeded } from './fake-webhook-activities';

const T = temporal.api.enums.v1.EventType;

/** A delivery in the endpoint's queue: waiting while pending, as webhook_deliveries' FIFO rows. */
export interface FakeFifoDelivery extends FifoWaiting {
  status: 'pending' | 'succeeded' | 'failed' | 'skipped';
}

/** One `deliverWebhook` call as the fake saw it, with the delivery's sequence. */
export interface FifoSend {
  sequence: number;
  input: DeliverWebhookInput;
}

/**
 * An endpoint's FIFO queue in memory (src/persistence/webhooks/webhook-fifo-store.ts as the
 * workflow sees it) and its receiver: `nextFifoDeliveries` answers the endpoint's `order` and the
 * first `limit` pending deliveries by sequence; `deliverWebhook` answers each delivery's script
 * (FakeWebhookReceiver: one step per attempt, or a function of the attempt) and moves the delivery
 * as the real attempt's record does (a 2xx: succeeded; failed with no retry: failed; skipped:
 * skipped; failed with a retry: still pending, its attempt counted). A delivery no longer pending
 * (skipped by `skip`, the API's part) is answered `skipped` without a send, as the real attempt
 * answers one closed meanwhile. Sends are counted while under way (`mostInFlight`): each takes a
 * few ms of real time, so two at once would show.
 */
export class FakeFifo {
  order: FifoNext['order'] = 'fifo';
  readonly deliveries: FakeFifoDelivery[] = [];
  readonly reads: Array<{ request: Parameters<WebhookFifoActivities['nextFifoDeliveries']>[0]; answered: number[] }> = [];
  /** The sends, in order (not the answers for a delivery closed meanwhile). */
  readonly sends: FifoSend[] = [];
  /** Calls answered `skipped` without a send: the delivery was no longer pending. */
  readonly closedCalls: FifoSend[] = [];
  mostInFlight = 0;
  private inFlight = 0;
  private receiver = new FakeWebhookReceiver();

  reset(order: FifoNext['order'] = 'fifo'): void {
    this.order = order;
    this.deliveries.length = 0;
    this.reads.length = 0;
    this.sends.length = 0;
    this.closedCalls.length = 0;
    this.inTurnCalls.length = 0;
    this.inTurnBudgetMs = IN_TURN_BUDGET_MS;
    this.mostInFlight = 0;
    this.inFlight = 0;
    this.receiver = new FakeWebhookReceiver();
  }

  /** Puts a delivery of event `sequence` into the queue, with `attemptCount` attempts recorded before and its receiver's script. */
  add(sequence: number, script: Script, attemptCount = 0): FakeFifoDelivery {
    const delivery: FakeFifoDelivery = { deliveryId: `whd_seq${sequence}`, eventId: `evt_seq${sequence}`, eventType: 'transaction.created', sequence, attemptCount, status: 'pending' };
    this.deliveries.push(delivery);
    this.receiver.script(delivery.deliveryId, script);
    return delivery;
  }

  /** What the skip operation writes first: the pending delivery of `sequence` is skipped. */
  skip(sequence: number): void {
    const delivery = this.bySequence(sequence);
    if (delivery.status === 'pending') delivery.status = 'skipped';
  }

  bySequence(sequence: number): FakeFifoDelivery {
    const delivery = this.deliveries.find((d) => d.sequence === sequence);
    if (!delivery) throw new Error(`no delivery of sequence ${sequence}`);
    return delivery;
  }

  /** The sends of one event, in order. */
  sendsOf(sequence: number): FifoSend[] {
    return this.sends.filter((s) => s.sequence === sequence);
  }

  /** The in-turn executions (deliverWebhooksInTurn) as the fake saw them: the sequences each was given. */
  readonly inTurnCalls: number[][] = [];
  /** The budget each in-turn execution gets (0: it sends one, then stops as one whose minute is spent). */
  inTurnBudgetMs = IN_TURN_BUDGET_MS;

  readonly activities: WebhookFifoActivities & WebhookActivities & WebhookInTurnActivities = {
    nextFifoDeliveries: async (request) => {
      const waiting = this.deliveries
        .filter((d) => d.status === 'pending')
        .sort((a, b) => a.sequence - b.sequence)
        .slice(0, request.limit)
        .map(({ status: _status, ...w }) => w);
      this.reads.push({ request, answered: waiting.map((w) => w.sequence) });
      return { order: this.order, waiting };
    },
    deliverWebhook: async (input) => {
      const delivery = this.deliveries.find((d) => d.deliveryId === input.deliveryId);
      if (!delivery) throw new Error(`unknown delivery ${input.deliveryId}`);
      if (delivery.status !== 'pending') {
        this.closedCalls.push({ sequence: delivery.sequence, input });
        return { outcome: 'skipped', statusCode: null, reason: `already ${delivery.status}`, retryInMs: null, autoDisabled: false };
      }
      this.sends.push({ sequence: delivery.sequence, input });
      this.inFlight++;
      this.mostInFlight = Math.max(this.mostInFlight, this.inFlight);
      try {
        await new Promise((resolve) => setTimeout(resolve, 5));
        const outcome = await this.receiver.activities.deliverWebhook(input);
        delivery.attemptCount = input.attempt;
        if (outcome.outcome === 'succeeded') delivery.status = 'succeeded';
        else if (outcome.outcome === 'skipped') delivery.status = 'skipped';
        else if (outcome.retryInMs === null) delivery.status = 'failed';
        return outcome;
      } finally {
        this.inFlight--;
      }
    },
    // The real loop (activities/deliver-in-turn.ts) over this fake's attempt.
    deliverWebhooksInTurn: async (input) => {
      this.inTurnCalls.push(input.attempts.map((a) => this.deliveries.find((d) => d.deliveryId === a.deliveryId)?.sequence ?? -1));
      return deliverInTurn(input, (one) => this.activities.deliverWebhook(one), { budgetMs: this.inTurnBudgetMs, now: Date.now, isGone: () => false });
    },
  };
}

export interface FifoTestEnv extends TimeSkippingWorkers {
  fifo: FakeFifo;
  /** A FIFO input for a fresh endpoint (`we_…`) of mer_test on the sandbox queue. */
  input(overrides?: Partial<FifoWorkflowInput>): FifoWorkflowInput;
  /** Starts the endpoint's workflow (id `fifo-<endpoint id>`) on the sandbox webhook queue. */
  start(input: FifoWorkflowInput): Promise<WorkflowHandleWithFirstExecutionRunId<typeof webhookFifoWorkflow>>;
  /** The chain's result (time skips while it is awaited). */
  result(input: FifoWorkflowInput): Promise<unknown>;
  /** Waits (real time, no skipping) until the run waits out the retry delay of event `sequence`'s head; answers the query's state then. */
  retryWaitOf(handle: WorkflowHandle, sequence: number): Promise<FifoState>;
  /** Waits (real time) until the run has started its idle wait: `reads` reads answered, the last activity a read, and a timer started after it. */
  idleAfter(handle: WorkflowHandle, reads: number): Promise<void>;
  /** The API's skip: the delivery marked skipped, then the workflow told; returns once the run answered the signal. */
  skip(handle: WorkflowHandle, sequence: number): Promise<void>;
  /** The relay's wake-up; returns once the run answered the signal. */
  wake(handle: WorkflowHandle): Promise<void>;
}

/** webhookFifoWorkflow (the worker's bundle) on the time-skipping test server, on the sandbox webhook queue, its queue and receiver in memory. */
export async function startFifoEnv(): Promise<FifoTestEnv> {
  const fifo = new FakeFifo();
  const workers = await startDeliveryQueueWorker('fifo', fifo.activities);
  const { client } = workers.env;
  return {
    ...workers,
    fifo,
    input: (overrides = {}) => ({ endpointId: `we_${randomBase62(24)}`, merchantId: 'mer_test', environment: 'sandbox', retryScheduleMs: [5_000, 60_000, 600_000], ...overrides }),
    start: (input) =>
      client.workflow.start<typeof webhookFifoWorkflow>('webhookFifoWorkflow', { workflowId: fifoWorkflowId(input.endpointId), taskQueue: webhookTaskQueueFor(workers.taskQueue, 'sandbox'), args: [input] }),
    result: (input) => client.workflow.getHandle(fifoWorkflowId(input.endpointId)).result(),
    async retryWaitOf(handle, sequence) {
      let state: FifoState | undefined;
      await waitFor(async () => {
        state = await handle.query(fifoStateQuery).catch(() => undefined);
        return state?.head?.sequence === sequence && state.head.nextAttemptAt !== null;
      });
      return state!;
    },
    async idleAfter(handle, reads) {
      await waitFor(async () => {
        if (fifo.reads.length < reads) return false;
        const events = (await handle.fetchHistory()).events ?? [];
        const lastScheduled = events.findLastIndex((e) => e.eventType === T.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED);
        if (events[lastScheduled]?.activityTaskScheduledEventAttributes?.activityType?.name !== 'nextFifoDeliveries') return false;
        return events.slice(lastScheduled).some((e) => e.eventType === T.EVENT_TYPE_TIMER_STARTED);
      });
    },
    async skip(handle, sequence) {
      fifo.skip(sequence);
      await handle.signal(fifoSkipSignal, { sequence });
      await signalsAnswered(handle);
    },
    async wake(handle) {
      await handle.signal(fifoWakeSignal);
      await signalsAnswered(handle);
    },
  };
}
