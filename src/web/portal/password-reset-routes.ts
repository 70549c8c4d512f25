import { randomBytes } from 'node:crypto';
import type Router from '@koa/router';
import type { Context } from 'koa';
import { parseEmail } from '../../notifications/recipient';
import { completePasswordReset, findUsableReset, requestPasswordReset } from '../../persistence/portal/password-reset-store';
import { attemptKeyOf } from '../../persistence/portal/sign-in-attempts';
import { PASSWORD_RESET_LIMITS, signInLimits } from '../../persistence/portal/sign-in-limits';
import type { ServiceDeps } from '../../services/context';
import { startNotificationWorkflow } from '../../temporal/notification-start';
import { clientAddressOf } from '../../support/client-address';
import { HashSlotsFull } from '../../support/hash-slots';
import { hashPassword, passwordProblem } from '../../support/password';
import { formFields } from '../form-body';
import type { WebOptions } from '../web-options';
import { forbidden, html, see } from './kit';
import { RESET_PATH, RESET_SENT, resetLinkGonePage, resetLinkPage, resetRequestPage } from './password-reset-page';
import { portalHashSlots } from './portal-hash-slots';
import { clearSessionCookie, sameOrigin, signInCookieToken, signInToken, tokensMatch } from './session';
import { BUSY_MESSAGE } from './sign-in-page';

/** A reset email's retries: within the link's 30 minutes (a later one would carry a dead link). */
export const DEFAULT_PASSWORD_RESET_RETRY_MS = [10_000, 60_000, 300_000, 600_000];

/** Where the sign-in page says the password was reset. */
export const RESET_DONE_PATH = '/sign-in?reset=done';

/**
 * Password reset by an emailed one-time link (issue 47, finding 6; docs/security.md "Merchant portal").
 * The forms are before any session: the sign-in cookie's double-submit CSRF token and the Origin check.
 *
 * `POST /password-reset` (an email): within the reset limits per client address and per email
 * (known or not; sign-in-limits.ts, prefix `pwreset`), the same steps whatever the email: a new token
 * (32 random bytes), its link sealed, and ONE statement (password-reset-store.ts) that, only for an
 * existing and active user, replaces older resets and writes the reset, its email (the notifications
 * outbox) and the audit row. The same page answers either way; the email's workflow is started after
 * the answer (the notification relay's sweep starts it if that fails), so the answer's timing does
 * not depend on it either.
 *
 * `GET|POST /password-reset/<token>`: the new password (the policy, with the user's email) set by
 * consuming the reset atomically (once; not after 30 minutes or a newer request), ending every
 * session of the user and clearing the email's sign-in lock-out, audited. Its Referer is the origin alone.
 */
export function passwordResetRoutes(router: Router, deps: ServiceDeps, options: WebOptions): void {
  const { orm } = deps;
  const webUrl = options.webUrl;
  const limits = signInLimits(orm, PASSWORD_RESET_LIMITS, 'pwreset');
  const slots = portalHashSlots(options);
  const retryScheduleMs = options.passwordResetRetryMs ?? DEFAULT_PASSWORD_RESET_RETRY_MS;

  /** The form's Origin and its double-submit token (the sign-in cookie), or 403. */
  const checked = async (ctx: Context): Promise<URLSearchParams | null> => {
    const fields = await formFields(ctx);
    if (!fields || !sameOrigin(ctx, webUrl) || !tokensMatch(signInCookieToken(ctx, webUrl), fields.get('csrf'))) return forbidden(ctx);
    return fields;
  };

  router.get(RESET_PATH, (ctx) => html(ctx, 200, resetRequestPage(signInToken(ctx, webUrl))));

  router.post(RESET_PATH, async (ctx) => {
    const fields = await checked(ctx);
    if (!fields) return;
    const given = (fields.get('email') ?? '').trim().slice(0, 254);
    const email = parseEmail(given);
    if (!email) return html(ctx, 400, resetRequestPage(signInToken(ctx, webUrl), 'Enter the email address you sign in with.', 'error', given));
    const limit = await limits.take(clientAddressOf(ctx), attemptKeyOf(email));
    if (!limit.allowed) {
      const minutes = Math.max(1, Math.ceil(limit.msBeforeNext / 60_000));
      ctx.set('Retry-After', String(Math.max(1, Math.ceil(limit.msBeforeNext / 1000))));
      return html(ctx, 429, resetRequestPage(signInToken(ctx, webUrl), `Too many reset requests. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`, 'error', email));
    }
    const token = randomBytes(32).toString('base64url');
    const written = await requestPasswordReset(orm, { email, token, linkSealed: deps.secretBox.seal(`${webUrl}${RESET_PATH}/${token}`), requestId: ctx.state.requestId as string });
    html(ctx, 200, resetRequestPage(signInToken(ctx, webUrl), RESET_SENT, 'notice'));
    if (written) {
      // After the answer, not awaited: a failed start is logged, and the relay's sweep starts it later.
      setImmediate(() => {
        startNotificationWorkflow(deps.temporal.client, deps.taskQueue, { notificationId: written.notificationId, merchantId: written.merchantId, environment: 'live', kind: 'portal_password_reset', retryScheduleMs }).catch((error: unknown) =>
          deps.log.warn({ err: error, notificationId: written.notificationId }, 'password reset email not started now: the notification sweep starts it'),
        );
      });
    }
  });

  const linkPage = async (ctx: Context) => {
    // The link's path holds the token: a Referer carries the origin only (not `no-referrer`, with which
    // Chromium sends `Origin: null` on the form's POST, which the Origin check refuses).
    ctx.set('Referrer-Policy', 'strict-origin');
    ctx.set('Cache-Control', 'no-store');
    const token = ctx.params.token ?? '';
    return { token, reset: await findUsableReset(orm, token) };
  };

  router.get(`${RESET_PATH}/:token`, async (ctx) => {
    const { token, reset } = await linkPage(ctx);
    if (!reset) return html(ctx, 410, resetLinkGonePage());
    html(ctx, 200, resetLinkPage(signInToken(ctx, webUrl), token, reset.email));
  });

  router.post(`${RESET_PATH}/:token`, async (ctx) => {
    const fields = await checked(ctx);
    if (!fields) return;
    const { token, reset } = await linkPage(ctx);
    if (!reset) return html(ctx, 410, resetLinkGonePage());
    const next = fields.get('new_password') ?? '';
    const again = (message: string) => html(ctx, 400, resetLinkPage(signInToken(ctx, webUrl), token, reset.email, message));
    if (next !== (fields.get('confirm_password') ?? '')) return again('The new password and its confirmation differ: type the same password twice.');
    const problem = passwordProblem(next, reset.email);
    if (problem) return again(`The new password is refused: ${problem}.`);
    let hash: string;
    try {
      hash = await slots.run(() => hashPassword(next));
    } catch (error) {
      if (!(error instanceof HashSlotsFull)) throw error;
      ctx.set('Retry-After', '1');
      return html(ctx, 503, resetLinkPage(signInToken(ctx, webUrl), token, reset.email, BUSY_MESSAGE));
    }
    const done = await completePasswordReset(orm, token, hash, ctx.state.requestId as string);
    if (!done) return html(ctx, 410, resetLinkGonePage());
    clearSessionCookie(ctx, webUrl);
    see(ctx, RESET_DONE_PATH);
  });
}
