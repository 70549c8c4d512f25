import fs from 'node:fs';
import path from 'node:path';
import { CURRENCY_EXPONENTS, formatMomoAmount, parseMomoAmount } from '../../src/rail/momo-amount';
import { RailRequestInvalid } from '../../src/rail/rail-errors';

describe('amounts on the partner wire', () => {
  test.each([
    [15_000, 'GHS', '150.00'],
    [1, 'GHS', '0.01'],
    [10, 'GHS', '0.10'],
    [100, 'KES', '1.00'],
    [123_456_789, 'NGN', '1234567.89'],
    [Number.MAX_SAFE_INTEGER, 'USD', '90071992547409.91'],
    [5_000, 'UGX', '5000'],
    [1, 'XOF', '1'],
    [250, 'EUR', '2.50'],
  ])('%d minor units of %s is "%s", and back', (minor, currency, text) => {
    expect(formatMomoAmount(minor, currency)).toBe(text);
    expect(parseMomoAmount(text, currency)).toBe(minor);
  });

  test('no amount that is not a positive whole number, no currency without a known exponent', () => {
    for (const bad of [0, -1, 1.5, NaN, Infinity, Number.MAX_SAFE_INTEGER + 1]) {
      expect(() => formatMomoAmount(bad, 'GHS')).toThrow(RailRequestInvalid);
    }
    expect(() => formatMomoAmount(100, 'ABC')).toThrow(/no known minor-unit exponent for currency "ABC"/);
    expect(() => formatMomoAmount(100, 'toString')).toThrow(RailRequestInvalid);
    const error = (() => {
      try {
        formatMomoAmount(0, 'GHS');
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(RailRequestInvalid);
    expect(error).toMatchObject({ name: 'RailRequestInvalid', retryable: false });
  });

  test('parsing reads the partner\'s forms and refuses more decimals than the currency has', () => {
    expect(parseMomoAmount('150', 'GHS')).toBe(15_000);
    expect(parseMomoAmount('150.5', 'GHS')).toBe(15_050);
    expect(parseMomoAmount('150.500', 'GHS')).toBe(15_050);
    expect(parseMomoAmount('5000.0', 'UGX')).toBe(5_000);
    expect(parseMomoAmount('150.001', 'GHS')).toBeUndefined();
    expect(parseMomoAmount('5000.5', 'UGX')).toBeUndefined();
    expect(parseMomoAmount('-1', 'GHS')).toBeUndefined();
    expect(parseMomoAmount('1e3', 'GHS')).toBeUndefined();
    expect(parseMomoAmount('150.00', 'ABC')).toBeUndefined();
  });

  test('the exponents are those of the seeded currencies reference list (plus EUR, the MoMo sandbox currency)', () => {
    const migration = fs.readFileSync(path.resolve(__dirname, '../../migrations/Migration20261122000002_reference_data.ts'), 'utf8');
    const block = /insert into currencies \(code, name, minor_units\) values([\s\S]*?)`/.exec(migration)?.[1] ?? '';
    const seeded = Object.fromEntries([...block.matchAll(/\('([A-Z]{3})','[^']*',(\d+)\)/g)].map((m) => [m[1], Number(m[2])]));
    expect(Object.keys(seeded).length).toBeGreaterThan(5);
    expect(CURRENCY_EXPONENTS).toEqual({ ...seeded, EUR: 2 });
  });
});
