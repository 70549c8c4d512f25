import html, { type HtmlSafeString } from 'escape-html-template-tag';
import { hidden, portalPage } from './layout';

/** The sign-in form; `message` is the generic failure or the lock-out notice; `notice` a fixed status line (a password just reset). */
export function signInPage(csrfToken: string, message: string | null = null, email = '', notice: string | null = null): HtmlSafeString {
  const error = message ? html`<p class="error" role="alert" id="sign-in-error">${message}</p>\n` : notice ? html`<p class="notice" role="status" id="sign-in-notice">${notice}</p>\n` : '';
  return portalPage(
    'Sign in',
    html`<h1>Sign in to the merchant portal</h1>
${error}<form method="post" action="/sign-in">
${hidden(csrfToken)}
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" maxlength="254" required value="${email}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" maxlength="256" required>
<button type="submit" id="sign-in">Sign in</button>
</form>
<p><a href="/password-reset" id="forgot-password">Forgot your password?</a></p>`,
    null,
    'narrow',
  );
}

export const SIGN_IN_FAILED = 'The email or password is not right.';

export function lockedMessage(until: Date): string {
  const minutes = Math.max(1, Math.ceil((until.getTime() - Date.now()) / 60_000));
  return `Too many failed sign-ins: this account is locked for ${minutes} more minute${minutes === 1 ? '' : 's'}. Try again later.`;
}

/** The sign-in limits per address and per email (src/persistence/portal/sign-in-limits.ts) refused the attempt. */
export function tooManyMessage(msBeforeNext: number): string {
  const minutes = Math.max(1, Math.ceil(msBeforeNext / 60_000));
  return `Too many sign-in attempts. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`;
}

/** After a password reset by its link (password-reset-routes.ts). */
export const PASSWORD_RESET_NOTICE = 'Your password is changed and every session of your account has ended. Sign in with the new password.';

/** Every password-hash slot is taken (src/support/hash-slots.ts). */
export const BUSY_MESSAGE = 'The portal is busy. Try again in a moment.';
