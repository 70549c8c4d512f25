import type { PartnerCall } from '../../domain/partner-health';
import type { Logger } from '../../support/logger';
import type { Orm } from '../orm';

/**
 * Writes the measured partner calls (src/rail/measured-rail.ts) to `partner_calls` (migration
 * 20261217000010): kept in memory and written once a second, one insert per batch, so a rail call
 * never waits on the database. In the worker the partner breaker loop writes them, on its own
 * reserved connection (src/runtime/partner-breaker-monitor.ts; no timer here: `intervalMs` 0). A failed write only logs a warning and drops its batch: the health
 * view misses those calls, the payment never notices. At most MAX_PENDING calls wait; beyond that the
 * oldest are dropped (a database down for long), with a warning.
 */

export const FLUSH_INTERVAL_MS = 1_000;
export const MAX_PENDING = 10_000;

/** Inserts `calls` in one statement. */
export async function insertPartnerCalls(orm: Orm, calls: readonly PartnerCall[]): Promise<void> {
  if (calls.length === 0) return;
  // One JSON parameter (the driver would spread an array parameter into a list).
  const rows = calls.map((c) => ({ partner: c.partner, call: c.call, outcome: c.outcome, http_status: c.httpStatus, latency_ms: Math.max(0, Math.round(c.latencyMs)), at: c.at.toISOString() }));
  await orm.em.getConnection().execute(
    `insert into partner_calls (partner, call, outcome, http_status, latency_ms, at)
     select partner, call, outcome, http_status, latency_ms, at
     from jsonb_to_recordset(?::jsonb) as r(partner text, call text, outcome text, http_status int, latency_ms int, at timestamptz)`,
    [JSON.stringify(rows)],
  );
}

export class PartnerCallLog {
  private pending: PartnerCall[] = [];
  private dropped = 0;
  private flushing: Promise<void> = Promise.resolve();
  private readonly timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly orm: Orm,
    private readonly log: Pick<Logger, 'warn'>,
    /** How often a timer of its own writes them; 0: none (the caller calls flush). */
    intervalMs = FLUSH_INTERVAL_MS,
  ) {
    this.timer = intervalMs > 0 ? setInterval(() => void this.flush(), intervalMs) : undefined;
    this.timer?.unref();
  }

  /** Keeps one call for the next write; never throws. */
  record(call: PartnerCall): void {
    this.pending.push(call);
    if (this.pending.length > MAX_PENDING) {
      this.pending.shift();
      this.dropped++;
    }
  }

  /** Writes what waits now (after a write under way); a failure is logged, never thrown. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.write());
    return this.flushing;
  }

  /** Stops the timer and writes what is left. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }

  private async write(): Promise<void> {
    if (this.dropped > 0) {
      this.log.warn({ dropped: this.dropped }, 'partner calls: more waited to be written than are kept; the oldest were not recorded');
      this.dropped = 0;
    }
    const batch = this.pending;
    if (batch.length === 0) return;
    this.pending = [];
    try {
      await insertPartnerCalls(this.orm, batch);
    } catch (error) {
      this.log.warn({ err: error, calls: batch.length }, 'partner calls: could not record a batch (the health view misses them; the payments are not affected)');
    }
  }
}
