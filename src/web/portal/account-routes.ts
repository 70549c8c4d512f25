import type Router from '@koa/router';
import type { Context } from 'koa';
import { changePortalPassword } from '../../persistence/portal/password-change-store';
import { recordPortalAccess } from '../../persistence/portal/portal-audit';
import { createPortalSession, DEFAULT_SESSION_TIMEOUTS, listUserSessions, revokeOwnSession, revokeUserSessions, type PortalSession } from '../../persistence/portal/portal-session-store';
import { findPortalUserByEmail } from '../../persistence/portal/portal-user-store';
import { PASSWORD_CHANGE_LIMITS, signInLimits } from '../../persistence/portal/sign-in-limits';
import { clientAddressOf } from '../../support/client-address';
import { HashSlotsFull } from '../../support/hash-slots';
import { hashPassword, MAX_PASSWORD_LENGTH, passwordProblem, verifyPassword } from '../../support/password';
import { ACCOUNT_DONE, ACCOUNT_PATH, accountPage, type AccountDone, type AccountMessage } from './account-page';
import { frameOf, html, see, type PortalKit } from './kit';
import { portalHashSlots } from './portal-hash-slots';
import { BUSY_MESSAGE, tooManyMessage } from './sign-in-page';
import { clearSessionCookie, setSessionCookie } from './session';

/**
 * The Account page (issue 47, finding 6; docs/security.md "Merchant portal"): the signed-in user's
 * own password and sessions, open to every role (no role or environment check: each form acts on
 * the user alone, through kit.postedSession's Origin and CSRF checks).
 *
 * - `POST /account/password`: the new password twice and the policy (support/password.ts) first,
 *   then, within the password-change limits (per address and per user, a wrong current password
 *   counting; sign-in-limits.ts) and a hash slot, the current password checked; on success the hash
 *   replaced, every session of the user ended and this one replaced by a new one (a new token), audited
 *   as `portal.password_change`.
 * - `POST /account/sessions/revoke`: one of the user's other sessions ended (`portal.session_revoke`).
 * - `POST /account/sessions/revoke-all`: "sign out everywhere", this session included
 *   (`portal.sign_out_everywhere`).
 */
export function accountRoutes(router: Router, kit: PortalKit): void {
  const { orm } = kit.deps;
  const { options } = kit;
  const webUrl = options.webUrl;
  const timeouts = options.sessionTimeouts ?? DEFAULT_SESSION_TIMEOUTS;
  const limits = signInLimits(orm, PASSWORD_CHANGE_LIMITS, 'pwchange');
  const slots = portalHashSlots(options);

  const show = async (ctx: Context, session: PortalSession, status: number, message: AccountMessage | null) =>
    html(ctx, status, accountPage(frameOf(session, ACCOUNT_PATH), await listUserSessions(orm, session.userId, timeouts), session.id, timeouts, message));
  const access = (session: PortalSession, ctx: Context) => ({ userId: session.userId, email: session.email, merchantId: session.merchantId, environment: session.environment, requestId: ctx.state.requestId as string });

  router.get(ACCOUNT_PATH, async (ctx) => {
    const session = await kit.page(ctx);
    if (!session) return;
    const done = ctx.query.done;
    const message = typeof done === 'string' && Object.hasOwn(ACCOUNT_DONE, done) ? { text: ACCOUNT_DONE[done as AccountDone], kind: 'notice' as const } : null;
    await show(ctx, session, 200, message);
  });

  router.post(`${ACCOUNT_PATH}/password`, async (ctx) => {
    const session = await kit.postedSession(ctx);
    if (!session) return;
    const fields = ctx.state.fields as URLSearchParams;
    const current = fields.get('current_password') ?? '';
    const next = fields.get('new_password') ?? '';
    const refuse = (status: number, text: string) => show(ctx, session, status, { text, kind: 'error' });
    if (next !== (fields.get('confirm_password') ?? '')) return refuse(400, 'The new password and its confirmation differ: type the same password twice.');
    const problem = passwordProblem(next, session.email);
    if (problem) return refuse(400, `The new password is refused: ${problem}.`);
    if (next === current) return refuse(400, 'The new password is the current one: choose another.');

    const limit = await limits.take(clientAddressOf(ctx), session.userId);
    if (!limit.allowed) {
      ctx.set('Retry-After', String(Math.max(1, Math.ceil(limit.msBeforeNext / 1000))));
      return refuse(429, tooManyMessage(limit.msBeforeNext).replace('sign-in attempts', 'password change attempts'));
    }
    let checked: { previousHash: string; passwordHash: string } | null;
    try {
      checked = await slots.run(async () => {
        const user = await findPortalUserByEmail(orm, session.email);
        const ok = current.length <= MAX_PASSWORD_LENGTH && (await verifyPassword(user?.passwordHash ?? null, current));
        return ok && user ? { previousHash: user.passwordHash, passwordHash: await hashPassword(next) } : null;
      });
    } catch (error) {
      if (!(error instanceof HashSlotsFull)) throw error;
      ctx.set('Retry-After', '1');
      return refuse(503, BUSY_MESSAGE);
    }
    if (!checked) {
      kit.deps.log.info({ userId: session.userId }, 'portal password change refused: wrong current password');
      return refuse(400, 'The current password is not right.');
    }
    const changed = await changePortalPassword(orm, { ...access(session, ctx), sessionId: session.id, ...checked });
    if (!changed) return refuse(409, 'Your password was changed meanwhile (another browser?): sign in again if this session has ended.');
    await limits.giveBack(clientAddressOf(ctx), session.userId);
    // This browser stays signed in, on a new session (a new token and CSRF secret) in the same environment.
    const token = await createPortalSession(orm, session.userId, { clientAddress: clientAddressOf(ctx), userAgent: ctx.get('User-Agent') }, timeouts, session.environment);
    setSessionCookie(ctx, webUrl, token, timeouts);
    see(ctx, `${ACCOUNT_PATH}?done=password`);
  });

  router.post(`${ACCOUNT_PATH}/sessions/revoke`, async (ctx) => {
    const session = await kit.postedSession(ctx);
    if (!session) return;
    const id = (ctx.state.fields as URLSearchParams).get('session') ?? '';
    if (id === session.id) return show(ctx, session, 400, { text: 'That is this browser\'s session: use "Sign out" at the top, or "Sign out everywhere".', kind: 'error' });
    if (!/^[0-9a-f]{64}$/.test(id) || !(await revokeOwnSession(orm, session.userId, id))) return show(ctx, session, 404, { text: 'That session has already ended.', kind: 'error' });
    await recordPortalAccess(orm, { action: 'portal.session_revoke', ...access(session, ctx), after: { session: id.slice(0, 12) } });
    see(ctx, `${ACCOUNT_PATH}?done=session`);
  });

  router.post(`${ACCOUNT_PATH}/sessions/revoke-all`, async (ctx) => {
    const session = await kit.postedSession(ctx);
    if (!session) return;
    const ended = await revokeUserSessions(orm, session.userId);
    await recordPortalAccess(orm, { action: 'portal.sign_out_everywhere', ...access(session, ctx), after: { sessions_ended: ended.length } });
    clearSessionCookie(ctx, webUrl);
    see(ctx, '/sign-in');
  });
}
