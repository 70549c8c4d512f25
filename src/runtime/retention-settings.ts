import { cronProblem } from '../domain/cron-expression';
import type { RetentionKind, RetentionPlan } from '../domain/retention';
import { parseDuration } from '../domain/webhook-retry';
import { StartupError } from '../support/startup-error';

/**
 * Retention settings (issue 34; docs/operations.md "Retention"), read with the rest of the
 * configuration (src/config.ts), so a bad value stops every process at start-up with one line naming
 * it. Settings only: the job is workflows/retention.ts, started by src/temporal/retention-schedule.ts.
 */

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** RETENTION_SCHEDULE when unset: every hour at minute 17 (UTC), off the hour other jobs start on. */
export const DEFAULT_RETENTION_SCHEDULE = '17 * * * *';

/** Each window's setting, default and minimum. */
export const RETENTION_WINDOWS: Record<RetentionKind, { setting: string; defaultMs: number; minMs: number; why: string }> = {
  // SPEC 8: history walkable 90 days; a delivery (and its attempts) is kept as long.
  webhook_deliveries: { setting: 'WEBHOOK_DELIVERY_RETENTION', defaultMs: 90 * DAY_MS, minMs: DAY_MS, why: 'a delivery stays readable and replayable at least a day' },
  // INTERFACE.md "Idempotency": kept at least 24 hours.
  idempotency_keys: { setting: 'IDEMPOTENCY_RETENTION', defaultMs: DAY_MS, minMs: DAY_MS, why: 'keys are kept at least 24 hours' },
  // A counter lives 1 s (10 s for a burst); an hour after it expired nobody reads it.
  rate_limits: { setting: 'RATE_LIMIT_RETENTION', defaultMs: HOUR_MS, minMs: 60_000, why: 'a counter must outlive its 10 s burst window' },
  notifications: { setting: 'NOTIFICATION_RETENTION', defaultMs: 90 * DAY_MS, minMs: DAY_MS, why: 'a notification and its attempts stay at least a day' },
};

export const DEFAULT_RETENTION_BATCH = 1_000;
export const MAX_RETENTION_BATCH = 100_000;
export const DEFAULT_RETENTION_BATCH_PAUSE_MS = 100;
export const MAX_RETENTION_BATCH_PAUSE_MS = 60_000;

/** EVENTS_WALK_WINDOW when unset, and its minimum: SPEC 8 "History walkable by after_sequence: 90 days". */
export const DEFAULT_EVENTS_WALK_WINDOW_MS = 90 * DAY_MS;

/** Settings of the retention job's earlier form (a loop in the worker), refused with what replaced them. */
const REPLACED: Record<string, string> = {
  IDEMPOTENCY_RETENTION_INTERVAL: 'the retention Schedule runs it (RETENTION_SCHEDULE, a cron expression)',
  IDEMPOTENCY_RETENTION_BATCH: 'RETENTION_BATCH sets the rows per statement of every kind',
};

export interface RetentionSettings {
  /** RETENTION_SCHEDULE: cron (UTC) of the retention Schedule. */
  schedule: string;
  /** The windows, the batch and the pause every run works with. */
  plan: RetentionPlan;
  /** EVENTS_WALK_WINDOW: how far back GET /v1/events walks (the API answers older positions 410 `events_expired`). */
  eventsWalkWindowMs: number;
}

function duration(env: NodeJS.ProcessEnv, name: string, fallback: number, minMs: number, maxMs: number, floorWhy: string): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  let ms: number;
  try {
    ms = parseDuration(raw);
  } catch {
    throw new StartupError(`${name} must be a duration such as "90d", "24h", "30m" or "100ms", got "${raw}"`);
  }
  if (ms < minMs || ms > maxMs) throw new StartupError(`${name} must be from ${text(minMs)} to ${text(maxMs)} (${floorWhy}), got "${raw}"`);
  return ms;
}

const text = (ms: number) => (ms === 0 ? '0' : ms % DAY_MS === 0 ? `${ms / DAY_MS}d` : ms % HOUR_MS === 0 ? `${ms / HOUR_MS}h` : ms % 60_000 === 0 ? `${ms / 60_000}m` : `${ms}ms`);

/** Ten years: a longer window is a typo. */
const MAX_WINDOW_MS = 3650 * DAY_MS;

/** RETENTION_SCHEDULE, the four windows, RETENTION_BATCH, RETENTION_BATCH_PAUSE and EVENTS_WALK_WINDOW (unset: the defaults above). */
export function retentionSettings(env: NodeJS.ProcessEnv = process.env): RetentionSettings {
  for (const [name, instead] of Object.entries(REPLACED)) {
    if (env[name]?.trim()) throw new StartupError(`${name} is no longer read: ${instead}; unset it (docs/operations.md, Retention)`);
  }
  const schedule = env.RETENTION_SCHEDULE?.trim() || DEFAULT_RETENTION_SCHEDULE;
  const problem = cronProblem(schedule);
  if (problem) throw new StartupError(`RETENTION_SCHEDULE must be a cron expression in UTC such as "${DEFAULT_RETENTION_SCHEDULE}" (hourly at minute 17): ${problem}`);
  const windowsMs = Object.fromEntries(
    Object.entries(RETENTION_WINDOWS).map(([kind, w]) => [kind, duration(env, w.setting, w.defaultMs, w.minMs, MAX_WINDOW_MS, w.why)]),
  ) as Record<RetentionKind, number>;
  const rawBatch = env.RETENTION_BATCH?.trim();
  if (rawBatch && !/^[1-9][0-9]{0,5}$/.test(rawBatch)) throw new StartupError(`RETENTION_BATCH must be a whole number of rows from 1 to ${MAX_RETENTION_BATCH}, got "${rawBatch}"`);
  const batch = rawBatch ? Number(rawBatch) : DEFAULT_RETENTION_BATCH;
  if (batch > MAX_RETENTION_BATCH) throw new StartupError(`RETENTION_BATCH must be a whole number of rows from 1 to ${MAX_RETENTION_BATCH}, got "${rawBatch}"`);
  const pauseMs = env.RETENTION_BATCH_PAUSE?.trim() === '0' ? 0 : duration(env, 'RETENTION_BATCH_PAUSE', DEFAULT_RETENTION_BATCH_PAUSE_MS, 0, MAX_RETENTION_BATCH_PAUSE_MS, 'the pause between two batches');
  const eventsWalkWindowMs = duration(env, 'EVENTS_WALK_WINDOW', DEFAULT_EVENTS_WALK_WINDOW_MS, DEFAULT_EVENTS_WALK_WINDOW_MS, MAX_WINDOW_MS, 'the spec promises 90 days of walkable history');
  return { schedule, plan: { windowsMs, batch, pauseMs }, eventsWalkWindowMs };
}
