import type { PaymentReviewState } from '../../src/domain/payment-review';
import { paymentReviewQuery, reviewFlagSignal } from '../../workflows/payment-review-messages';
import { startPaymentReviewEnv, type PaymentReviewTestEnv } from './support/payment-review-env';
import { waitFor } from './support/wait-for';

// Issue 43 (Low): a `reviewFlag` reason skipped the plain-text rule. A signal cannot be refused (one
// sent by hand from the Temporal UI included), so the review keeps the reason as plain text on one
// line: each run of control, format or line-separator characters becomes one space.

let env: PaymentReviewTestEnv;
beforeAll(async () => {
  env = await startPaymentReviewEnv();
});
afterAll(async () => {
  await env?.close();
});

test('a reviewFlag reason with a bidi override and a line break is kept as plain text on one line; a plain one as sent', async () => {
  env.rail.partner({ kind: 'accepted' }, [{ status: 'failed', reason: 'APPROVAL_REJECTED', failureClass: 'declined' }]);
  const { handle } = await env.review('failed', 'reconciliation');
  await waitFor(async () => (await handle.query(paymentReviewQuery)).phase === 'agreed');
  await handle.signal(reviewFlagSignal, { source: 'callback', reason: 'partner said\u202eDIAP\r\nsecond line\u200b!' });
  await handle.signal(reviewFlagSignal, { source: 'callback', reason: 'a plain reason' });
  // The same reason once more (as plain text) adds nothing.
  await handle.signal(reviewFlagSignal, { source: 'callback', reason: 'partner said DIAP second line !' });
  let state: PaymentReviewState | undefined;
  await waitFor(async () => (state = await handle.query(paymentReviewQuery)).reasons.length === 3);
  expect(state!.reasons.slice(1)).toEqual([
    { source: 'callback', reason: 'partner said DIAP second line !' },
    { source: 'callback', reason: 'a plain reason' },
  ]);
  await handle.terminate('test: done');
});
