import { chargeExpiry, chargeExpiryProblem, rfc3339Ms } from '../../src/domain/charge-lifetime';

const created = new Date('2026-11-30T23:59:00.000Z');

test('the default is 15 minutes after the create; a requested instant comes back in UTC', () => {
  expect(chargeExpiry(created, undefined)).toBe('2026-12-01T00:14:00.000Z');
  expect(chargeExpiry(created, '2026-12-01T12:00:00+02:00')).toBe('2026-12-01T10:00:00.000Z');
  expect(chargeExpiry(created, '2026-12-01t10:00:00z')).toBe('2026-12-01T10:00:00.000Z');
});

test('a leap second (valid RFC 3339 that Date.parse refuses) is the instant after :59, not an error', () => {
  expect(Date.parse('2026-12-31T23:59:60Z')).toBeNaN();
  expect(rfc3339Ms('2026-12-31T23:59:60Z')).toBe(Date.parse('2027-01-01T00:00:00Z'));
  expect(rfc3339Ms('2026-12-01T01:59:60.5+02:00')).toBe(Date.parse('2026-11-30T23:59:59.5Z') + 1000);
  expect(chargeExpiry(created, '2026-12-01T10:59:60Z')).toBe('2026-12-01T11:00:00.000Z');
});

test('the bounds: 15 minutes to 24 hours after the create, a minute either way', () => {
  const at = (ms: number) => new Date(created.getTime() + ms).toISOString();
  expect(chargeExpiryProblem(created.toISOString(), at(14 * 60_000))).toBeUndefined();
  expect(chargeExpiryProblem(created.toISOString(), at(24 * 3_600_000 + 60_000))).toBeUndefined();
  expect(chargeExpiryProblem(created.toISOString(), at(14 * 60_000 - 1))).toContain('too soon');
  expect(chargeExpiryProblem(created.toISOString(), at(24 * 3_600_000 + 60_001))).toContain('too late');
});
