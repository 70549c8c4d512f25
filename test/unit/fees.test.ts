import { computeFee, merchantAmount } from '../../src/domain/fees';

describe('fees', () => {
  test.each([
    [15000, 'mobile_money', 225, 34],
    [15000, 'card', 435, 65],
    [15000, 'bank', 150, 23],
    [1, 'mobile_money', 0, 0],
    [100, 'card', 3, 0],
  ] as const)('%d via %s: platform %d, tax %d', (amount, channel, platform, tax) => {
    const fee = computeFee(amount, channel);
    expect(fee).toEqual({ platform, tax, bearer: 'merchant' });
    expect(merchantAmount(amount, fee)).toBe(amount - platform - tax);
  });

  test('is exact at the largest accepted amount', () => {
    const amount = Number.MAX_SAFE_INTEGER;
    const fee = computeFee(amount, 'card');
    const expectedPlatform = (BigInt(amount) * 290n + 5000n) / 10000n;
    expect(BigInt(fee.platform)).toBe(expectedPlatform);
    expect(Number.isSafeInteger(merchantAmount(amount, fee))).toBe(true);
    expect(merchantAmount(amount, fee)).toBeGreaterThan(0);
  });
});
