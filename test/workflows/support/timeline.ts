import { temporal } from '@temporalio/proto';
import { tsToMs } from '@temporalio/common/lib/time';

type History = temporal.api.history.v1.IHistory;
type Event = temporal.api.history.v1.IHistoryEvent;
const T = temporal.api.enums.v1.EventType;

export interface TimerSpan {
  /** The duration the workflow asked for (startToFireTimeout). */
  durationMs: number;
  /** Server time of TimerStarted, i.e. the end of the workflow task that started it. */
  startedAt: number;
  /** Server time of the start of that workflow task: the workflow's clock read inside it is at or after this. */
  taskStartedAt: number;
  /** Server time of TimerFired; null while it has not fired. */
  firedAt: number | null;
  /** Workflow time of the task that ran after the timer fired (what Date.now() returned there). */
  resumedAt: number | null;
  /** Zero-based index of the workflow task that started the timer (0 = the acceptance task). */
  startedInTask: number;
}

export interface Timeline {
  /** Workflow time of each workflow task, in order (WorkflowTaskStarted event times). */
  taskTimes: number[];
  timers: TimerSpan[];
  /** Event type names, e.g. 'TIMER_STARTED', in history order. */
  eventTypes: string[];
}

const time = (e: Event) => tsToMs(e.eventTime!);
/** Event ids arrive as Long. */
const num = (v: unknown) => Number(String(v));
const name = (e: Event) => T[e.eventType!].replace(/^EVENT_TYPE_/, '');

/** Reads the durable timers and the workflow-time clock of a charge from its history. */
export function timelineOf(history: History): Timeline {
  const events = history.events ?? [];
  const tasks: Event[] = events.filter((e) => e.eventType === T.EVENT_TYPE_WORKFLOW_TASK_STARTED);
  const taskAfter = (eventId: number) => tasks.find((t) => num(t.eventId) > eventId);
  const timers = events
    .filter((e) => e.eventType === T.EVENT_TYPE_TIMER_STARTED)
    .map((started): TimerSpan => {
      const attrs = started.timerStartedEventAttributes!;
      // The task whose completion started it: the last one started before it. (Not
      // workflowTaskCompletedEventId: the Java test server fills it with the task's started event id.)
      const taskIndex = tasks.filter((t) => num(t.eventId) < num(started.eventId)).length - 1;
      const fired = events.find((e) => e.eventType === T.EVENT_TYPE_TIMER_FIRED && num(e.timerFiredEventAttributes!.startedEventId) === num(started.eventId));
      const resumed = fired ? taskAfter(num(fired.eventId)) : undefined;
      return {
        durationMs: tsToMs(attrs.startToFireTimeout!),
        startedAt: time(started),
        taskStartedAt: time(tasks[taskIndex]),
        firedAt: fired ? time(fired) : null,
        resumedAt: resumed ? time(resumed) : null,
        startedInTask: taskIndex,
      };
    });
  return { taskTimes: tasks.map(time), timers, eventTypes: events.map(name) };
}

/**
 * The timer aims at `target` (an instant, or its ms): its duration is the target less the workflow
 * clock read inside the task that set it (between that task's start and the timer's start).
 */
export function expectAimedAt(timer: TimerSpan, target: string | number): void {
  const at = typeof target === 'number' ? target : Date.parse(target);
  expect(timer.durationMs).toBeGreaterThanOrEqual(at - timer.startedAt);
  expect(timer.durationMs).toBeLessThanOrEqual(at - timer.taskStartedAt);
}
