import type { Context } from 'koa';
import { isIdOf } from '../../domain/ids';
import { isPortalRole } from '../../domain/portal-roles';
import type { PortalSession } from '../../persistence/portal/portal-session-store';
import { changePortalUserAccess, PortalUserForbidden, setPortalUserRole, type AccessChanger, type PortalUserAccessAction } from '../../persistence/portal/portal-user-access';
import { listPortalUsers, PortalUserRefused } from '../../persistence/portal/portal-user-store';
import { frameOf, html, portalActor, type PortalRoutes } from './kit';
import { USERS_PATH, usersPage } from './users-page';

const DONE: Record<PortalUserAccessAction, string> = {
  disable: 'The user is disabled: its sessions have ended and it cannot sign in.',
  enable: 'The user is enabled: it can sign in again.',
  revoke_sessions: "The user's sessions have ended: it must sign in again.",
};

/**
 * Users (issue 30, issue 47; docs/security.md "Disabling a portal user", "Portal roles"): the
 * session's merchant's own users with their roles; an owner or an admin (kit.posted 'manage_users')
 * changes another user's role, disables, enables or ends its sessions, through the audited path
 * (src/persistence/portal/portal-user-access.ts, as `portal:<email>`), which applies the rules of
 * src/domain/portal-roles.ts (never oneself, an admin never an owner, the last owner kept, a user an
 * operator disabled only by an operator). A refusal by role answers 403, a refusal by state 400;
 * either changes nothing. A user of another merchant is refused as one that does not exist.
 */
export const usersRoutes: PortalRoutes = (router, kit) => {
  const { orm } = kit.deps;

  const page = async (ctx: Context, session: PortalSession, status: number, message: string | null = null, kind: 'error' | 'notice' = 'error') =>
    html(ctx, status, usersPage(frameOf(session, USERS_PATH), (await listPortalUsers(orm, session.merchantId)).data, session.userId, message, kind));

  router.get(USERS_PATH, async (ctx) => {
    const session = await kit.page(ctx);
    if (!session) return;
    await page(ctx, session, 200);
  });

  /** A POST on one user: the gate ('manage_users'), a well-formed id, then `change`; its refusal is the page again with the message. */
  function userAction(path: string, change: (ctx: Context, session: PortalSession, id: string, by: AccessChanger) => Promise<string>): void {
    router.post(`${USERS_PATH}/:id/${path}`, async (ctx) => {
      const session = await kit.posted(ctx, 'manage_users');
      if (!session) return;
      const id = ctx.params.id ?? '';
      if (!isIdOf('portalUser', id)) return page(ctx, session, 400, `portal user ${id} does not exist`);
      const by: AccessChanger = { kind: 'portal', userId: session.userId, role: session.role, merchantId: session.merchantId, environment: session.environment };
      let done: string;
      try {
        done = await change(ctx, session, id, by);
      } catch (error) {
        if (!(error instanceof PortalUserRefused)) throw error;
        return page(ctx, session, error instanceof PortalUserForbidden ? 403 : 400, error.message);
      }
      return page(ctx, session, 200, done, 'notice');
    });
  }

  for (const [path, action] of [
    ['disable', 'disable'],
    ['enable', 'enable'],
    ['revoke-sessions', 'revoke_sessions'],
  ] as const) {
    userAction(path, async (ctx, session, id, by) => {
      await changePortalUserAccess(orm, id, action, portalActor(session, ctx.state.requestId as string, 'Users'), by);
      return DONE[action];
    });
  }

  userAction('role', async (ctx, session, id, by) => {
    const role = (ctx.state.fields as URLSearchParams).get('role');
    if (!isPortalRole(role)) throw new PortalUserRefused('Choose a role: owner, admin, developer or viewer.');
    const changed = await setPortalUserRole(orm, id, role, portalActor(session, ctx.state.requestId as string, 'Users'), by);
    return `${changed.email} is now ${role}.`;
  });
};
