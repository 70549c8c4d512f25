import type { PortalUserView } from '../../persistence/portal/portal-user-store';
import html, { join, type HtmlSafeString } from 'escape-html-template-tag';
import { PORTAL_ROLES, userChangeRefusal, type PortalRole, type UserChange } from '../../domain/portal-roles';
import { guardFields, portalPage, type Frame } from './layout';
import { when } from './time-html';

export const USERS_PATH = '/users';

const ROLE_NAMES: Record<PortalRole, string> = { owner: 'Owner', admin: 'Admin', developer: 'Developer', viewer: 'Viewer' };

/** The signed-in user, and the merchant's active owners now: what the Users page may offer (src/domain/portal-roles.ts decides). */
interface Viewer {
  id: string;
  role: PortalRole;
  activeOwners: number;
}

function userRow(user: PortalUserView, frame: Frame, viewer: Viewer): HtmlSafeString {
  const { id, email } = user;
  const allowed = (change: UserChange) =>
    userChangeRefusal({ kind: 'portal', userId: viewer.id, role: viewer.role }, { id, role: user.role, status: user.status, disabledBy: user.disabled_by }, change, viewer.activeOwners) === null;
  const form = (action: string, label: string, kind: string) =>
    html`<form method="post" action="/users/${id}/${action}">${guardFields(frame)}<button type="submit" class="${kind}" aria-label="${label} ${email}">${label}</button></form>`;
  const roles = PORTAL_ROLES.filter((r) => r === user.role || allowed({ kind: 'set_role', role: r }));
  const roleForm =
    roles.length > 1
      ? html`<br><form method="post" action="/users/${id}/role" class="role-form">${guardFields(frame)}<label for="role-${id}" class="visually-hidden">Role of ${email}</label><select name="role" id="role-${id}">${join(
          roles.map((r) => html`<option value="${r}"${r === user.role ? html` selected` : ''}>${ROLE_NAMES[r]}</option>`),
          '',
        )}</select> <button type="submit" class="secondary" aria-label="Change role of ${email}">Change role</button></form>`
      : '';
  let actions: HtmlSafeString | string;
  if (user.id === viewer.id) actions = html`<small>You (sign out to end your session)</small>`;
  else if (user.status === 'disabled') {
    actions =
      user.disabled_by === 'operator'
        ? html`<small>Disabled by an operator: ask support to enable it.</small>`
        : allowed({ kind: 'enable' })
          ? form('enable', 'Enable', 'secondary')
          : '';
  } else {
    actions = join([allowed({ kind: 'disable' }) ? form('disable', 'Disable', 'danger') : '', allowed({ kind: 'revoke_sessions' }) ? form('revoke-sessions', 'End sessions', 'secondary') : ''].filter((a) => a !== ''), '\n');
  }
  const locked = user.locked_until ? html`<br><small>sign-in locked until ${when(user.locked_until)}</small>` : '';
  return html`<tr id="${id}">
<td>${email}<br><small>${id}</small></td>
<td class="role">${ROLE_NAMES[user.role]}${user.id === viewer.id ? '' : roleForm}</td>
<td class="status">${user.status === 'disabled' ? 'Disabled' : 'Active'}${locked}</td>
<td>${when(user.created_at)}</td><td>${when(user.last_sign_in_at)}</td>
<td>${actions}</td>
</tr>`;
}

/**
 * Users: the merchant's own portal users, their role, status and last sign-in; an owner or an admin
 * changes a colleague's role, disables, enables (unless an operator disabled it) or ends its
 * sessions, never its own. Only what the viewer's role may do is offered (the server checks anyway).
 */
export function usersPage(frame: Frame, users: PortalUserView[], selfId: string, message: string | null = null, status: 'error' | 'notice' = 'error'): HtmlSafeString {
  const note = message ? html`<p class="${status}" role="${status === 'error' ? 'alert' : 'status'}" id="message">${message}</p>\n` : '';
  const viewer: Viewer = { id: selfId, role: frame.role, activeOwners: users.filter((u) => u.role === 'owner' && u.status === 'active').length };
  return portalPage(
    'Users',
    html`<h1>Users</h1>
${note}<p>Everyone who can sign in to this merchant's portal, in both environments. Owners and admins change users: an owner can do everything; an admin everything but owners; a developer manages webhooks and sandbox API keys; a viewer only reads. Disabling a user ends its sessions at once and refuses its sign-in; "End sessions" signs it out everywhere; a user disabled by an operator is enabled only by support. Each change is recorded in the audit log under your email.</p>
<p id="your-role">Your role: <strong>${ROLE_NAMES[frame.role]}</strong></p>
<table id="users"><caption class="visually-hidden">Portal users</caption>
<thead><tr><th scope="col">User</th><th scope="col">Role</th><th scope="col">Status</th><th scope="col">Created</th><th scope="col">Last sign-in</th><th scope="col">Actions</th></tr></thead>
<tbody>
${join(users.map((u) => userRow(u, frame, viewer)), '\n')}
</tbody></table>`,
    frame,
  );
}
