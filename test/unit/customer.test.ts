import { maskIdentifier } from '../../src/domain/customer';

// Issue 9: identifiers are masked to the last 4 characters; a card number keeps at most its first 6
// and its last 4.

test.each([
  ['233241234567', '********4567'],
  ['+233 24 123 4567', '*********4567'],
  ['0241234', '****234'],
  ['GH12ACCOUNT99887766', '***************7766'],
  ['12345678', '****5678'],
  ['1234', '**34'],
  ['abc', '**c'],
])('mobile money / bank: %s is masked as %s (at most the last 4 shown)', (input, masked) => {
  expect(maskIdentifier(input, 'mobile_money')).toBe(masked);
  expect(maskIdentifier(input, 'bank')).toBe(masked);
  expect(maskIdentifier(input)).toBe(masked);
});

test.each([
  ['4111 1111 1111 1111', '411111******1111'],
  ['4111-1111-1111-1111', '411111******1111'],
  ['5500005555555559', '550000******5559'],
  ['378282246310005', '37828******0005'],
  ['4222222222222', '422******2222'],
  ['6011000990139424123', '601100*********4123'],
  ['4111', '**11'],
])('card: %s is masked as %s (at most the first 6 and the last 4 shown)', (input, masked) => {
  expect(maskIdentifier(input, 'card')).toBe(masked);
});

test('the rules hold for every length: never more than 4 (6 + 4 for a card) shown, at least half (six of a card) hidden', () => {
  for (let length = 1; length <= 64; length++) {
    const id = '9'.repeat(length);
    for (const channel of ['mobile_money', 'bank', 'card'] as const) {
      const masked = maskIdentifier(id, channel);
      expect(masked).toHaveLength(length);
      const shown = masked.replace(/\*/g, '').length;
      expect(shown).toBeLessThanOrEqual(channel === 'card' ? 10 : 4);
      const hidden = length - shown;
      if (channel === 'card') expect(hidden).toBeGreaterThanOrEqual(Math.min(6, Math.ceil(length / 2)));
      else expect(hidden).toBeGreaterThanOrEqual(Math.ceil(length / 2));
      if (channel !== 'card') expect(masked.slice(0, length - shown)).toBe('*'.repeat(length - shown));
    }
  }
});
