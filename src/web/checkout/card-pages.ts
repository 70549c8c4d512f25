import html from 'escape-html-template-tag';
import type { CheckoutView } from '../../persistence/charges/checkout-token-store';
import { page, summary, type Html } from './pages';

/**
 * A live card charge's hosted pages (issue 45; docs/checkout.md, "Live cards"): the card form, the
 * aggregator's challenge (a one-time code, or its 3-D Secure page), then the charge's state. Built
 * with a tagged template that escapes every value it is given (escape-html-template-tag): nothing
 * from the database or the aggregator reaches the page unescaped. The card form never shows back
 * what the customer typed: a card that cannot be sent is typed again.
 */

const title = (view: CheckoutView) => `Card payment to ${view.merchantName}`;
const layout = (view: CheckoutView, heading: string, body: Html, refreshSeconds?: number) =>
  page(title(view), html`<h1>${heading}</h1>
${summary(view)}
${body}`, { testMode: false, ...(refreshSeconds ? { refreshSeconds } : {}) });

const BRANDS: Record<string, string> = { visa: 'Visa', mastercard: 'Mastercard', amex: 'American Express', 'american-express': 'American Express', verve: 'Verve', discover: 'Discover', jcb: 'JCB' };
const brandName = (brand: string | null) => (brand ? (BRANDS[brand] ?? brand.charAt(0).toUpperCase() + brand.slice(1)) : 'card');

/** The card form: number, expiry, security code; `problem` says why the last one could not be sent. */
export function cardFormPage(view: CheckoutView, actionPath: string, problem?: string): string {
  return page(
    title(view),
    html`<h1>Card payment</h1>
${summary(view)}
${problem ? html`<p class="problem" id="problem" role="alert">${problem}</p>` : ''}
<form method="post" action="${actionPath}" autocomplete="on">
<label for="number">Card number</label>
<input id="number" name="number" type="text" inputmode="numeric" autocomplete="cc-number" maxlength="23" required>
<label for="expiry">Expiry (MM/YY)</label>
<input id="expiry" name="expiry" type="text" inputmode="numeric" autocomplete="cc-exp" maxlength="7" placeholder="MM/YY" required>
<label for="cvc">Security code</label>
<input id="cvc" name="cvc" type="password" inputmode="numeric" autocomplete="cc-csc" maxlength="4" required>
<button type="submit" id="pay">Pay</button>
</form>
<p class="note">Your card goes straight to the payment processor; ${view.merchantName} never sees its number.</p>`,
    { testMode: false },
  );
}

/** The aggregator asks for a one-time code (sent by the card's issuer). */
export function otpPage(view: CheckoutView, actionPath: string, prompt: string | null, problem?: string): string {
  return layout(
    view,
    'Verify it’s you',
    html`<p id="prompt">${prompt ?? 'Your card issuer sent you a one-time code.'}</p>
${problem ? html`<p class="problem" id="problem" role="alert">${problem}</p>` : ''}
<form method="post" action="${actionPath}">
<label for="otp">One-time code</label>
<input id="otp" name="otp" type="text" inputmode="numeric" autocomplete="one-time-code" maxlength="8" required>
<button type="submit" id="verify">Verify and pay</button>
</form>`,
  );
}

/** The aggregator's 3-D Secure page: the customer goes there and comes back to this page. */
export function redirectChallengePage(view: CheckoutView, url: string): string {
  return layout(
    view,
    'Verify it’s you',
    html`<p>Your card issuer wants to check it is you. You will come back here afterwards.</p>
<p><a class="button" id="continue" href="${url}">Continue to your card issuer</a></p>`,
  );
}

/** Sent, no final answer yet: the page refreshes itself (no script: the CSP stays strict). */
export function processingPage(view: CheckoutView): string {
  return layout(view, 'Processing your payment', html`<p id="processing">Your card payment is being processed. This page refreshes by itself; please do not pay again.</p>`, 3);
}

export type CardResult = 'succeeded' | 'failed' | 'expired';

/** The charge's end, as the aggregator said it. */
export function cardResultPage(view: CheckoutView, result: CardResult, card: { brand: string | null; last4: string | null }): string {
  const which = card.last4 ? `${brandName(card.brand)} ending ${card.last4}` : 'your card';
  const [heading, text] =
    result === 'succeeded'
      ? ['Payment approved', html`Your payment to ${view.merchantName} with ${which} is approved. You can close this window.`]
      : result === 'expired'
        ? ['Payment not completed', html`The payment to ${view.merchantName} was not completed in time. Nothing was charged to ${which}. Return to the merchant to try again.`]
        : ['Payment declined', html`The payment to ${view.merchantName} with ${which} was declined. Nothing was charged. Return to the merchant to try again.`];
  return layout(view, heading, html`<p id="result">${text}</p>`);
}
