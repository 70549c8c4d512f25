import type { Environment } from '../../domain/environment';
import { recordChange } from '../operators/change-audit';
import type { Orm } from '../orm';

/**
 * A signed-in user's password change (the Account page; docs/security.md "Merchant portal"), in one
 * transaction: the new hash (only if the password it replaces is still the one checked, so two
 * changes racing cannot both win), every session of the user ended (the current one too: the page
 * opens a new one in its place, a new token), and the `portal.password_change` audit row (never a
 * password). Returns how many other sessions ended, or null when the hash changed meanwhile.
 */
export async function changePortalPassword(
  orm: Orm,
  change: { userId: string; email: string; merchantId: string; environment: Environment; sessionId: string; previousHash: string; passwordHash: string; requestId: string },
): Promise<{ otherSessionsEnded: number } | null> {
  return orm.em.fork().transactional(async (em) => {
    const updated = await em.execute<{ id: string }[]>(`update portal_users set password_hash = ? where id = ? and password_hash = ? and disabled_at is null returning id`, [change.passwordHash, change.userId, change.previousHash]);
    if (!updated[0]) return null;
    const ended = await em.execute<{ id: string }[]>(`update portal_sessions set revoked_at = now() where user_id = ? and revoked_at is null returning id`, [change.userId]);
    const otherSessionsEnded = ended.filter((s) => s.id !== change.sessionId).length;
    await recordChange(
      em,
      { operator: `portal:${change.email}`, reason: 'portal: password change', requestId: change.requestId },
      { action: 'portal.password_change', subjectId: change.userId, merchantId: change.merchantId, environment: change.environment, before: null, after: { other_sessions_ended: otherSessionsEnded } },
    );
    return { otherSessionsEnded };
  });
}
