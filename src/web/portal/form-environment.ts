import type { Environment } from '../../domain/environment';
import type { PortalSession } from '../../persistence/portal/portal-session-store';
import html, { type HtmlSafeString } from 'escape-html-template-tag';
import { urlHtml } from '../html-url';
import { portalPage, PORTAL_NAV, type Frame } from './layout';

/**
 * The environment a portal form was opened in (issue 30): every form that changes something carries
 * it in a hidden `environment` field next to its CSRF token (layout.ts `guardFields`), and the POST
 * is refused, with nothing changed, unless it is the session's environment now. So a sandbox tab left
 * open after a switch to live in another tab cannot create a live key or endpoint. A form without the
 * field is refused too. Only the header's own session forms (the switch itself, sign-out) carry none.
 */
export interface EnvironmentRefusal {
  status: 400 | 409;
  message: string;
}

const NAMES: Record<Environment, string> = { sandbox: 'sandbox', live: 'live' };

export function environmentRefusal(session: PortalSession, posted: string | null): EnvironmentRefusal | null {
  const now = NAMES[session.environment];
  if (posted === session.environment) return null;
  if (posted === 'sandbox' || posted === 'live') {
    return { status: 409, message: `This form was opened in ${NAMES[posted]}, but you are now in ${now}. Nothing was changed. Reload the page to act in ${now}.` };
  }
  return { status: 400, message: `This form does not say which environment (sandbox or live) it was opened in. Nothing was changed. Reload the page to act in ${now}.` };
}

/** The refusal's page: the message, and a link to the form's section in the session's environment now. */
export function environmentRefusalPage(frame: Frame, refusal: EnvironmentRefusal, path: string): HtmlSafeString {
  const section = PORTAL_NAV.find((n) => path === n.path || path.startsWith(`${n.path}/`));
  const back = section ? html`<a href="${urlHtml(section.path)}" id="reload-section">${section.label} in ${NAMES[frame.environment]}</a>` : html`<a href="/" id="reload-section">the portal in ${NAMES[frame.environment]}</a>`;
  return portalPage('Nothing was changed', html`<h1>Nothing was changed</h1>
<p class="error" role="alert" id="message">${refusal.message}</p>
<p>Go to ${back}.</p>`, frame);
}
