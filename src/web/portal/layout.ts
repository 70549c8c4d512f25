import type { Environment } from '../../domain/environment';
import { escapeHtml } from '../../support/escape-html';

/**
 * The portal's page frame: server-rendered HTML, no script, one stylesheet from 'self'. A signed-in
 * page has the header (merchant user, the sandbox/live switch, sign-out); every sandbox page carries
 * the TEST MODE band, which no setting removes; live has none.
 */
export interface Frame {
  email: string;
  environment: Environment;
  csrfToken: string;
  /** The page's path: its navigation entry is marked current, and the environment switch comes back to it. */
  path?: string;
}

/** The header's navigation: label and path, in order (each page's routes are in src/web/portal/pages.ts). */
export const PORTAL_NAV: { label: string; path: string }[] = [
  { label: 'Payments', path: '/payments' },
  { label: 'Balances', path: '/balances' },
  { label: 'Events', path: '/events' },
  { label: 'Webhooks', path: '/webhooks' },
  { label: 'Developers → API keys', path: '/developers/api-keys' },
  { label: 'Users', path: '/users' },
  { label: 'Settings', path: '/settings' },
];

/** A form's CSRF token alone: only for the sign-in form and the header's session forms (the switch, sign-out). */
export const hidden = (csrfToken: string): string => `<input type="hidden" name="csrf" value="${escapeHtml(csrfToken)}">`;

/**
 * What every form that changes something carries: the environment it was opened in, then its CSRF
 * token. kit.posted refuses the POST, changing nothing, unless the session is still in that
 * environment (./form-environment.ts).
 */
export const guardFields = (frame: Pick<Frame, 'csrfToken' | 'environment'>): string => `<input type="hidden" name="environment" value="${frame.environment}">${hidden(frame.csrfToken)}`;

export function portalPage(title: string, body: string, frame: Frame | null, mainClass = ''): string {
  const band = frame?.environment === 'sandbox' ? `<div class="test-mode" role="status" id="test-mode">TEST MODE: you are viewing sandbox data; no real money moves</div>\n` : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Merchant portal</title>
<link rel="stylesheet" href="/portal/assets/portal.css">
<link rel="icon" href="/portal/assets/icon.svg" type="image/svg+xml">
</head>
<body>
${band}${frame ? header(frame) : ''}<main${mainClass ? ` class="${mainClass}"` : ''}>
${body}
</main>
</body>
</html>
`;
}

function header(frame: Frame): string {
  const other: Environment = frame.environment === 'sandbox' ? 'live' : 'sandbox';
  return `<header class="bar">
<span class="brand">Merchant portal</span>
<nav aria-label="Main">${PORTAL_NAV.map((n) => `<a href="${n.path}"${frame.path?.startsWith(n.path) ? ' aria-current="page"' : ''}>${escapeHtml(n.label)}</a>`).join(' ')}</nav>
<span>Environment: <span class="env env-${frame.environment}" id="environment">${frame.environment === 'sandbox' ? 'Sandbox' : 'Live'}</span></span>
<form method="post" action="/environment">${hidden(frame.csrfToken)}<input type="hidden" name="environment" value="${other}"><input type="hidden" name="return" value="${escapeHtml(frame.path ?? '')}"><button type="submit" class="secondary" id="switch-environment">Switch to ${other === 'sandbox' ? 'sandbox' : 'live'}</button></form>
<span id="signed-in-as">${escapeHtml(frame.email)}</span>
<form method="post" action="/sign-out">${hidden(frame.csrfToken)}<button type="submit" class="secondary" id="sign-out">Sign out</button></form>
</header>
`;
}
