import type { ChangeActor } from '../../domain/operator-action';
import type { PartnerName } from '../../domain/rail-routes';
import type { Orm } from '../orm';
import { recordChange } from '../operators/change-audit';
import { lockBreakers, setBreaker, type PartnerBreakerView } from './partner-breaker-store';

/**
 * An operator's `routing drain PARTNER` and `routing resume PARTNER` (issue 46): the breaker set to
 * `drained` (no new payment goes to the partner; the evaluator never changes it) or back to `closed`,
 * with its audit row (`partner.drain` / `partner.resume`, the partner as its subject, the breaker
 * before and after) in the same transaction. A drain of a drained breaker, or a resume of a closed
 * one, changes nothing and writes no row (`changed: false`). Resume closes an open or half-open
 * breaker too: the operator's word that the partner is well.
 */

export interface PartnerDrainAnswer {
  object: 'partner_breaker';
  partner: PartnerName;
  changed: boolean;
  before: PartnerBreakerView;
  after: PartnerBreakerView;
  audit_id: string | null;
}

export function drainPartner(orm: Orm, partner: PartnerName, actor: ChangeActor, now: Date = new Date()): Promise<PartnerDrainAnswer> {
  return changeBreaker(orm, partner, actor, 'drain', now);
}

export function resumePartner(orm: Orm, partner: PartnerName, actor: ChangeActor, now: Date = new Date()): Promise<PartnerDrainAnswer> {
  return changeBreaker(orm, partner, actor, 'resume', now);
}

async function changeBreaker(orm: Orm, partner: PartnerName, actor: ChangeActor, verb: 'drain' | 'resume', now: Date): Promise<PartnerDrainAnswer> {
  return orm.em.fork().transactional(async (em) => {
    const before = (await lockBreakers(em, now)).find((b) => b.partner === partner)!;
    const target = verb === 'drain' ? 'drained' : 'closed';
    if (before.state === target) return { object: 'partner_breaker', partner, changed: false, before, after: before, audit_id: null };
    await setBreaker(em, partner, { state: target, reason: `${verb === 'drain' ? 'drained' : 'resumed'} by ${actor.operator}: ${actor.reason}`, at: now, drainedBy: actor.operator });
    const after = (await lockBreakers(em, now)).find((b) => b.partner === partner)!;
    const auditId = await recordChange(em, actor, { action: verb === 'drain' ? 'partner.drain' : 'partner.resume', subjectId: partner, merchantId: null, environment: 'live', before, after });
    return { object: 'partner_breaker', partner, changed: true, before, after, audit_id: auditId };
  });
}
