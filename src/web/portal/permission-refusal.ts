import html, { type HtmlSafeString } from 'escape-html-template-tag';
import { can, permissionRefusal, type PortalPermission } from '../../domain/portal-roles';
import type { PortalSession } from '../../persistence/portal/portal-session-store';
import { portalPage, type Frame } from './layout';

/** Why the session's role may not do `permission` in its environment (src/domain/portal-roles.ts), or null when it may. */
export function roleRefusal(session: Pick<PortalSession, 'role' | 'environment'>, permission: PortalPermission): string | null {
  return can(session.role, permission, session.environment) ? null : permissionRefusal(session.role, permission, session.environment);
}

/** Whether the page's viewer may use a form that needs `permission` (forms it may not use are not shown; the server checks anyway). */
export const frameCan = (frame: Pick<Frame, 'role' | 'environment'>, permission: PortalPermission): boolean => can(frame.role, permission, frame.environment);

/** The 403 page of a refusal by role: what was refused, that nothing changed, and who to ask. */
export function roleRefusalPage(frame: Frame, message: string): HtmlSafeString {
  return portalPage('Not allowed for your role', html`<h1>Not allowed for your role</h1>
<p class="error" role="alert" id="message">${message}</p>
<p><a href="/" id="back">Back to the portal</a></p>`, frame);
}
