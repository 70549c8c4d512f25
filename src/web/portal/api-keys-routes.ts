import type { Context } from 'koa';
import type { PortalSession } from '../../persistence/portal/portal-session-store';
import { apiKeysPage, newSecretPage } from './api-keys-page';
import { createKey, environmentKeys, KeyActionForbidden, KeyActionRefused, revokeOwnKey, rollOwnKey } from './key-actions';
import { frameOf, html, type PortalRoutes } from './kit';
import { roleRefusalPage } from './permission-refusal';

export const KEYS_PATH = '/developers/api-keys';

/** Developers → API keys: the list, create (the secret once), roll and revoke, through the key services; live needs an admin or an owner, sandbox changes a developer too (src/domain/portal-roles.ts). */
export const apiKeysRoutes: PortalRoutes = (router, kit) => {
  const { orm } = kit.deps;

  router.get(KEYS_PATH, async (ctx) => {
    const session = await kit.page(ctx, 'view_api_keys');
    if (!session) return;
    html(ctx, 200, apiKeysPage(frameOf(session, KEYS_PATH), await environmentKeys(orm, session.merchantId, session.environment)));
  });

  router.post(KEYS_PATH, async (ctx) => {
    const session = await kit.posted(ctx, 'manage_api_keys');
    if (!session) return;
    await keyAction(ctx, session, async () => {
      const key = await createKey(orm, session, ctx.state.fields.getAll('scope'), ctx.state.requestId);
      html(ctx, 200, newSecretPage(frameOf(session, KEYS_PATH), 'created', key));
    });
  });

  router.post(`${KEYS_PATH}/:id/roll`, async (ctx) => {
    const session = await kit.posted(ctx, 'manage_api_keys');
    if (!session) return;
    await keyAction(ctx, session, async () => {
      const rolled = await rollOwnKey(orm, session, ctx.params.id ?? '', ctx.state.fields.get('overlap'), ctx.state.requestId);
      html(ctx, 200, newSecretPage(frameOf(session, KEYS_PATH), 'rolled', rolled, rolled.previous_expires_at));
    });
  });

  router.post(`${KEYS_PATH}/:id/revoke`, async (ctx) => {
    const session = await kit.posted(ctx, 'manage_api_keys');
    if (!session) return;
    await keyAction(ctx, session, async () => {
      await revokeOwnKey(orm, session, ctx.params.id ?? '', ctx.state.requestId);
      html(ctx, 200, apiKeysPage(frameOf(session, KEYS_PATH), await environmentKeys(orm, session.merchantId, session.environment), 'The key is revoked: the API refuses it from now on.', 'notice'));
    });
  });

  async function keyAction(ctx: Context, session: PortalSession, work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (error) {
      if (!(error instanceof KeyActionRefused)) throw error;
      if (error instanceof KeyActionForbidden) return html(ctx, 403, roleRefusalPage(frameOf(session, KEYS_PATH), error.message));
      html(ctx, 400, apiKeysPage(frameOf(session, KEYS_PATH), await environmentKeys(orm, session.merchantId, session.environment), error.message));
    }
  }
};
