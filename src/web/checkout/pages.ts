import html, { type HtmlSafeString } from 'escape-html-template-tag';
import { SANDBOX_CHALLENGE_CODE } from '../../domain/hosted-checkout';
import { formatIsoAmount } from '../../domain/money-format';
import type { CheckoutView } from '../../persistence/charges/checkout-token-store';
import type { PaymentInstructions } from '../../rail/partner-rail';

/**
 * The hosted checkout pages (docs/checkout.md): server-rendered HTML, no script, one stylesheet
 * from 'self' (the web port's CSP stays strict). Escaped by construction: every page is built with
 * a tagged template (escape-html-template-tag) that escapes each value it is given; only fragments
 * built the same way go in unescaped.
 */

export type Html = HtmlSafeString;

export function page(title: string, body: Html, options: { testMode?: boolean; refreshSeconds?: number } = {}): string {
  const testMode = options.testMode ?? true;
  const refresh = options.refreshSeconds ? html`\n<meta http-equiv="refresh" content="${options.refreshSeconds}">` : '';
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">${refresh}
<title>${title}</title>
<link rel="stylesheet" href="/checkout/assets/checkout.css">
<link rel="icon" href="/checkout/assets/icon.svg" type="image/svg+xml">
</head>
<body>
${testMode ? html`<div class="test-mode" role="note">TEST MODE: sandbox checkout, no real money moves</div>\n` : ''}<main>
${body}
</main>
</body>
</html>
`.toString();
}

export function summary(view: CheckoutView): Html {
  return html`<dl class="summary">
<dt>Merchant</dt><dd id="merchant">${view.merchantName}</dd>
<dt>Amount</dt><dd id="amount">${formatIsoAmount(view.amount, view.currency)}</dd>
</dl>`;
}

const channelTitle = (view: CheckoutView) => (view.channel === 'card' ? 'Card payment' : 'Bank payment');

/** The first page: what is paid, to whom; approve or decline. */
export function checkoutPage(view: CheckoutView, actionPath: string): string {
  const hint = view.channel === 'card' ? html`<p>Approving takes you to your card issuer’s check (3-D Secure).</p>` : '';
  return page(
    `${channelTitle(view)} to ${view.merchantName}`,
    html`<h1>${channelTitle(view)}</h1>
${summary(view)}
${hint}
<form method="post" action="${actionPath}">
<button type="submit" name="decision" value="approve" id="approve">Approve payment</button>
<button type="submit" name="decision" value="decline" id="decline" class="secondary">Decline</button>
</form>`,
  );
}

/** The card's challenge step, modelled on 3-D Secure: a one-time code (the sandbox shows it). */
export function challengePage(view: CheckoutView, actionPath: string): string {
  return page(
    `Verify your card payment to ${view.merchantName}`,
    html`<h1>Verify it’s you</h1>
${summary(view)}
<p>Your card issuer sent a one-time code. <strong>Sandbox: enter ${SANDBOX_CHALLENGE_CODE}.</strong> A wrong code declines the payment.</p>
<form method="post" action="${actionPath}">
<label for="code">One-time code</label>
<input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" maxlength="6" pattern="[0-9]{6}" required>
<button type="submit" id="verify">Verify and pay</button>
</form>`,
  );
}

export function decidedPage(view: CheckoutView, decision: 'approved' | 'declined'): string {
  const [title, text] =
    decision === 'approved'
      ? ['Payment approved', `Your payment to ${view.merchantName} is approved. You can close this window.`]
      : ['Payment declined', `You declined the payment to ${view.merchantName}. Nothing was charged. You can close this window.`];
  return page(title, html`<h1>${title}</h1>\n${summary(view)}\n<p id="result">${text}</p>`);
}

/**
 * A live bank charge's page (issue 45): the account the partner gave to pay into, until when, and
 * what to pay; no decision (the bank transfer arriving at the partner ends the charge). While the
 * partner has not answered yet, a short page that refreshes itself (no script: the CSP stays strict).
 */
export function bankTransferPage(view: CheckoutView, instructions: PaymentInstructions | null): string {
  const title = `Bank transfer to ${view.merchantName}`;
  if (!instructions) {
    return page(title, html`<h1>Bank transfer</h1>\n${summary(view)}\n<p id="preparing">Your account details are being prepared. This page refreshes by itself.</p>`, { testMode: false, refreshSeconds: 3 });
  }
  return page(
    title,
    html`<h1>Bank transfer</h1>
${summary(view)}
<p>Transfer exactly this amount to the account below before it expires. The payment completes when the transfer arrives; you can close this window once it is sent.</p>
<dl class="summary" id="instructions">
<dt>Bank</dt><dd id="bank-name">${instructions.bankName}</dd>
<dt>Account number</dt><dd id="account-number">${instructions.accountNumber}</dd>
${instructions.accountName ? html`<dt>Account name</dt><dd id="account-name">${instructions.accountName}</dd>\n` : ''}<dt>Amount to send</dt><dd id="transfer-amount">${formatIsoAmount(instructions.amount, instructions.currency)}</dd>
<dt>Pay before</dt><dd id="expires-at"><time datetime="${instructions.expiresAt}">${instructions.expiresAt.replace('T', ' ').slice(0, 16)} UTC</time></dd>
</dl>`,
    { testMode: false },
  );
}

export type GoneReason = 'unknown' | 'used' | 'expired' | 'closed';

/** A link that cannot decide anything (any more): says why; nothing changed. */
export function gonePage(reason: GoneReason): string {
  const [title, text] = {
    unknown: ['Checkout link not found', 'This checkout link is not valid. Check that you opened the whole link the merchant gave you.'],
    used: ['Checkout link already used', 'This checkout link has already been used, and it works only once. Nothing has changed: your earlier answer stands. Return to the merchant for the payment’s status.'],
    expired: ['Checkout link expired', 'This checkout link has expired. Nothing has been charged. Return to the merchant to start a new payment.'],
    closed: ['Payment no longer waiting', 'This payment is no longer waiting for your approval. Nothing has changed. Return to the merchant for its status.'],
  }[reason];
  return page(title, html`<h1>${title}</h1>\n<p id="reason">${text}</p>`);
}

export function unavailablePage(): string {
  return page(
    'Please try again',
    html`<h1>We could not record your answer</h1>\n<p id="reason">Nothing has changed. Please go back and try again in a moment; the link still works until the payment expires.</p>`,
  );
}

/** The pages' icon (else the browser asks for /favicon.ico, which nothing serves). */
export const CHECKOUT_ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#0b5fbd"/></svg>`;

export const CHECKOUT_CSS = `body{font-family:system-ui,sans-serif;margin:0;color:#1a1a1a;background:#f6f7f9}
.test-mode{background:#8a4b00;color:#fff;text-align:center;padding:.4rem;font-weight:600}
main{max-width:28rem;margin:2rem auto;background:#fff;padding:1.5rem;border-radius:8px;box-shadow:0 1px 3px rgba(0,0,0,.15)}
h1{font-size:1.4rem;margin-top:0}
.summary{display:grid;grid-template-columns:auto 1fr;gap:.4rem 1rem}
.summary dt{font-weight:600}.summary dd{margin:0}
label{display:block;font-weight:600;margin:.8rem 0 .3rem}
input{font-size:1.1rem;padding:.4rem;width:8rem}
button{font-size:1rem;padding:.6rem 1rem;margin:1rem .5rem 0 0;border-radius:4px;border:1px solid #0b4f9c;background:#0b5fbd;color:#fff;cursor:pointer}
button.secondary{background:#fff;color:#0b4f9c}
#number{width:100%;max-width:16rem}
.problem{color:#a40000;font-weight:600}
.note{color:#555;font-size:.9rem}
a.button{display:inline-block;font-size:1rem;padding:.6rem 1rem;border-radius:4px;background:#0b5fbd;color:#fff;text-decoration:none}
`;
