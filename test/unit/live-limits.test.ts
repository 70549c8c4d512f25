import { parseCurrencyLimits } from '../../src/domain/live-limits';

describe('--live-max-amount / --live-daily-limit: limits per currency', () => {
  test('CUR:N, or several separated by commas; codes upper-cased', () => {
    expect(parseCurrencyLimits('GHS:500000', '--live-max-amount')).toEqual({ amounts: { GHS: 500_000 } });
    expect(parseCurrencyLimits('ghs:500000, KES:2000000', '--live-max-amount')).toEqual({ amounts: { GHS: 500_000, KES: 2_000_000 } });
  });

  test('a bare N names no currency: refused, saying how to write it', () => {
    expect(parseCurrencyLimits('500000', '--live-max-amount')).toEqual({ error: expect.stringMatching(/^--live-max-amount needs a currency: limits are kept per currency .* --live-max-amount GHS:500000$/) });
  });

  test.each(['GHS:0', 'GHS:-1', 'GHS:1.5', 'GHS:', ':100', 'GH:100', 'GHSS:100', 'GHS:99999999999999999', 'GHS 100', '', 'GHS:100,', '0'])('%j is refused', (text) => {
    expect(parseCurrencyLimits(text, '--live-daily-limit')).toEqual({ error: expect.stringContaining('--live-daily-limit') });
  });

  test('a currency named twice is refused', () => {
    expect(parseCurrencyLimits('GHS:1,ghs:2', '--live-daily-limit')).toEqual({ error: '--live-daily-limit names GHS twice' });
  });
});
