import html, { type HtmlSafeString } from 'escape-html-template-tag';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../../support/password';
import { hidden, portalPage } from './layout';

export const RESET_PATH = '/password-reset';

/** The one answer to a reset request, whether or not the email is a user's (or a disabled one's). */
export const RESET_SENT = 'If a portal account uses that email address, a link to choose a new password is on its way to it. The link works once, for 30 minutes. No email? Check the address and your spam folder, then ask again.';

const note = (message: string | null, kind: 'error' | 'notice') =>
  message ? html`<p class="${kind}" role="${kind === 'error' ? 'alert' : 'status'}" id="message">${message}</p>\n` : '';

/** "Forgot your password?": the email to send a reset link to. */
export function resetRequestPage(csrfToken: string, message: string | null = null, kind: 'error' | 'notice' = 'notice', email = ''): HtmlSafeString {
  return portalPage(
    'Reset your password',
    html`<h1>Reset your password</h1>
${note(message, kind)}<p>Enter the email address you sign in with. We email it a link to choose a new password.</p>
<form method="post" action="/password-reset">
${hidden(csrfToken)}
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" maxlength="254" required value="${email}">
<button type="submit" id="send-reset">Email me a link</button>
</form>
<p><a href="/sign-in">Back to sign-in</a></p>`,
    null,
    'narrow',
  );
}

/** The emailed link's page: a new password, twice. */
export function resetLinkPage(csrfToken: string, token: string, email: string, message: string | null = null): HtmlSafeString {
  return portalPage(
    'Choose a new password',
    html`<h1>Choose a new password</h1>
${note(message, 'error')}<p>For <strong>${email}</strong>. At least ${MIN_PASSWORD_LENGTH} characters; a password found in known breaches, or one containing your email address, is refused. Every session of this account is signed out.</p>
<form method="post" action="${RESET_PATH}/${token}">
${hidden(csrfToken)}
<input type="text" name="username" autocomplete="username" value="${email}" hidden>
<label for="new-password">New password</label>
<input id="new-password" name="new_password" type="password" autocomplete="new-password" minlength="${MIN_PASSWORD_LENGTH}" maxlength="${MAX_PASSWORD_LENGTH}" required>
<label for="confirm-password">New password, again</label>
<input id="confirm-password" name="confirm_password" type="password" autocomplete="new-password" minlength="${MIN_PASSWORD_LENGTH}" maxlength="${MAX_PASSWORD_LENGTH}" required>
<button type="submit" id="set-password">Set the new password</button>
</form>`,
    null,
    'narrow',
  );
}

/** A link that was used, replaced by a newer one, expired, or never was. */
export function resetLinkGonePage(): HtmlSafeString {
  return portalPage(
    'Link no longer valid',
    html`<h1>This link no longer works</h1>
<p class="error" role="alert" id="message">This password reset link was already used, replaced by a newer one, or has expired (a link lasts 30 minutes).</p>
<p><a href="/password-reset">Ask for a new link</a> · <a href="/sign-in">Sign in</a></p>`,
    null,
    'narrow',
  );
}
