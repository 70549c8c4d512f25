import { parseDuration } from '../domain/webhook-retry';
import { deleteExpiredIdempotencyKeys } from '../persistence/idempotency-store';
import type { Orm } from '../persistence/orm';
import type { Logger } from '../support/logger';
import { runPeriodically, type PeriodicLoop } from '../support/periodic-loop';

/**
 * Idempotency-Key retention (INTERFACE.md: "Kept at least 24 hours"). The worker process deletes
 * records older than IDEMPOTENCY_RETENTION (default and minimum 24h) whose request has finished, in
 * batches of IDEMPOTENCY_RETENTION_BATCH rows (default 1000) per statement, every
 * IDEMPOTENCY_RETENTION_INTERVAL (default 10m). The guarantee window is the retention: a retry with
 * the same key within it answers the first request; after a record is deleted, the same key starts
 * a new request (a new charge).
 */

export const MIN_IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60_000;
export const DEFAULT_IDEMPOTENCY_RETENTION_INTERVAL_MS = 10 * 60_000;
export const DEFAULT_IDEMPOTENCY_RETENTION_BATCH = 1000;
/** Statements per pass at most, so one pass over a large backlog still ends (the next pass goes on). */
const MAX_BATCHES_PER_PASS = 100;

export interface IdempotencyRetentionSettings {
  retentionMs: number;
  intervalMs: number;
  batch: number;
}

/** IDEMPOTENCY_RETENTION (e.g. `24h`, `7d`; below 24h is refused), _INTERVAL and _BATCH. */
export function idempotencyRetentionSettings(env: NodeJS.ProcessEnv = process.env): IdempotencyRetentionSettings {
  const retentionMs = env.IDEMPOTENCY_RETENTION ? parseDuration(env.IDEMPOTENCY_RETENTION) : MIN_IDEMPOTENCY_RETENTION_MS;
  if (retentionMs < MIN_IDEMPOTENCY_RETENTION_MS) {
    throw new Error(`IDEMPOTENCY_RETENTION must be at least 24h (keys are kept at least 24 hours), got "${env.IDEMPOTENCY_RETENTION}"`);
  }
  const intervalMs = env.IDEMPOTENCY_RETENTION_INTERVAL ? parseDuration(env.IDEMPOTENCY_RETENTION_INTERVAL) : DEFAULT_IDEMPOTENCY_RETENTION_INTERVAL_MS;
  if (intervalMs <= 0) throw new Error('IDEMPOTENCY_RETENTION_INTERVAL must be positive');
  const batch = env.IDEMPOTENCY_RETENTION_BATCH ? Number(env.IDEMPOTENCY_RETENTION_BATCH) : DEFAULT_IDEMPOTENCY_RETENTION_BATCH;
  if (!Number.isInteger(batch) || batch < 1 || batch > 100_000) throw new Error(`IDEMPOTENCY_RETENTION_BATCH must be an integer from 1 to 100000, got "${env.IDEMPOTENCY_RETENTION_BATCH}"`);
  return { retentionMs, intervalMs, batch };
}

export interface IdempotencyRetentionDeps {
  orm: Orm;
  log: Logger;
  retentionMs?: number;
  batch?: number;
}

/** One pass: batch after batch until a batch comes back short (or MAX_BATCHES_PER_PASS). Returns the rows deleted. */
export async function pruneIdempotencyKeys(deps: IdempotencyRetentionDeps): Promise<number> {
  const seconds = Math.floor((deps.retentionMs ?? MIN_IDEMPOTENCY_RETENTION_MS) / 1000);
  const batch = deps.batch ?? DEFAULT_IDEMPOTENCY_RETENTION_BATCH;
  let total = 0;
  for (let i = 0; i < MAX_BATCHES_PER_PASS; i++) {
    const deleted = await deleteExpiredIdempotencyKeys(deps.orm, seconds, batch);
    total += deleted;
    if (deleted < batch) break;
  }
  if (total > 0) deps.log.info({ deleted: total, retentionSeconds: seconds }, 'idempotency retention: expired keys deleted');
  return total;
}

/** Runs `pruneIdempotencyKeys` now and every `intervalMs`; a failed pass is logged and retried at the next. */
export function startIdempotencyRetention(deps: IdempotencyRetentionDeps, intervalMs: number = DEFAULT_IDEMPOTENCY_RETENTION_INTERVAL_MS): PeriodicLoop {
  return runPeriodically(
    intervalMs,
    async () => {
      await pruneIdempotencyKeys(deps);
    },
    (error) => deps.log.error({ err: error }, 'idempotency retention pass failed; retrying at the next interval'),
  );
}
