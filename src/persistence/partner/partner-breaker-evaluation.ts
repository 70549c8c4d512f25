import { countsFrom, nextBreakerState, noCalls, type BreakerSettings, type BreakerState } from '../../domain/partner-health';
import type { PartnerName } from '../../domain/rail-routes';
import type { Orm } from '../orm';
import { lockBreakers, setBreaker } from './partner-breaker-store';
import { callCountsSince } from './partner-health-store';

/**
 * One pass of the breaker evaluator (issue 46; run every 2 s by each worker,
 * src/runtime/partner-breaker-monitor.ts): in one transaction, every breaker row locked (`for
 * update`: a second worker's pass waits, then sees this one's changes, so they agree), each
 * partner's recent calls counted and its next state decided (src/domain/partner-health.ts), each
 * change written with a `partner_breaker_changes` row. A drained breaker is left alone.
 */

export interface BreakerTransition {
  partner: PartnerName;
  from: BreakerState;
  to: BreakerState;
  reason: string;
  at: Date;
}

export async function evaluatePartnerBreakers(orm: Orm, settings: BreakerSettings, now: Date = new Date()): Promise<BreakerTransition[]> {
  return orm.em.fork().transactional(async (em) => {
    const transitions: BreakerTransition[] = [];
    for (const breaker of await lockBreakers(em, now)) {
      if (breaker.state === 'drained') continue;
      const current = { state: breaker.state, since: new Date(breaker.since) };
      const counts = breaker.state === 'open' ? noCalls() : await callCountsSince(em, breaker.partner, countsFrom(current, now, settings));
      const change = nextBreakerState(current, counts, now, settings);
      if (!change) continue;
      await setBreaker(em, breaker.partner, { state: change.state, reason: change.reason, at: now });
      await em.execute(`insert into partner_breaker_changes (partner, from_state, to_state, reason, at) values (?, ?, ?, ?, ?)`, [
        breaker.partner,
        breaker.state,
        change.state,
        change.reason,
        now.toISOString(),
      ]);
      transitions.push({ partner: breaker.partner, from: breaker.state, to: change.state, reason: change.reason, at: now });
    }
    return transitions;
  });
}
