import type Router from '@koa/router';
import type { Context, Next } from 'koa';
import type { CheckoutView } from '../../persistence/charges/checkout-token-store';
import { findCardSubmission, type CardSubmission } from '../../persistence/charges/card-submission-store';
import type { CardInput } from '../../rail/aggregator/card';
import { cardDigits } from '../../rail/aggregator/card-input';
import { cardReturned, sendCardOtp, sendLiveCard } from '../../services/live-card';
import type { ServiceDeps } from '../../services/context';
import { formFields } from '../form-body';
import { cardFormPage, cardResultPage, otpPage, processingPage, redirectChallengePage } from './card-pages';
import { gonePage, unavailablePage } from './pages';
import { guarded, html } from './respond';

type Lookup = (token: string) => Promise<CheckoutView | null>;

/**
 * A live card charge on hosted checkout (issue 45; docs/checkout.md, "Live cards"). The page is the
 * only thing that sees the card: `POST /checkout/{token}` checks it and sends it to the aggregator
 * (src/services/live-card.ts), then every step answers 303 to `GET /checkout/{token}`, which shows
 * where the charge is: the card form (nothing sent yet), the aggregator's one-time code form
 * (`POST /checkout/{token}/otp`) or its 3-D Secure link (it sends the customer back to
 * `GET /checkout/{token}/return`), a page that refreshes while the aggregator decides, and the
 * outcome. Other charges fall through to the sandbox checkout's routes.
 */
export function liveCardRoutes(router: Router, deps: ServiceDeps, lookup: Lookup): void {
  const isLiveCard = (view: CheckoutView | null): view is CheckoutView => view !== null && view.environment === 'live' && view.channel === 'card';
  const here = (token: string) => `/checkout/${token}`;

  /** Runs `handler` for a live card charge's token; anything else goes on to the next route. */
  const forLiveCard = (handler: (ctx: Context, token: string, view: CheckoutView) => Promise<void>) => async (ctx: Context & { params: Record<string, string> }, next: Next) => {
    const view = await lookup(ctx.params.token ?? '');
    if (!isLiveCard(view)) return next();
    await guarded(deps, (c, token) => handler(c, token, view))(ctx);
  };

  router.get('/:token', forLiveCard(async (ctx, token, view) => {
    const submission = await findCardSubmission(deps.orm, view.chargeId);
    if (submission?.state !== 'submitted') {
      const gone = view.chargeStatus !== 'awaiting_action' ? 'closed' : view.expired || submission?.state === 'closed' ? 'expired' : null;
      if (gone) return html(ctx, 410, gonePage(gone));
      return html(ctx, 200, cardFormPage(view, here(token)));
    }
    html(ctx, 200, statePage(view, token, submission, ctx.query.returned !== undefined));
  }));

  router.post('/:token', forLiveCard(async (ctx, token, view) => {
    const fields = await formFields(ctx);
    const card = cardOf(fields?.get('number'), fields?.get('expiry'), fields?.get('cvc'));
    if (!card) return html(ctx, 400, cardFormPage(view, here(token), 'Enter the card number, its expiry as MM/YY and its security code.'));
    if (view.chargeStatus !== 'awaiting_action' || view.expired) return seeState(ctx, token);
    const sent = await sendLiveCard(deps, { chargeId: view.chargeId, amount: view.amount, currency: view.currency, merchantName: view.merchantName }, `${deps.webUrl ?? ''}${here(token)}/return`, card);
    if (sent.kind === 'invalid') return html(ctx, 400, cardFormPage(view, here(token), sent.problem));
    if (sent.kind === 'unavailable') return html(ctx, 503, unavailablePage());
    seeState(ctx, token);
  }));

  router.post('/:token/otp', forLiveCard(async (ctx, token, view) => {
    const otp = (await formFields(ctx))?.get('otp')?.trim() ?? '';
    const sent = await sendCardOtp(deps, view.chargeId, otp);
    if (sent.kind === 'invalid') {
      const submission = await findCardSubmission(deps.orm, view.chargeId);
      return html(ctx, 400, otpPage(view, `${here(token)}/otp`, submission?.reason ?? null, 'Enter the code your card issuer sent you (digits only).'));
    }
    if (sent.kind === 'unavailable') return html(ctx, 503, unavailablePage());
    seeState(ctx, token);
  }));

  router.get('/:token/return', forLiveCard(async (ctx, token, view) => {
    await cardReturned(deps, view.chargeId);
    ctx.status = 303;
    ctx.redirect(`${here(token)}?returned=1`);
  }));
}

/** Where a submitted card charge is, as a page. */
function statePage(view: CheckoutView, token: string, submission: CardSubmission, returned: boolean): string {
  const card = { brand: submission.brand, last4: submission.last4 };
  if (view.chargeStatus === 'succeeded' || view.chargeStatus === 'failed' || view.chargeStatus === 'expired') return cardResultPage(view, view.chargeStatus, card);
  if (view.chargeStatus !== 'awaiting_action') return gonePage('closed');
  if (submission.outcome === 'refused') return cardResultPage(view, 'failed', card);
  if (submission.challenge === 'otp' && !submission.otpSent) return otpPage(view, `/checkout/${token}/otp`, null);
  if (submission.challenge === 'redirect' && submission.challengeUrl && !returned) return redirectChallengePage(view, submission.challengeUrl);
  return processingPage(view);
}

function seeState(ctx: Context, token: string): void {
  ctx.status = 303;
  ctx.redirect(`/checkout/${token}`);
}

/** The form's card, or null when a field is missing or not in its shape (the number's own checks come after: src/rail/aggregator/card.ts). */
function cardOf(number: string | null | undefined, expiry: string | null | undefined, cvc: string | null | undefined): CardInput | null {
  const digits = number === null || number === undefined ? undefined : cardDigits(number);
  const exp = /^\s*([0-9]{1,2})\s*\/\s*([0-9]{2}|[0-9]{4})\s*$/.exec(expiry ?? '');
  const code = cvc?.trim();
  if (!digits || !/^[0-9]{1,19}$/.test(digits) || !exp || !code) return null;
  const year = Number(exp[2].length === 2 ? `20${exp[2]}` : exp[2]);
  return { number: digits, expiryMonth: Number(exp[1]), expiryYear: year, cvv: code };
}
