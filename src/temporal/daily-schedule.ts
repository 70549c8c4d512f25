import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client, type ScheduleOptionsStartWorkflowAction, type Workflow } from '@temporalio/client';

/** A missed run (the server was down at its time) is still taken within this window, once (overlap SKIP). */
const CATCHUP_WINDOW = '1 day';

/**
 * Creates a deployment's cron Schedule, or brings an existing one up to date (idempotent; called at
 * every worker start): `cron` in UTC, overlap policy SKIP (a run still going when the next is due
 * makes that one skip), a missed run taken within a day. An update keeps the Schedule's state: one an
 * operator paused in the Temporal UI (Schedules) stays paused. A cron expression Temporal refuses
 * throws an Error naming `setting` (the variable it came from).
 */
export async function ensureCronSchedule<W extends Workflow>(
  client: Client,
  options: { scheduleId: string; cron: string; setting: string; action: ScheduleOptionsStartWorkflowAction<W> },
): Promise<{ scheduleId: string; created: boolean }> {
  const { scheduleId, cron, setting, action } = options;
  const spec = { cronExpressions: [cron], timezone: 'UTC' };
  const policies = { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: CATCHUP_WINDOW };
  try {
    try {
      await client.schedule.create({ scheduleId, spec, action, policies, state: { note: `${setting} ${cron} (UTC); created at worker start` } });
      return { scheduleId, created: true };
    } catch (error) {
      if (!(error instanceof ScheduleAlreadyRunning)) throw error;
    }
    await client.schedule.getHandle(scheduleId).update((previous) => ({
      ...previous,
      spec,
      action,
      policies,
      state: { paused: previous.state.paused, note: previous.state.note, remainingActions: previous.state.remainingActions },
    }));
    return { scheduleId, created: false };
  } catch (error) {
    // The client turns the server's "Invalid schedule spec" into a TypeError with its reason.
    if (error instanceof TypeError) throw new Error(`${setting} "${cron}" was refused by Temporal: ${error.message}`);
    throw error;
  }
}
