import Router from '@koa/router';
import type { ServiceDeps } from '../../services/context';
import { isIssuedIdShape } from '../../domain/ids';
import { recordPortalAccess } from '../../persistence/portal/portal-audit';
import { revokePortalSession, setSessionEnvironment } from '../../persistence/portal/portal-session-store';
import type { WebOptions } from '../web-options';
import { html, notFoundText, portalKit, see } from './kit';
import { HOME_PATH, PORTAL_PAGES } from './pages';
import { accountRoutes } from './account-routes';
import { passwordResetRoutes } from './password-reset-routes';
import { clearSessionCookie, cookiePolicyWarning, currentSession, signInToken } from './session';
import { signInPost } from './sign-in';
import { PASSWORD_RESET_NOTICE, signInPage } from './sign-in-page';
import { PORTAL_CSS, PORTAL_ICON } from './styles';

/**
 * The merchant portal (issue 21; README "Web: merchant portal"; docs/security.md): sign-in, the
 * sandbox/live switch, and the pages of src/web/portal/pages.ts. Mounted last on the web port (it owns `/`), and
 * answers only its own paths. Every POST is checked (Origin, CSRF token) before anything is read
 * or changed; a page without a live session redirects to the sign-in page. Form bodies, which hold
 * passwords, are never logged.
 */
export function portalRouter(deps: ServiceDeps, options: WebOptions): Router {
  const router = new Router();
  const { orm } = deps;
  const webUrl = options.webUrl;
  const session = (ctx: Parameters<typeof currentSession>[0]) => currentSession(ctx, orm, webUrl, options.sessionTimeouts);
  const warning = cookiePolicyWarning(webUrl);
  if (warning) deps.log.warn(warning);

  router.get('/portal/assets/portal.css', (ctx) => {
    ctx.type = 'text/css; charset=utf-8';
    ctx.body = PORTAL_CSS;
  });
  // The icon, also where a browser asks for one on a page that names none (the reference site's).
  router.get(['/portal/assets/icon.svg', '/favicon.ico'], (ctx) => {
    ctx.type = 'image/svg+xml';
    ctx.body = PORTAL_ICON;
  });

  router.get('/', async (ctx) => ctx.redirect((await session(ctx)) ? HOME_PATH : '/sign-in'));

  router.get('/sign-in', async (ctx) => {
    if (await session(ctx)) return ctx.redirect(HOME_PATH);
    html(ctx, 200, signInPage(signInToken(ctx, webUrl), null, '', ctx.query.reset === 'done' ? PASSWORD_RESET_NOTICE : null));
  });

  signInPost(router, deps, options);

  const kit = portalKit(deps, options);

  // Every page's `:id` (payments, events, webhooks, deliveries, API keys, users) has the shape of an
  // issued id before its route runs, so a crafted one (a NUL, a quote, 10 kB) never reaches SQL and
  // answers 404 like any id of another merchant (issue 47, finding 4). Routes check the kind too.
  router.param('id', (id, ctx, next) => (isIssuedIdShape(id) ? next() : notFoundText(ctx)));

  router.post('/sign-out', async (ctx) => {
    const signedIn = await kit.postedSession(ctx);
    if (!signedIn) return;
    await revokePortalSession(orm, signedIn.id);
    await recordPortalAccess(orm, { action: 'portal.sign_out', userId: signedIn.userId, email: signedIn.email, merchantId: signedIn.merchantId, environment: signedIn.environment, requestId: ctx.state.requestId });
    clearSessionCookie(ctx, webUrl);
    see(ctx, '/sign-in');
  });

  router.post('/environment', async (ctx) => {
    const signedIn = await kit.postedSession(ctx);
    if (!signedIn) return;
    const environment = ctx.state.fields.get('environment');
    if (environment === 'sandbox' || environment === 'live') {
      await setSessionEnvironment(orm, signedIn.id, environment);
      await recordPortalAccess(orm, { action: 'portal.switch_environment', userId: signedIn.userId, email: signedIn.email, merchantId: signedIn.merchantId, environment, requestId: ctx.state.requestId, after: { environment } });
    }
    // Back to the page the switch was on (a local path; a detail page's id belongs to the other environment, so its list).
    see(ctx, listPathOf(ctx.state.fields.get('return') ?? '') ?? HOME_PATH);
  });

  passwordResetRoutes(router, deps, options);
  accountRoutes(router, kit);
  for (const routes of PORTAL_PAGES) routes(router, kit);

  return router;
}

/** A page path's leading plain segments (`/webhooks/we_…/deliveries` → `/webhooks`), or null for anything else. */
function listPathOf(path: string): string | null {
  if (!path.startsWith('/')) return null;
  const plain: string[] = [];
  for (const segment of path.slice(1).split('/')) {
    if (!/^[a-z-]+$/.test(segment)) break;
    plain.push(segment);
  }
  return plain.length ? `/${plain.join('/')}` : null;
}

