import { statementAmount } from '../amount';
import type { ThreeDsOutcome } from '../card-protocol';
import type { FakeAggregatorTransaction, FakeBooks } from './books';

/**
 * The fake aggregator's 3-D Secure page (docs/aggregator.md, "Cards"): where a `0021` card charge's
 * `meta.authorization.redirect` sends the customer's browser. `GET /_fake/3ds/{flw_ref}` is a plain
 * HTML page (no script) with two forms posting to the same path: `action=authenticate` (button
 * `#authenticate`: the charge becomes successful, with its webhook) and `action=cancel` (button
 * `#cancel`: failed CUSTOMER_DECLINED, with its webhook). Both answer 303 to the charge's
 * redirect_url with `status` (`successful`, `cancelled`, or `failed` for a challenge that expired)
 * and `tx_ref` added to its query. A second POST changes nothing and sends the browser back the same
 * way. No key: the customer's browser is no merchant.
 */

export interface PageReply {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  // No script, no frame; the forms post to this page, which redirects to the merchant's page.
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
};

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function page(status: number, title: string, content: string): PageReply {
  const body = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escape(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem}form{display:inline-block;margin-right:.5rem}button{font-size:1rem;padding:.5rem 1rem}</style>
</head><body><h1>${escape(title)}</h1>
${content}
</body></html>
`;
  return { status, headers: HEADERS, body };
}

/** The charge's redirect_url with `status` and `tx_ref` added to its query (kept as it is, a fragment kept last). */
export function returnUrl(redirectUrl: string, status: ThreeDsOutcome, txRef: string): string {
  const hashAt = redirectUrl.indexOf('#');
  const base = hashAt === -1 ? redirectUrl : redirectUrl.slice(0, hashAt);
  const hash = hashAt === -1 ? '' : redirectUrl.slice(hashAt);
  const joiner = !base.includes('?') ? '?' : base.endsWith('?') || base.endsWith('&') ? '' : '&';
  return `${base}${joiner}status=${encodeURIComponent(status)}&tx_ref=${encodeURIComponent(txRef)}${hash}`;
}

/** Where a charge's authentication ended, as the redirect's `status`. */
function outcomeOf(charge: FakeAggregatorTransaction): ThreeDsOutcome {
  if (charge.status === 'successful') return 'successful';
  return charge.failure?.code === 'CUSTOMER_DECLINED' ? 'cancelled' : 'failed';
}

function redirect(charge: FakeAggregatorTransaction): PageReply {
  const location = returnUrl(charge.redirectUrl ?? '', outcomeOf(charge), charge.referenceId);
  return { status: 303, headers: { location, 'cache-control': 'no-store', 'content-length': '0' }, body: '' };
}

function threeDsCharge(books: FakeBooks, flwRef: string): FakeAggregatorTransaction | undefined {
  const charge = books.chargeByFlwRef(flwRef);
  return charge?.challenge?.mode === 'redirect' && charge.redirectUrl ? charge : undefined;
}

/** `GET /_fake/3ds/{flw_ref}`: the page, while the charge awaits it. */
export function threeDsPage(books: FakeBooks, flwRef: string): PageReply {
  const charge = threeDsCharge(books, flwRef);
  if (!charge) return page(404, 'Unknown authentication', '<p>No payment awaits authentication here.</p>');
  if (charge.challenge?.state !== 'awaiting' || charge.status !== 'pending') return page(409, 'Authentication over', '<p>This payment is no longer awaiting authentication.</p>');
  const card = charge.card ? `${charge.card.brand.toUpperCase()} \u2022\u2022\u2022\u2022 ${charge.card.last4}` : 'your card';
  const action = `/_fake/3ds/${encodeURIComponent(charge.flwRef)}`;
  const form = (value: string, label: string) =>
    `<form method="post" action="${escape(action)}"><input type="hidden" name="action" value="${value}"><button type="submit" id="${value}">${label}</button></form>`;
  return page(
    200,
    'Authenticate your payment',
    `<p>Fake issuer check (3-D Secure) for <strong>${escape(statementAmount(charge.askedAmount, charge.currency))} ${escape(charge.currency)}</strong> with ${escape(card)}.</p>
<p>${escape(charge.narration)}</p>
${form('authenticate', 'Authenticate')}
${form('cancel', 'Cancel')}`,
  );
}

/** `POST /_fake/3ds/{flw_ref}` with `action=authenticate|cancel` (form-encoded): the customer's choice, then back to the merchant. */
export function threeDsSubmit(books: FakeBooks, flwRef: string, body: string): PageReply {
  const charge = threeDsCharge(books, flwRef);
  if (!charge) return page(404, 'Unknown authentication', '<p>No payment awaits authentication here.</p>');
  const action = new URLSearchParams(body).get('action');
  if (action !== 'authenticate' && action !== 'cancel') return page(400, 'Choose an action', '<p>Authenticate or cancel the payment.</p>');
  completeChallenge(books, charge, action);
  return redirect(charge);
}

/**
 * A card charge's challenge completed by the customer (the 3-D Secure page's buttons, or the fake's
 * `completeChallenge` in process): `authenticate` passes it (3-D Secure: successful now; an OTP
 * challenge: as the right OTP, successful at approveAfterMs), `cancel` fails it CUSTOMER_DECLINED.
 * False when no challenge of it awaits.
 */
export function completeChallenge(books: FakeBooks, charge: FakeAggregatorTransaction, action: 'authenticate' | 'cancel'): boolean {
  if (action === 'cancel') return books.failChallenge(charge, 'cancelled', 'CUSTOMER_DECLINED');
  return books.passChallenge(charge, charge.challenge?.mode === 'redirect' ? 'now' : 'after_approval');
}
