import Router from '@koa/router';
import type { Context } from 'koa';
import { SANDBOX_CHALLENGE_CODE, CHECKOUT_STATUS, type CheckoutDecision } from '../../domain/hosted-checkout';
import { findCheckout, type CheckoutView } from '../../persistence/charges/checkout-token-store';
import { decideCheckout } from '../../services/checkout-decision';
import type { ServiceDeps } from '../../services/context';
import { checkoutTokenHash, isCheckoutTokenShape } from '../../support/checkout-token';
import { formFields } from '../form-body';
import { bankTransferPage, challengePage, CHECKOUT_CSS, CHECKOUT_ICON, checkoutPage, decidedPage, gonePage, unavailablePage, type GoneReason } from './pages';
import { findInstructions } from '../../persistence/partner/payment-instructions-store';
import { liveCardRoutes } from './live-card-routes';
import { guarded, html } from './respond';

/**
 * Hosted checkout on the web port (docs/checkout.md), for the `action.url` of a sandbox card or bank
 * charge: `GET /checkout/{token}` shows the amount and the merchant with approve and decline;
 * `POST /checkout/{token}` decides (a card's approve first shows the challenge);
 * `POST /checkout/{token}/challenge` checks the card's one-time code. An unknown token is 404, a
 * used or expired one (or a charge no longer waiting) 410: a page that says so, and nothing changes.
 * The token is in the path, so nothing here logs the path; errors are logged with the request id.
 */
export function checkoutRouter(deps: ServiceDeps): Router {
  const router = new Router({ prefix: '/checkout' });

  router.get('/assets/checkout.css', (ctx) => {
    ctx.type = 'text/css; charset=utf-8';
    ctx.body = CHECKOUT_CSS;
  });

  router.get('/assets/icon.svg', (ctx) => {
    ctx.type = 'image/svg+xml';
    ctx.body = CHECKOUT_ICON;
  });

  // Issue 45: a live card charge's pages (src/web/checkout/live-card-routes.ts), before the token's
  // single-use rules: the page is the card's only way in, then shows the challenge and the outcome.
  liveCardRoutes(router, deps, lookup);

  router.get('/:token', guarded(deps, async (ctx, token) => {
    const view = await live(ctx, token);
    if (!view) return;
    // Issue 45: a live bank charge's page shows where to pay; the partner, not the page, ends it.
    if (view.environment === 'live') return html(ctx, 200, bankTransferPage(view, await findInstructions(deps.orm, view.chargeId)));
    html(ctx, 200, checkoutPage(view, `/checkout/${token}`));
  }));

  router.post('/:token', guarded(deps, async (ctx, token) => {
    const view = await live(ctx, token);
    if (!view) return;
    if (view.environment === 'live') return html(ctx, 404, gonePage('unknown'));
    const choice = (await formFields(ctx))?.get('decision');
    if (choice === 'approve' && view.channel === 'card') return html(ctx, 200, challengePage(view, `/checkout/${token}/challenge`));
    if (choice === 'approve') return decide(ctx, view, token, 'approved');
    if (choice === 'decline') return decide(ctx, view, token, 'declined');
    html(ctx, 400, checkoutPage(view, `/checkout/${token}`));
  }));

  router.post('/:token/challenge', guarded(deps, async (ctx, token) => {
    const view = await live(ctx, token);
    if (!view) return;
    if (view.channel !== 'card' || view.environment === 'live') return html(ctx, 404, gonePage('unknown'));
    const code = (await formFields(ctx))?.get('code');
    // A wrong code declines, as a failed 3-D Secure check does.
    return decide(ctx, view, token, code === SANDBOX_CHALLENGE_CODE ? 'approved' : 'declined');
  }));

  async function decide(ctx: Context, view: CheckoutView, token: string, decision: CheckoutDecision): Promise<void> {
    const result = await decideCheckout(deps, token, decision);
    if (result.kind === 'decided') return html(ctx, 200, decidedPage(view, decision));
    if (result.kind === 'unavailable') return html(ctx, 503, unavailablePage());
    // Lost a race with another decision, or expired meanwhile: say which, as a GET would.
    await live(ctx, token);
  }

  async function lookup(token: string): Promise<CheckoutView | null> {
    return isCheckoutTokenShape(token) ? findCheckout(deps.orm, checkoutTokenHash(token)) : null;
  }

  /** The token's checkout if it may still decide; otherwise the page that says why (and null). */
  async function live(ctx: Context, token: string): Promise<CheckoutView | null> {
    const view = await lookup(token);
    const gone: GoneReason | null = !view ? 'unknown' : view.usedAt ? 'used' : view.expired ? 'expired' : view.chargeStatus !== CHECKOUT_STATUS ? 'closed' : null;
    if (!gone) return view;
    html(ctx, gone === 'unknown' ? 404 : 410, gonePage(gone));
    return null;
  }

  return router;
}
