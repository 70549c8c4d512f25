import type { Environment } from '../../domain/environment';
import { can, type PortalPermission, type PortalRole } from '../../domain/portal-roles';
import html, { join, type HtmlSafeString } from 'escape-html-template-tag';
import { urlHtml } from '../html-url';

/**
 * The portal's page frame: server-rendered HTML, no script, one stylesheet from 'self'. Escaped by
 * construction, like every portal page: HTML is built only with the `html` tagged template
 * (escape-html-template-tag), which escapes each value it is given unless it is itself HTML built the
 * same way (an HtmlSafeString); pages and their parts return HtmlSafeString, and kit.ts `html()` turns
 * the page into the response's text. test/unit/portal-escaping.test.ts refuses HTML in a plain string. A signed-in
 * page has the header (merchant user, the sandbox/live switch, sign-out); every sandbox page carries
 * the TEST MODE band, which no setting removes; live has none.
 */
export interface Frame {
  email: string;
  /** The signed-in user's role: forms it cannot use are not shown (src/domain/portal-roles.ts; the server checks every POST anyway). */
  role: PortalRole;
  environment: Environment;
  csrfToken: string;
  /** The page's path: its navigation entry is marked current, and the environment switch comes back to it. */
  path?: string;
}

/** The header's navigation: label and path, in order (each page's routes are in src/web/portal/pages.ts); an entry with `needs` is shown only to the roles that may open it. */
export const PORTAL_NAV: { label: string; path: string; needs?: PortalPermission }[] = [
  { label: 'Payments', path: '/payments' },
  { label: 'Balances', path: '/balances' },
  { label: 'Events', path: '/events' },
  { label: 'Webhooks', path: '/webhooks' },
  { label: 'Developers → API keys', path: '/developers/api-keys', needs: 'view_api_keys' },
  { label: 'Users', path: '/users' },
  { label: 'Settings', path: '/settings' },
  { label: 'Account', path: '/account' },
];

/** A form's CSRF token alone: only for the forms before a session (sign-in, password reset), the header's session forms (the switch, sign-out) and the Account page's (the user's own password and sessions). */
export const hidden = (csrfToken: string): HtmlSafeString => html`<input type="hidden" name="csrf" value="${csrfToken}">`;

/**
 * What every form that changes something carries: the environment it was opened in, then its CSRF
 * token. kit.posted refuses the POST, changing nothing, unless the session is still in that
 * environment (./form-environment.ts).
 */
export const guardFields = (frame: Pick<Frame, 'csrfToken' | 'environment'>): HtmlSafeString => html`<input type="hidden" name="environment" value="${frame.environment}">${hidden(frame.csrfToken)}`;

export function portalPage(title: string, body: HtmlSafeString, frame: Frame | null, mainClass = ''): HtmlSafeString {
  const band = frame?.environment === 'sandbox' ? html`<div class="test-mode" role="status" id="test-mode">TEST MODE: you are viewing sandbox data; no real money moves</div>\n` : '';
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Merchant portal</title>
<link rel="stylesheet" href="/portal/assets/portal.css">
<link rel="icon" href="/portal/assets/icon.svg" type="image/svg+xml">
</head>
<body>
${band}${frame ? header(frame) : ''}<main${mainClass ? html` class="${mainClass}"` : ''}>
${body}
</main>
</body>
</html>
`;
}

function header(frame: Frame): HtmlSafeString {
  const other: Environment = frame.environment === 'sandbox' ? 'live' : 'sandbox';
  return html`<header class="bar">
<span class="brand">Merchant portal</span>
<nav aria-label="Main">${join(
    PORTAL_NAV.filter((n) => !n.needs || can(frame.role, n.needs, frame.environment)).map((n) => html`<a href="${urlHtml(n.path)}"${frame.path?.startsWith(n.path) ? html` aria-current="page"` : ''}>${n.label}</a>`),
    ' ',
  )}</nav>
<span>Environment: <span class="env env-${frame.environment}" id="environment">${frame.environment === 'sandbox' ? 'Sandbox' : 'Live'}</span></span>
<form method="post" action="/environment">${hidden(frame.csrfToken)}<input type="hidden" name="environment" value="${other}"><input type="hidden" name="return" value="${urlHtml(frame.path ?? '')}"><button type="submit" class="secondary" id="switch-environment">Switch to ${other === 'sandbox' ? 'sandbox' : 'live'}</button></form>
<span id="signed-in-as">${frame.email}</span>
<form method="post" action="/sign-out">${hidden(frame.csrfToken)}<button type="submit" class="secondary" id="sign-out">Sign out</button></form>
</header>
`;
}
