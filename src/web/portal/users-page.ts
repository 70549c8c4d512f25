import type { PortalUserView } from '../../persistence/portal/portal-user-store';
import html, { join, type HtmlSafeString } from 'escape-html-template-tag';
import { guardFields, portalPage, type Frame } from './layout';
import { when } from './time-html';

export const USERS_PATH = '/users';

function userRow(user: PortalUserView, frame: Frame, selfId: string): HtmlSafeString {
  const { id, email } = user;
  const form = (action: string, label: string, kind: string) =>
    html`<form method="post" action="/users/${id}/${action}">${guardFields(frame)}<button type="submit" class="${kind}" aria-label="${label} ${email}">${label}</button></form>`;
  const actions =
    user.id === selfId
      ? html`<small>You (sign out to end your session)</small>`
      : user.status === 'disabled'
        ? form('enable', 'Enable', 'secondary')
        : html`${form('disable', 'Disable', 'danger')}\n${form('revoke-sessions', 'End sessions', 'secondary')}`;
  const locked = user.locked_until ? html`<br><small>sign-in locked until ${when(user.locked_until)}</small>` : '';
  return html`<tr id="${id}">
<td>${email}<br><small>${id}</small></td>
<td class="status">${user.status === 'disabled' ? 'Disabled' : 'Active'}${locked}</td>
<td>${when(user.created_at)}</td><td>${when(user.last_sign_in_at)}</td>
<td>${actions}</td>
</tr>`;
}

/** Users: the merchant's own portal users, their status and last sign-in; disable, enable, end sessions (never one's own). */
export function usersPage(frame: Frame, users: PortalUserView[], selfId: string, message: string | null = null, status: 'error' | 'notice' = 'error'): HtmlSafeString {
  const note = message ? html`<p class="${status}" role="${status === 'error' ? 'alert' : 'status'}" id="message">${message}</p>\n` : '';
  return portalPage(
    'Users',
    html`<h1>Users</h1>
${note}<p>Everyone who can sign in to this merchant's portal, in both environments. Disabling a user ends its sessions at once and refuses its sign-in; "End sessions" signs it out everywhere. Each change is recorded in the audit log under your email.</p>
<table id="users"><caption class="visually-hidden">Portal users</caption>
<thead><tr><th scope="col">User</th><th scope="col">Status</th><th scope="col">Created</th><th scope="col">Last sign-in</th><th scope="col">Actions</th></tr></thead>
<tbody>
${join(users.map((u) => userRow(u, frame, selfId)), '\n')}
</tbody></table>`,
    frame,
  );
}
