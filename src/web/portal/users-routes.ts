import { changePortalUserAccess, type PortalUserAccessAction } from '../../persistence/portal/portal-user-access';
import { listPortalUsers, PortalUserRefused } from '../../persistence/portal/portal-user-store';
import { frameOf, html, portalActor, type PortalRoutes } from './kit';
import { USERS_PATH, usersPage } from './users-page';

const DONE: Record<PortalUserAccessAction, string> = {
  disable: 'The user is disabled: its sessions have ended and it cannot sign in.',
  enable: 'The user is enabled: it can sign in again.',
  revoke_sessions: "The user's sessions have ended: it must sign in again.",
};

/**
 * Users (issue 30; docs/security.md "Disabling a portal user"): the session's merchant's own users,
 * and disable, enable or end the sessions of another of them, through the audited path
 * (src/persistence/portal/portal-user-access.ts, as `portal:<email>`). A user of another merchant is
 * refused as one that does not exist; no one disables or signs out themself here.
 */
export const usersRoutes: PortalRoutes = (router, kit) => {
  const { orm } = kit.deps;

  router.get(USERS_PATH, async (ctx) => {
    const session = await kit.page(ctx);
    if (!session) return;
    html(ctx, 200, usersPage(frameOf(session, USERS_PATH), (await listPortalUsers(orm, session.merchantId)).data, session.userId));
  });

  for (const [path, action] of [
    ['disable', 'disable'],
    ['enable', 'enable'],
    ['revoke-sessions', 'revoke_sessions'],
  ] as const) {
    router.post(`${USERS_PATH}/:id/${path}`, async (ctx) => {
      const session = await kit.posted(ctx);
      if (!session) return;
      const id = ctx.params.id ?? '';
      const page = async (status: number, message: string, kind: 'error' | 'notice') =>
        html(ctx, status, usersPage(frameOf(session, USERS_PATH), (await listPortalUsers(orm, session.merchantId)).data, session.userId, message, kind));
      if (id === session.userId) return page(400, 'You cannot disable yourself or end your own sessions here: sign out instead.', 'error');
      try {
        await changePortalUserAccess(orm, id, action, portalActor(session, ctx.state.requestId as string, 'Users'), { merchantId: session.merchantId, environment: session.environment });
      } catch (error) {
        if (!(error instanceof PortalUserRefused)) throw error;
        return page(400, error.message, 'error');
      }
      return page(200, DONE[action], 'notice');
    });
  }
};
