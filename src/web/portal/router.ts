import Router from '@koa/router';
import type { Context } from 'koa';
import type { ServiceDeps } from '../../services/context';
import { findPortalUserByEmail, recordFailedSignIn, recordSignIn } from '../../persistence/portal-user-store';
import { createPortalSession, revokePortalSession, setSessionEnvironment, type PortalSession } from '../../persistence/portal-session-store';
import { MAX_PASSWORD_LENGTH, verifyPassword } from '../../support/password';
import { formFields } from '../checkout/form-body';
import type { WebOptions } from '../routers';
import { apiKeysPage, newSecretPage } from './api-keys-page';
import { createKey, environmentKeys, KeyActionRefused, revokeOwnKey, rollOwnKey } from './key-actions';
import type { Frame } from './layout';
import { clearCookie, currentSession, sameOrigin, setSessionCookie, SIGN_IN_COOKIE, signInToken, tokensMatch } from './session';
import { lockedMessage, SIGN_IN_FAILED, signInPage } from './sign-in-page';
import { PORTAL_CSS, PORTAL_ICON } from './styles';

const KEYS_PATH = '/developers/api-keys';

/**
 * The merchant portal (issue 21; README "Web: merchant portal"; docs/security.md): sign-in, the
 * sandbox/live switch, and Developers → API keys. Mounted last on the web port (it owns `/`), and
 * answers only its own paths. Every POST is checked (Origin, CSRF token) before anything is read
 * or changed; a page without a live session redirects to the sign-in page. Form bodies, which hold
 * passwords, are never logged.
 */
