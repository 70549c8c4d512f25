import html, { join, type HtmlSafeString } from 'escape-html-template-tag';
import type { SessionListing, SessionTimeouts } from '../../persistence/portal/portal-session-store';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../../support/password';
import { hidden, portalPage, type Frame } from './layout';
import { when } from './time-html';
import { userAgentSummary } from './user-agent';

export const ACCOUNT_PATH = '/account';

/** What a finished action of the Account page says after its redirect (`?done=…`): fixed texts only. */
export const ACCOUNT_DONE = {
  password: 'Your password is changed. Your other sessions have ended; this browser stays signed in.',
  session: 'That session has ended.',
} as const;
export type AccountDone = keyof typeof ACCOUNT_DONE;

export interface AccountMessage {
  text: string;
  kind: 'error' | 'notice';
}

function sessionRow(s: SessionListing, frame: Frame, currentId: string): HtmlSafeString {
  const here = s.id === currentId;
  const label = userAgentSummary(s.userAgent);
  return html`<tr${here ? html` id="this-session"` : ''}>
<td>${label}${here ? html` <strong>(this browser)</strong>` : ''}</td>
<td>${s.clientAddress ?? '—'}</td>
<td>${when(s.createdAt.toISOString())}</td>
<td>${when(s.lastSeenAt.toISOString())}</td>
<td>${here ? html`<small>Use "Sign out" at the top</small>` : html`<form method="post" action="/account/sessions/revoke">${hidden(frame.csrfToken)}<input type="hidden" name="session" value="${s.id}"><button type="submit" class="secondary" aria-label="Sign out ${label}, signed in ${s.createdAt.toISOString().slice(0, 16).replace('T', ' ')} UTC">Sign out</button></form>`}</td>
</tr>`;
}

/**
 * Account: the signed-in user's own password and sessions, the same for every role. The forms carry
 * the session's CSRF token (no environment: they act on the user, not on sandbox or live data).
 */
export function accountPage(frame: Frame, sessions: SessionListing[], currentId: string, timeouts: SessionTimeouts, message: AccountMessage | null = null): HtmlSafeString {
  const note = message ? html`<p class="${message.kind}" role="${message.kind === 'error' ? 'alert' : 'status'}" id="message">${message.text}</p>\n` : '';
  return portalPage(
    'Account',
    html`<h1>Your account</h1>
${note}<p>Signed in as <strong>${frame.email}</strong>.</p>
<section aria-labelledby="password-heading">
<h2 id="password-heading">Change your password</h2>
<p>At least ${MIN_PASSWORD_LENGTH} characters; a password found in known breaches, or one containing your email address, is refused. Changing it signs out your other sessions.</p>
<form method="post" action="/account/password" id="password-form">
${hidden(frame.csrfToken)}
<input type="text" name="username" autocomplete="username" value="${frame.email}" hidden>
<label for="current-password">Current password</label>
<input id="current-password" name="current_password" type="password" autocomplete="current-password" maxlength="${MAX_PASSWORD_LENGTH}" required>
<label for="new-password">New password</label>
<input id="new-password" name="new_password" type="password" autocomplete="new-password" minlength="${MIN_PASSWORD_LENGTH}" maxlength="${MAX_PASSWORD_LENGTH}" required>
<label for="confirm-password">New password, again</label>
<input id="confirm-password" name="confirm_password" type="password" autocomplete="new-password" minlength="${MIN_PASSWORD_LENGTH}" maxlength="${MAX_PASSWORD_LENGTH}" required>
<button type="submit" id="change-password">Change password</button>
</form>
</section>
<section aria-labelledby="sessions-heading">
<h2 id="sessions-heading">Your sessions</h2>
<p>Where you are signed in now. A session ends after ${Math.round(timeouts.idleMs / 60_000)} minutes unused or ${Math.round(timeouts.maxMs / 3_600_000)} hours after its sign-in. Browser and address are as the browser reported them.</p>
<table id="sessions"><caption class="visually-hidden">Your signed-in sessions</caption>
<thead><tr><th scope="col">Browser</th><th scope="col">Address</th><th scope="col">Signed in</th><th scope="col">Last used</th><th scope="col">Action</th></tr></thead>
<tbody>
${join(sessions.map((s) => sessionRow(s, frame, currentId)), '\n')}
</tbody></table>
<form method="post" action="/account/sessions/revoke-all">${hidden(frame.csrfToken)}<button type="submit" class="danger" id="sign-out-everywhere">Sign out everywhere</button></form>
<p><small>"Sign out everywhere" ends every session above, this one included.</small></p>
</section>`,
    frame,
  );
}
