import type { ChangeActor } from '../../domain/operator-action';
import { recordChange } from '../operators/change-audit';
import type { Orm } from '../orm';
import { PortalUserRefused } from './portal-user-store';

/**
 * Ending a portal user's access (issue 30; docs/security.md "Disabling a portal user"): disable
 * (its sessions end at once, and it cannot sign in), enable, and end its sessions. Each change and
 * its operator_audit row (who, why, the state before and after) commit together; `users disable` and
 * `users revoke-sessions` act as `cli:<login>` or --operator, the portal's Users page as
 * `portal:<email>`, on the signed-in user's own merchant only (`merchantId`). Ending the sessions
 * of a user who has none changes nothing and writes no row.
 */
export type PortalUserAccessAction = 'disable' | 'enable' | 'revoke_sessions';

export interface PortalUserAccessResult {
  id: string;
  email: string;
  merchant_id: string;
  status: 'active' | 'disabled';
  sessions_revoked: number;
}

export async function changePortalUserAccess(orm: Orm, userId: string, action: PortalUserAccessAction, actor: ChangeActor, scope: { merchantId?: string; environment?: string } = {}): Promise<PortalUserAccessResult> {
  return orm.em.fork().transactional(async (em) => {
    const users = await em.execute<{ id: string; email: string; merchant_id: string; disabled_at: Date | string | null }[]>(
      `select id, email, merchant_id, disabled_at from portal_users where id = ? ${scope.merchantId ? 'and merchant_id = ?' : ''} for update`,
      scope.merchantId ? [userId, scope.merchantId] : [userId],
    );
    const user = users[0];
    if (!user) throw new PortalUserRefused(`portal user ${userId} does not exist`);
    const before = user.disabled_at ? 'disabled' : 'active';
    if (action === 'disable' && before === 'disabled') throw new PortalUserRefused(`portal user ${userId} is already disabled`);
    if (action === 'enable' && before === 'active') throw new PortalUserRefused(`portal user ${userId} is not disabled`);
    if (action !== 'revoke_sessions') await em.execute(`update portal_users set disabled_at = ${action === 'disable' ? 'now()' : 'null'} where id = ?`, [userId]);
    const revoked = action === 'enable' ? [] : await em.execute<{ id: string }[]>(`update portal_sessions set revoked_at = now() where user_id = ? and revoked_at is null and expires_at > now() returning id`, [userId]);
    const after = action === 'disable' ? 'disabled' : action === 'enable' ? 'active' : before;
    // Ending sessions when there were none changes nothing: no audit row (issue 43).
    if (action === 'revoke_sessions' && revoked.length === 0) return { id: user.id, email: user.email, merchant_id: user.merchant_id, status: after, sessions_revoked: 0 };
    await recordChange(em, actor, {
      action: `portal_user.${action}`,
      subjectId: userId,
      merchantId: user.merchant_id,
      environment: scope.environment ?? null,
      before: { status: before },
      after: { status: after, sessions_revoked: revoked.length },
    });
    return { id: user.id, email: user.email, merchant_id: user.merchant_id, status: after, sessions_revoked: revoked.length };
  });
}
