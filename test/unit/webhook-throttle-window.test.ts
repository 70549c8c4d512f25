import { windowWaitMs } from '../../src/persistence/webhooks/webhook-throttle-store';

/** The sliding-second rule of the per-endpoint throttle (issue 49): when a late send may go. */
describe('windowWaitMs', () => {
  test('fewer than max sends in the second before: at once', () => {
    expect(windowWaitMs([], 10_000, 5)).toBe(10_000);
    expect(windowWaitMs([9_100, 9_300, 9_500, 9_700], 10_000, 5)).toBe(10_000);
    // A send exactly a second earlier is outside the second before.
    expect(windowWaitMs([9_000, 9_300, 9_500, 9_700, 9_900], 10_000, 5)).toBe(10_000);
  });

  test('max sends in the second before: until the oldest of them is a second old', () => {
    expect(windowWaitMs([9_100, 9_300, 9_500, 9_700, 9_900], 10_000, 5)).toBe(10_100);
    // Six within (a limit lowered by PATCH): two must drop out.
    expect(windowWaitMs([9_050, 9_100, 9_300, 9_500, 9_700, 9_900], 10_000, 5)).toBe(10_100);
    expect(windowWaitMs([9_900, 9_500], 10_000, 1)).toBe(10_900);
  });
});
