import type { BreakerSettings, PartnerHealth } from '../domain/partner-health';
import type { PartnerName } from '../domain/rail-routes';
import type { Orm } from '../persistence/orm';
import { evaluatePartnerBreakers } from '../persistence/partner/partner-breaker-evaluation';
import { partnerStates, type PartnerBreakerView } from '../persistence/partner/partner-breaker-store';
import { partnerHealthWindow, prunePartnerCalls } from '../persistence/partner/partner-health-store';
import type { Logger } from '../support/logger';
import { runPeriodically, type PeriodicLoop } from '../support/periodic-loop';

/**
 * The worker's partner breaker loop (issue 46), one step after another on one reserved connection
 * (src/runtime/worker-capacity.ts): every second the measured calls waiting are written
 * (PartnerCallLog); every BREAKER_EVALUATION_INTERVAL_MS one evaluator pass
 * (src/persistence/partner/partner-breaker-evaluation.ts: every breaker moved as its partner's
 * recent calls say, each change logged here), then the health window and the breakers handed to
 * `report` (the worker's partner_* gauges, src/runtime/partner-gauges.ts); once a minute the
 * measured calls older than a day deleted. A pass that fails is logged and the next one tries again.
 */

export const CALL_FLUSH_INTERVAL_MS = 1_000;
export const BREAKER_EVALUATION_INTERVAL_MS = 2_000;
export const PRUNE_INTERVAL_MS = 60_000;

export interface PartnerHealthReport {
  health: Record<PartnerName, PartnerHealth>;
  breakers: PartnerBreakerView[];
}

export interface PartnerBreakerMonitorDeps {
  orm: Orm;
  settings: BreakerSettings;
  log: Pick<Logger, 'info' | 'warn'>;
  report?: (report: PartnerHealthReport) => void;
  /** Writes the measured calls waiting (the worker's PartnerCallLog); never throws. */
  flushCalls?: () => Promise<void>;
  /** Between two evaluations (BREAKER_EVALUATION_INTERVAL_MS). */
  intervalMs?: number;
}

export function startPartnerBreakerMonitor(deps: PartnerBreakerMonitorDeps): PeriodicLoop {
  const evaluateEvery = deps.intervalMs ?? BREAKER_EVALUATION_INTERVAL_MS;
  let prunedAt = 0;
  let evaluatedAt = 0;
  return runPeriodically(
    Math.min(CALL_FLUSH_INTERVAL_MS, evaluateEvery),
    async () => {
      await deps.flushCalls?.();
      if (Date.now() - evaluatedAt < evaluateEvery) return;
      evaluatedAt = Date.now();
      for (const t of await evaluatePartnerBreakers(deps.orm, deps.settings)) {
        deps.log.info({ partner: t.partner, from: t.from, to: t.to, reason: t.reason }, `partner breaker ${t.partner}: ${t.from} → ${t.to}`);
      }
      if (deps.report) {
        const em = deps.orm.em.fork();
        deps.report({ health: await partnerHealthWindow(em, deps.settings.windowMs), breakers: await partnerStates(em) });
      }
      if (Date.now() - prunedAt >= PRUNE_INTERVAL_MS) {
        prunedAt = Date.now();
        await prunePartnerCalls(deps.orm.em.fork());
      }
    },
    (error) => deps.log.warn({ err: error }, 'partner breakers: an evaluation pass failed (the next one tries again)'),
  );
}
