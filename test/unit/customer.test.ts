import { maskIdentifier } from '../../src/domain/customer';

test.each([
  ['233241234567', '233*****4567'],
  ['4111 1111 1111 1111', '411*********1111'],
  ['0241234', '***1234'],
  ['1234', '****'],
  ['abc', '***'],
])('masks %s as %s', (input, masked) => {
  expect(maskIdentifier(input)).toBe(masked);
});
