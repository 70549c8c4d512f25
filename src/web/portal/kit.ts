import type Router from '@koa/router';
import type { Context } from 'koa';
import type { HtmlSafeString } from 'escape-html-template-tag';
import type { ChangeActor } from '../../domain/operator-action';
import type { PortalPermission } from '../../domain/portal-roles';
import type { Caller, ServiceDeps } from '../../services/context';
import type { PortalSession } from '../../persistence/portal/portal-session-store';
import { formFields } from '../form-body';
import type { WebOptions } from '../web-options';
import { environmentRefusal, environmentRefusalPage } from './form-environment';
import type { Frame } from './layout';
import { roleRefusal, roleRefusalPage } from './permission-refusal';
import { currentSession, sameOrigin, tokensMatch } from './session';

/**
 * What every portal page's routes share: the services (the API's, never a second path), the web
 * options, and the request checks. A page module exports `(router, kit) => void` and is listed in
 * src/web/portal/pages.ts; its GETs call `kit.page(ctx)` and its POSTs `kit.posted(ctx, permission)` (forms rendered with layout.ts guardFields), which
 * answer for themselves (redirect to sign-in, 403) and give null when the request goes no further.
 * Every POST names the permission it needs (src/domain/portal-roles.ts): the argument is mandatory,
 * so no route can forget the role check; `self_service` is the one every role has (its own session, password).
 */
export interface PortalKit {
  deps: ServiceDeps;
  options: WebOptions;
  /**
   * A GET's session, or null after redirecting to the sign-in page, or after a 403 page when the
   * session's role may not open it (`permission`, default `view`: every role).
   */
  page(ctx: Context, permission?: PortalPermission): Promise<PortalSession | null>;
  /**
   * A POST's session after the Origin, CSRF, environment and role checks (its form in `ctx.state.fields`),
   * or null after answering: the form's `environment` field (layout.ts guardFields) must be the
   * session's environment now, else nothing changes (./form-environment.ts); then the session's role
   * must have `permission` in that environment, else 403 and nothing changes.
   */
  posted(ctx: Context, permission: PortalPermission): Promise<PortalSession | null>;
  /** The same without the environment and role checks: only for the forms that act on the session or the user itself (the sandbox/live switch, sign-out, the Account page's password and sessions: every role). */
  postedSession(ctx: Context): Promise<PortalSession | null>;
}

export type PortalRoutes = (router: Router, kit: PortalKit) => void;

/** The session when its role has `permission` in its environment; else a 403 page (nothing changed) and null. */
function allowed(ctx: Context, session: PortalSession, permission: PortalPermission): PortalSession | null {
  const refusal = roleRefusal(session, permission);
  if (!refusal) return session;
  html(ctx, 403, roleRefusalPage(frameOf(session), refusal));
  return null;
}

export function portalKit(deps: ServiceDeps, options: WebOptions): PortalKit {
  const webUrl = options.webUrl;
  async function postedSession(ctx: Context): Promise<PortalSession | null> {
    if (!sameOrigin(ctx, webUrl)) return forbidden(ctx);
    const fields = await formFields(ctx);
    if (!fields) return forbidden(ctx);
    const session = await currentSession(ctx, deps.orm, webUrl, options.sessionTimeouts);
    if (!session) {
      see(ctx, '/sign-in');
      return null;
    }
    if (!tokensMatch(session.csrfToken, fields.get('csrf'))) return forbidden(ctx);
    ctx.state.fields = fields;
    return session;
  }
  return {
    deps,
    options,
    async page(ctx, permission = 'view') {
      const session = await currentSession(ctx, deps.orm, webUrl, options.sessionTimeouts);
      if (!session) {
        ctx.redirect('/sign-in');
        return null;
      }
      return allowed(ctx, session, permission);
    },
    async posted(ctx, permission) {
      const session = await postedSession(ctx);
      if (!session) return null;
      const refusal = environmentRefusal(session, (ctx.state.fields as URLSearchParams).get('environment'));
      if (refusal) {
        html(ctx, refusal.status, environmentRefusalPage(frameOf(session), refusal, ctx.path));
        return null;
      }
      return allowed(ctx, session, permission);
    },
    postedSession,
  };
}

/** The page frame of a session (header, switch, TEST MODE band); `path` (ctx.path) marks its navigation entry. */
export const frameOf = (session: PortalSession, path?: string): Frame => ({ email: session.email, role: session.role, environment: session.environment, csrfToken: session.csrfToken, ...(path ? { path } : {}) });

/**
 * The session as the API's services know a caller: its merchant and environment. `keyId` names the
 * portal user (no API key is involved); the portal never creates payments, so `merchantVerified`
 * (which only gates live money movement) is false.
 */
export const callerOf = (session: PortalSession): Caller => ({ merchantId: session.merchantId, environment: session.environment, keyId: `portal:${session.email}`, merchantVerified: false });

/** Who a portal change is by, as its audit row records it: `portal:<email>`, what was done, the web request id. */
export function portalActor(session: PortalSession, requestId: string, reason: string): ChangeActor {
  return { operator: `portal:${session.email}`, reason: `portal: ${reason}`, requestId };
}

/** A page as the answer: the one place a page built with the `html` tag (layout.ts) becomes text. */
export function html(ctx: Context, status: number, page: HtmlSafeString): void {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = page.toString();
}

/** After a POST: 303, so a reload does not post again. */
export function see(ctx: Context, path: string): void {
  ctx.status = 303;
  ctx.redirect(path);
}

export function forbidden(ctx: Context): null {
  ctx.status = 403;
  ctx.type = 'text/plain; charset=utf-8';
  ctx.body = 'This form has expired or did not come from this site. Go back, reload the page and try again.';
  return null;
}

/** A plain-text 404 (an id of another merchant or environment included: nothing says whether it exists elsewhere). */
export function notFoundText(ctx: Context): void {
  ctx.status = 404;
  ctx.type = 'text/plain; charset=utf-8';
  ctx.body = 'Not found in this environment.';
}
