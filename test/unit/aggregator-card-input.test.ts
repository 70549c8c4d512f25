import { cardBrand, cardProblem } from '../../src/rail/aggregator/card';
import { CARD_PROBLEMS } from '../../src/rail/aggregator/card-input';
import { decryptCardPayload, encryptCardPayload } from '../../src/rail/aggregator/card-crypto';
import { brandOf, cardReason, summaryOf } from '../../src/rail/aggregator/card-answer';
import { reasonOf } from '../../src/rail/aggregator/errors';
import { returnUrl } from '../../src/rail/aggregator/fake/three-ds';
import { cardNumber } from './aggregator-card-support';

const NOW = new Date('2026-12-16T10:00:00Z');
const good = { number: '4242 4242 4242 4242', expiryMonth: 12, expiryYear: 2026, cvv: '123' };

describe('cardBrand: from the prefix, lower case, by card-validator', () => {
  test.each([
    ['4242424242424242', 'visa'],
    ['4242 4242 4242 4242', 'visa'],
    ['5399838383838381', 'mastercard'],
    ['2223000048400011', 'mastercard'],
    ['5061460410120223210', 'verve'],
    ['378282246310005', 'amex'],
    ['6011000990139424', 'discover'],
    ['9999999999999995', 'unknown'],
    ['', 'unknown'],
  ])('%s is %s', (number, brand) => expect(cardBrand(number)).toBe(brand));
});

describe('cardProblem: the customer\'s words, or null', () => {
  test('a good card, spaces and dashes ignored; 12 and 19 digits; the last day of its expiry month', () => {
    expect(cardProblem(good, NOW)).toBeNull();
    expect(cardProblem({ ...good, number: '4242-4242-4242-4242', cvv: '1234' }, NOW)).toBeNull();
    expect(cardProblem({ ...good, number: cardNumber('4242', '5000', 12) }, NOW)).toBeNull();
    expect(cardProblem({ ...good, number: '5061460410120223210' }, NOW)).toBeNull();
    expect(cardProblem(good, new Date('2026-12-31T23:59:59Z'))).toBeNull();
  });

  test.each([
    ['a Luhn-invalid number', { number: '4242424242424241' }, CARD_PROBLEMS.number],
    ['11 digits', { number: cardNumber('4242', '4000', 12).slice(1) }, CARD_PROBLEMS.number],
    ['20 digits', { number: `0${cardNumber('4242', '4000', 19)}0` }, CARD_PROBLEMS.number],
    ['letters', { number: '4242abcd42424242' }, CARD_PROBLEMS.number],
    ['month 13', { expiryMonth: 13 }, CARD_PROBLEMS.expiry],
    ['a two-digit year', { expiryYear: 31 }, CARD_PROBLEMS.expiry],
    ['last month', { expiryMonth: 11 }, CARD_PROBLEMS.expired],
    ['last year', { expiryYear: 2025 }, CARD_PROBLEMS.expired],
    ['a 2-digit cvv', { cvv: '12' }, CARD_PROBLEMS.cvv],
    ['a 5-digit cvv', { cvv: '12345' }, CARD_PROBLEMS.cvv],
    ['a cvv with letters', { cvv: '12a' }, CARD_PROBLEMS.cvv],
  ])('%s', (_name, change, problem) => {
    const said = cardProblem({ ...good, ...change }, NOW);
    expect(said).toBe(problem);
    expect(said).not.toMatch(/[0-9]{3}/);
  });
});

describe('the card payload\'s encryption: 3DES-ECB (PKCS#7), base64, the 24-character key', () => {
  const key = 'FLWSECK_TEST1234567890ab';

  test('a round trip; a fixed vector (node des-ede3, as Flutterwave\'s forge 3DES-ECB)', () => {
    const payload = { card_number: '4242424242424242', cvv: '123', tx_ref: 'r' };
    const client = encryptCardPayload(key, payload);
    expect(client).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);
    expect(client).not.toContain('4242');
    expect(decryptCardPayload(key, client)).toEqual(payload);
    expect(encryptCardPayload(key, { a: 1 })).toBe('cx5Z47mJpRI=');
  });

  test('another key, garbage, an empty or non-string field: undefined, never a throw', () => {
    const client = encryptCardPayload(key, { a: 1 });
    expect(decryptCardPayload('FLWSECK_TEST0000000000ab', client)).toBeUndefined();
    for (const bad of ['', 'not base64!', 'AAAA', 42, null, undefined]) expect(decryptCardPayload(key, bad)).toBeUndefined();
    expect(() => encryptCardPayload('short', {})).toThrow(/24 bytes/);
  });
});

describe('reading card answers', () => {
  test('a reason never carries digits: the table\'s code, an upper-case code of letters, else UNSPECIFIED', () => {
    expect(cardReason('INVALID_OTP', 'x').reason).toBe('INVALID_OTP');
    expect(cardReason(undefined, 'Do not honor').reason).toBe('ISSUER_DECLINED');
    expect(cardReason('NEW_CODE', 'words').reason).toBe('NEW_CODE');
    expect(cardReason('CODE_4242424242424242', 'x').reason).toBe('UNSPECIFIED');
    expect(cardReason(undefined, 'Card 4242424242424242 declined').reason).toBe('UNSPECIFIED');
  });

  test('the rail\'s reasons (statuses, submissions) mask a run of six digits or more, grouped or not', () => {
    expect(reasonOf(undefined, 'Declined 4242 4242 4242 4242 today')).toBe('DECLINED_N_TODAY');
    expect(reasonOf('4242424242424242', undefined)).toBe('N');
    expect(reasonOf(undefined, 'Refund over 150.05 GHS')).toBe('REFUND_OVER_150_05_GHS');
  });

  test('the card summary: the aggregator\'s type in our words, its last four, its token', () => {
    expect(summaryOf({ type: 'VISA', last_4digits: '4242', token: 'flw-t1nf-abc' })).toEqual({ brand: 'visa', last4: '4242', token: 'flw-t1nf-abc' });
    expect(summaryOf({ type: 'AMERICAN EXPRESS', last_4digits: '0005' })).toEqual({ brand: 'amex', last4: '0005' });
    expect(summaryOf({ type: 'MASTERCARD', last_4digits: '42' })).toBeUndefined();
    expect(brandOf('Verve')).toBe('verve');
  });
});

test('the 3-D Secure return URL: status and tx_ref added to the query as it is, a fragment kept last', () => {
  expect(returnUrl('https://m.example/r', 'successful', 't')).toBe('https://m.example/r?status=successful&tx_ref=t');
  expect(returnUrl('https://m.example/r?', 'cancelled', 't')).toBe('https://m.example/r?status=cancelled&tx_ref=t');
  expect(returnUrl('https://m.example/r?a=1&', 'failed', 't')).toBe('https://m.example/r?a=1&status=failed&tx_ref=t');
  expect(returnUrl('https://m.example/r?a=%2F#x', 'successful', 't&u')).toBe('https://m.example/r?a=%2F&status=successful&tx_ref=t%26u#x');
});
