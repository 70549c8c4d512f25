import { createHmac } from 'node:crypto';
import { CALLBACK_ROUTE, callbackAnswer, callbackToken, callbackUrl, verifyCallback, type CallbackOutcome } from '../../src/rail/momo-callback';

const config = { callbackBaseUrl: 'https://pay.example.com/', callbackSecret: 'k'.repeat(40) };
const ref = '0b8a6f2e-4c1d-4e8b-9a3f-2d7c5e1b9a04';

describe('callback URLs and their verification', () => {
  test('the URL carries an HMAC-SHA256 of product:reference, base64url, under the route', () => {
    const token = createHmac('sha256', config.callbackSecret).update(`collection:${ref}`).digest('base64url');
    expect(callbackUrl(config, 'collection', ref)).toBe(`https://pay.example.com/partner/momo/callbacks/collection/${ref}?token=${token}`);
    expect(callbackToken(config.callbackSecret, 'collection', ref)).toBe(token);
    expect(callbackToken(config.callbackSecret, 'disbursement', ref)).not.toBe(token);
    expect(CALLBACK_ROUTE).toBe('/partner/momo/callbacks/:product/:referenceId');
  });

  test('a genuine callback gives its claim; a forged or malformed one is refused', () => {
    const token = callbackToken(config.callbackSecret, 'disbursement', ref);
    const body = JSON.stringify({ status: 'FAILED', reason: 'PAYEE_NOT_FOUND', externalId: 'po_1' });
    expect(verifyCallback(config, 'disbursement', ref, token, body)).toEqual({
      product: 'disbursement',
      referenceId: ref,
      claimed: { status: 'failed', reason: 'PAYEE_NOT_FOUND', failureClass: 'invalid_recipient' },
    });
    expect(verifyCallback(config, 'collection', ref, token, body)).toEqual({ refused: 'forged' });
    expect(verifyCallback(config, 'disbursement', ref.toUpperCase(), token, body)).toEqual({ refused: 'forged' });
    expect(verifyCallback(config, 'disbursement', 'not-a-uuid', token, body)).toEqual({ refused: 'forged' });
    expect(verifyCallback(config, 'disbursement', ref, undefined, body)).toEqual({ refused: 'forged' });
    expect(verifyCallback(config, 'disbursement', ref, `${token}x`, body)).toEqual({ refused: 'forged' });
    expect(verifyCallback({ callbackSecret: 'other'.repeat(8) }, 'disbursement', ref, token, body)).toEqual({ refused: 'forged' });
    expect(verifyCallback(config, 'disbursement', ref, token, '{"status":')).toEqual({ refused: 'malformed' });
  });

  test('every callback is answered 200 with an empty body; forged, malformed, late and capped ones are logged as warnings', () => {
    const outcomes: CallbackOutcome[] = ['accepted', 'unknown_reference', 'replayed', 'late', 'debounced', 'capped', 'forged', 'malformed'];
    for (const outcome of outcomes) expect(callbackAnswer(outcome)).toMatchObject({ status: 200, body: '' });
    expect(outcomes.filter((o) => callbackAnswer(o).logLevel === 'warn')).toEqual(['late', 'capped', 'forged', 'malformed']);
  });

  test('a late callback (a closed payment, a contradicting claim) is a warning that names the review, never "ignored"', () => {
    expect(callbackAnswer('late')).toMatchObject({ logLevel: 'warn', logMessage: expect.stringContaining('payment review') });
    expect(callbackAnswer('late').logMessage).not.toMatch(/ignored/);
  });
});