export function portalRouter(deps: ServiceDeps, options: WebOptions): Router {
  const router = new Router();
  const { orm } = deps;
  const webUrl = options.webUrl;

  router.get('/portal/assets/portal.css', (ctx) => {
    ctx.type = 'text/css; charset=utf-8';
    ctx.body = PORTAL_CSS;
  });
  router.get('/portal/assets/icon.svg', (ctx) => {
    ctx.type = 'image/svg+xml';
    ctx.body = PORTAL_ICON;
  });

  router.get('/', async (ctx) => ctx.redirect((await currentSession(ctx, orm)) ? KEYS_PATH : '/sign-in'));

  router.get('/sign-in', async (ctx) => {
    if (await currentSession(ctx, orm)) return ctx.redirect(KEYS_PATH);
    html(ctx, 200, signInPage(signInToken(ctx, webUrl)));
  });

  router.post('/sign-in', async (ctx) => {
    const fields = await formFields(ctx);
    const expected = ctx.cookies.get(SIGN_IN_COOKIE);
    if (!fields || !sameOrigin(ctx, webUrl) || !tokensMatch(expected, fields.get('csrf'))) return forbidden(ctx);
    const token = signInToken(ctx, webUrl);
    const email = (fields.get('email') ?? '').trim().slice(0, 254);
    const password = fields.get('password') ?? '';
    const user = email ? await findPortalUserByEmail(orm, email) : null;
    // Verify even for an unknown email (against a dummy hash) or a locked account: the timing tells nothing.
    const ok = (await verifyPassword(user?.passwordHash ?? null, password.slice(0, MAX_PASSWORD_LENGTH))) && password.length <= MAX_PASSWORD_LENGTH;
    if (user?.lockedUntil && user.lockedUntil > new Date()) return html(ctx, 429, signInPage(token, lockedMessage(user.lockedUntil), email));
    if (!user || !ok) {
      const locked = user ? await recordFailedSignIn(orm, user.id) : null;
      return html(ctx, locked ? 429 : 401, signInPage(token, locked ? lockedMessage(locked) : SIGN_IN_FAILED, email));
    }
    await recordSignIn(orm, user.id);
    setSessionCookie(ctx, webUrl, await createPortalSession(orm, user.id));
    clearCookie(ctx, webUrl, SIGN_IN_COOKIE);
    see(ctx, KEYS_PATH);
  });

  router.post('/sign-out', async (ctx) => {
    const session = await postedSession(ctx);
    if (!session) return;
    await revokePortalSession(orm, session.id);
    clearCookie(ctx, webUrl, 'portal_session');
    see(ctx, '/sign-in');
  });

  router.post('/environment', async (ctx) => {
    const session = await postedSession(ctx);
    if (!session) return;
    const environment = ctx.state.fields.get('environment');
    if (environment === 'sandbox' || environment === 'live') await setSessionEnvironment(orm, session.id, environment);
    see(ctx, KEYS_PATH);
  });

  router.get(KEYS_PATH, async (ctx) => {
    const session = await currentSession(ctx, orm);
    if (!session) return ctx.redirect('/sign-in');
    html(ctx, 200, apiKeysPage(frameOf(session), await environmentKeys(orm, session.merchantId, session.environment)));
  });

  router.post(KEYS_PATH, async (ctx) => {
    const session = await postedSession(ctx);
    if (!session) return;
    await keyAction(ctx, session, async () => {
      const key = await createKey(orm, session, ctx.state.fields.getAll('scope'), ctx.state.requestId);
      html(ctx, 200, newSecretPage(frameOf(session), 'created', key));
    });
  });

  router.post(`${KEYS_PATH}/:id/roll`, async (ctx) => {
    const session = await postedSession(ctx);
    if (!session) return;
    await keyAction(ctx, session, async () => {
      const rolled = await rollOwnKey(orm, session, ctx.params.id ?? '', ctx.state.fields.get('overlap'), ctx.state.requestId);
      html(ctx, 200, newSecretPage(frameOf(session), 'rolled', rolled, rolled.previous_expires_at));
    });
  });

  router.post(`${KEYS_PATH}/:id/revoke`, async (ctx) => {
    const session = await postedSession(ctx);
    if (!session) return;
    await keyAction(ctx, session, async () => {
      await revokeOwnKey(orm, session, ctx.params.id ?? '', ctx.state.requestId);
      html(ctx, 200, apiKeysPage(frameOf(session), await environmentKeys(orm, session.merchantId, session.environment), 'The key is revoked: the API refuses it from now on.', 'notice'));
    });
  });

  /**
   * A POST's session, after the checks: same Origin, a form body, a live session (else to sign-in),
   * and the session's CSRF token in the form. Otherwise answers (403 or a redirect) and gives null.
   */
  async function postedSession(ctx: Context): Promise<PortalSession | null> {
    if (!sameOrigin(ctx, webUrl)) return forbidden(ctx);
    const fields = await formFields(ctx);
    if (!fields) return forbidden(ctx);
    const session = await currentSession(ctx, orm);
    if (!session) {
      see(ctx, '/sign-in');
      return null;
    }
    if (!tokensMatch(session.csrfToken, fields.get('csrf'))) return forbidden(ctx);
    ctx.state.fields = fields;
    return session;
  }

  async function keyAction(ctx: Context, session: PortalSession, work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (error) {
      if (!(error instanceof KeyActionRefused)) throw error;
      html(ctx, 400, apiKeysPage(frameOf(session), await environmentKeys(orm, session.merchantId, session.environment), error.message));
    }
  }

  return router;
}

const frameOf = (session: PortalSession): Frame => ({ email: session.email, environment: session.environment, csrfToken: session.csrfToken });

function html(ctx: Context, status: number, body: string): void {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = body;
}

/** After a POST: 303, so a reload does not post again. */
function see(ctx: Context, path: string): void {
  ctx.status = 303;
  ctx.redirect(path);
}

function forbidden(ctx: Context): null {
  ctx.status = 403;
  ctx.type = 'text/plain; charset=utf-8';
  ctx.body = 'This form has expired or did not come from this site. Go back, reload the page and try again.';
  return null;
}
