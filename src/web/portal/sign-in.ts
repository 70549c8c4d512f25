import type Router from '@koa/router';
import type { Context } from 'koa';
import type { ServiceDeps } from '../../services/context';
import { recordPortalAccess } from '../../persistence/portal/portal-audit';
import { findPortalUserByEmail, recordSignIn } from '../../persistence/portal/portal-user-store';
import { createPortalSession, revokeSessionOfToken } from '../../persistence/portal/portal-session-store';
import { attemptKeyOf, clearAttempts, countAttempt, pruneAttempts, recordRefusedAttempt } from '../../persistence/portal/sign-in-attempts';
import { signInLimits } from '../../persistence/portal/sign-in-limits';
import { clientAddressOf } from '../../support/client-address';
import { HashSlotsFull } from '../../support/hash-slots';
import { MAX_PASSWORD_LENGTH, verifyPassword } from '../../support/password';
import { formFields } from '../form-body';
import type { WebOptions } from '../web-options';
import { forbidden, html, see } from './kit';
import { HOME_PATH } from './pages';
import { portalHashSlots } from './portal-hash-slots';
import { clearSignInCookie, sameOrigin, sessionCookieToken, setSessionCookie, signInCookieToken, signInToken, tokensMatch } from './session';
import { BUSY_MESSAGE, lockedMessage, SIGN_IN_FAILED, signInPage, tooManyMessage } from './sign-in-page';

/**
 * `POST /sign-in` (docs/security.md "Merchant portal"), in this order, each step refusing before the
 * next costs anything:
 * 1. the form's Origin and CSRF token;
 * 2. the sign-in limits per client address and per email (429 with Retry-After);
 * 3. a password-hash slot (503 with Retry-After at once when every slot and queue place is taken,
 *    nothing counted), held for steps 4 and 5;
 * 4. the attempt counted, before the password is checked (a locked email: 429, no check, even with the
 *    right password);
 * 5. the password checked, against a dummy hash for an unknown email;
 * 6. a success clears the count only while no lock is in force; any refusal records itself (and its
 *    audit row for a user's email) in one statement.
 * 7. a success ends the session this browser still presented (whoever's it was), then opens a new one
 *    (a new token: no fixation), recording where from (address, User-Agent) for the Account page.
 * A known and an unknown email take the same steps and statements, so neither the answers (401 then
 * 429 on the fifth failure) nor their timing tell which emails exist. A disabled user is refused with the
 * same generic message.
 */
export function signInPost(router: Router, deps: ServiceDeps, options: WebOptions): void {
  const { orm } = deps;
  const webUrl = options.webUrl;
  const limits = signInLimits(orm, options.signInLimits);
  const slots = portalHashSlots(options);
  // At most once an hour, after an answer: old counts of made-up emails are deleted (sign-in-attempts.ts).
  let prunedAt = 0;
  const prune = () => {
    if (Date.now() - prunedAt < 3600_000) return;
    prunedAt = Date.now();
    pruneAttempts(orm).then(
      (deleted) => deps.log.info({ deleted }, 'portal sign-in attempts pruned'),
      (error: unknown) => deps.log.warn({ err: error }, 'portal sign-in attempts not pruned'),
    );
  };

  const refuse = (ctx: Context, status: number, message: string, email: string, retryAfterMs?: number) => {
    if (retryAfterMs !== undefined) ctx.set('Retry-After', String(Math.max(1, Math.ceil(retryAfterMs / 1000))));
    html(ctx, status, signInPage(signInToken(ctx, webUrl), message, email));
  };

  router.post('/sign-in', async (ctx) => {
    const fields = await formFields(ctx);
    const expected = signInCookieToken(ctx, webUrl);
    if (!fields || !sameOrigin(ctx, webUrl) || !tokensMatch(expected, fields.get('csrf'))) return forbidden(ctx);
    const email = (fields.get('email') ?? '').trim().slice(0, 254);
    const password = fields.get('password') ?? '';
    const key = attemptKeyOf(email);
    const requestId = ctx.state.requestId as string;
    prune();

    const address = clientAddressOf(ctx);
    const limit = await limits.take(address, key);
    if (!limit.allowed) return refuse(ctx, 429, tooManyMessage(limit.msBeforeNext), email, limit.msBeforeNext);
    // The lookup, the count and the check hold a hash slot: when none is free, nothing is counted.
    let checked: { user: Awaited<ReturnType<typeof findPortalUserByEmail>>; lockedUntil: Date | null; ok: boolean };
    try {
      checked = await slots.run(async () => {
        const user = await findPortalUserByEmail(orm, email);
        const attempt = await countAttempt(orm, key);
        if (attempt.lockedUntil) return { user, lockedUntil: attempt.lockedUntil, ok: false };
        const ok = (await verifyPassword(user?.passwordHash ?? null, password.slice(0, MAX_PASSWORD_LENGTH))) && password.length <= MAX_PASSWORD_LENGTH;
        return { user, lockedUntil: null, ok };
      });
    } catch (error) {
      if (!(error instanceof HashSlotsFull)) throw error;
      return refuse(ctx, 503, BUSY_MESSAGE, email, 1000);
    }
    const { user, ok } = checked;
    if (checked.lockedUntil) {
      const locked = (await recordRefusedAttempt(orm, key, email, requestId)) ?? checked.lockedUntil;
      return refuse(ctx, 429, lockedMessage(locked), email, locked.getTime() - Date.now());
    }
    if (!user || !ok || user.disabledAt || !(await clearAttempts(orm, key))) {
      const locked = await recordRefusedAttempt(orm, key, email, requestId);
      return locked ? refuse(ctx, 429, lockedMessage(locked), email, locked.getTime() - Date.now()) : refuse(ctx, 401, SIGN_IN_FAILED, email);
    }
    await limits.giveBack(address, key);
    await recordSignIn(orm, user.id);
    const older = sessionCookieToken(ctx, webUrl);
    const endedOlder = older ? await revokeSessionOfToken(orm, older) : false;
    await recordPortalAccess(orm, { action: 'portal.sign_in', userId: user.id, email: user.email, merchantId: user.merchantId, environment: 'sandbox', requestId, ...(endedOlder ? { after: { ended_older_session: true } } : {}) });
    const token = await createPortalSession(orm, user.id, { clientAddress: address, userAgent: ctx.get('User-Agent') }, options.sessionTimeouts);
    setSessionCookie(ctx, webUrl, token, options.sessionTimeouts);
    clearSignInCookie(ctx, webUrl);
    see(ctx, HOME_PATH);
  });
}
