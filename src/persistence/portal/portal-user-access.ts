import type { EntityManager } from '@mikro-orm/postgresql';
import type { ChangeActor } from '../../domain/operator-action';
import { userChangeRefusal, type DisabledBy, type PortalRole, type UserChange, type UserChanger } from '../../domain/portal-roles';
import type { Orm } from '../orm';
import { recordChange } from '../operators/change-audit';
import { PortalUserRefused } from './portal-user-store';

/**
 * Changing a portal user (issue 30, issue 47; docs/security.md "Disabling a portal user", "Portal
 * roles"): disable (its sessions end at once, and it cannot sign in), enable, end its sessions, and
 * set its role. Who may change whom is src/domain/portal-roles.ts `userChangeRefusal`, read here in
 * the change's transaction with the merchant's users locked (so two owners cannot demote each other
 * at once and leave none). Each change and its operator_audit row (who, why, the state before and
 * after) commit together; a refusal writes nothing. `users …` acts as an operator (`cli:<login>` or
 * --operator), the portal's Users page as `portal:<email>`, on the signed-in user's own merchant only.
 * Ending the sessions of a user who has none changes nothing and writes no row.
 */
export type PortalUserAccessAction = 'disable' | 'enable' | 'revoke_sessions';

/** Who asks: an operator (the CLI), or a signed-in portal user of `merchantId` in `environment`. */
export type AccessChanger = { kind: 'operator' } | { kind: 'portal'; userId: string; role: PortalRole; merchantId: string; environment: string };

export interface PortalUserAccessResult {
  id: string;
  email: string;
  merchant_id: string;
  role: PortalRole;
  status: 'active' | 'disabled';
  sessions_revoked: number;
}

/** A refusal by role (answered 403 by the portal), as opposed to the user's state (400). */
export class PortalUserForbidden extends PortalUserRefused {}

interface Locked {
  id: string;
  email: string;
  merchant_id: string;
  role: PortalRole;
  disabled_at: Date | string | null;
  disabled_by: DisabledBy | null;
}

/** The target (of the portal user's merchant only), its merchant's users locked, and the refusal of `change`, if any. */
async function lockTarget(em: EntityManager, userId: string, by: AccessChanger, change: UserChange): Promise<Locked> {
  const found = await em.execute<{ merchant_id: string }[]>(`select merchant_id from portal_users where id = ? ${by.kind === 'portal' ? 'and merchant_id = ?' : ''}`, by.kind === 'portal' ? [userId, by.merchantId] : [userId]);
  if (!found[0]) throw new PortalUserRefused(`portal user ${userId} does not exist`);
  const users = await em.execute<Locked[]>(`select id, email, merchant_id, role, disabled_at, disabled_by from portal_users where merchant_id = ? order by id for update`, [found[0].merchant_id]);
  const user = users.find((u) => u.id === userId)!;
  const activeOwners = users.filter((u) => u.role === 'owner' && !u.disabled_at).length;
  const changer: UserChanger = by.kind === 'operator' ? by : { kind: 'portal', userId: by.userId, role: by.role };
  const refusal = userChangeRefusal(changer, { id: user.id, role: user.role, status: user.disabled_at ? 'disabled' : 'active', disabledBy: user.disabled_by }, change, activeOwners);
  if (refusal) throw refusal.forbidden ? new PortalUserForbidden(refusal.message) : new PortalUserRefused(refusal.message);
  return user;
}

const environmentOf = (by: AccessChanger) => (by.kind === 'portal' ? by.environment : null);

export async function changePortalUserAccess(orm: Orm, userId: string, action: PortalUserAccessAction, actor: ChangeActor, by: AccessChanger): Promise<PortalUserAccessResult> {
  return orm.em.fork().transactional(async (em) => {
    const user = await lockTarget(em, userId, by, { kind: action });
    const before = user.disabled_at ? 'disabled' : 'active';
    if (action === 'disable' && before === 'disabled') throw new PortalUserRefused(`portal user ${userId} is already disabled`);
    if (action === 'enable' && before === 'active') throw new PortalUserRefused(`portal user ${userId} is not disabled`);
    if (action === 'disable') await em.execute(`update portal_users set disabled_at = now(), disabled_by = ? where id = ?`, [by.kind, userId]);
    if (action === 'enable') await em.execute(`update portal_users set disabled_at = null, disabled_by = null where id = ?`, [userId]);
    const revoked = action === 'enable' ? [] : await em.execute<{ id: string }[]>(`update portal_sessions set revoked_at = now() where user_id = ? and revoked_at is null and expires_at > now() returning id`, [userId]);
    const after = action === 'disable' ? 'disabled' : action === 'enable' ? 'active' : before;
    const result = { id: user.id, email: user.email, merchant_id: user.merchant_id, role: user.role, status: after, sessions_revoked: revoked.length } as const;
    // Ending sessions when there were none changes nothing: no audit row (issue 43).
    if (action === 'revoke_sessions' && revoked.length === 0) return result;
    await recordChange(em, actor, {
      action: `portal_user.${action}`,
      subjectId: userId,
      merchantId: user.merchant_id,
      environment: environmentOf(by),
      before: { status: before },
      after: { status: after, sessions_revoked: revoked.length },
    });
    return result;
  });
}

/**
 * A user's role (`portal_user.set_role`, before and after). The same role again is refused, nothing
 * written. The role is read with every request (the session joins the user), so it applies at once;
 * the user's sessions are not ended.
 */
export async function setPortalUserRole(orm: Orm, userId: string, role: PortalRole, actor: ChangeActor, by: AccessChanger): Promise<PortalUserAccessResult> {
  return orm.em.fork().transactional(async (em) => {
    const user = await lockTarget(em, userId, by, { kind: 'set_role', role });
    if (user.role === role) throw new PortalUserRefused(`portal user ${userId} is already ${role}`);
    await em.execute(`update portal_users set role = ? where id = ?`, [role, userId]);
    await recordChange(em, actor, {
      action: 'portal_user.set_role',
      subjectId: userId,
      merchantId: user.merchant_id,
      environment: environmentOf(by),
      before: { role: user.role },
      after: { role },
    });
    return { id: user.id, email: user.email, merchant_id: user.merchant_id, role, status: user.disabled_at ? 'disabled' : 'active', sessions_revoked: 0 };
  });
}
