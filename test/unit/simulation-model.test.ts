/**
 * The reference model's own rules (src/simulation/model/): the published prices and the sandbox
 * outcomes, written from the documents. Against the engine's own fee code only as a cross-check on
 * amounts the documents give by example: the model is meant to disagree with a wrong engine.
 */
import { computeFee } from '../../src/domain/fees';
import { expectedPhase, MODEL_SLACK_MS, sandboxEnd } from '../../src/simulation/model/outcomes';
import { chargeFee, payoutFee } from '../../src/simulation/model/rates';

test('charge fees: 1.5 % mobile money, 1.0 % bank, 2.9 % card, tax 15 % of the fee, each rounded half up', () => {
  expect(chargeFee(10_000, 'card')).toEqual({ platform: 290, tax: 44 }); // 43.5 → 44
  expect(chargeFee(10_000, 'mobile_money')).toEqual({ platform: 150, tax: 23 }); // 22.5 → 23
  expect(chargeFee(10_000, 'bank')).toEqual({ platform: 100, tax: 15 });
  expect(chargeFee(33, 'mobile_money')).toEqual({ platform: 0, tax: 0 }); // 0.495 → 0
  expect(chargeFee(34, 'mobile_money')).toEqual({ platform: 1, tax: 0 }); // 0.51 → 1, 0.15 → 0
  expect(chargeFee(100, 'crypto')).toBeUndefined();
  // The engine agrees on a spread of amounts (a model that merely restated the engine could not fail this; it could only agree).
  for (const amount of [1, 99, 100, 12_345, 40_099, 9_007_199_254_740_991]) {
    for (const channel of ['mobile_money', 'bank', 'card'] as const) {
      const engine = computeFee(amount, channel);
      expect(chargeFee(amount, channel)).toEqual({ platform: engine.platform, tax: engine.tax });
    }
  }
});

test('payout fees: 1.00 % mobile money, 0.50 % bank with a 100 minimum, tax 15 % of the fee', () => {
  expect(payoutFee(10_000, 'mobile_money')).toEqual({ platform: 100, tax: 15 });
  expect(payoutFee(10_000, 'bank')).toEqual({ platform: 100, tax: 15 }); // 50 → the 100 minimum
  expect(payoutFee(100_000, 'bank')).toEqual({ platform: 500, tax: 75 });
  expect(payoutFee(100, 'card')).toBeUndefined();
});

test('sandbox outcomes: success after three seconds, pending fails with timeout at ten minutes, a failure class at once, indeterminate unmodelled', () => {
  expect(sandboxEnd(undefined)).toEqual({ status: 'succeeded', failureClass: null, afterMs: 3_000 });
  expect(sandboxEnd('succeed')).toEqual({ status: 'succeeded', failureClass: null, afterMs: 3_000 });
  expect(sandboxEnd('no-such-outcome')).toEqual({ status: 'succeeded', failureClass: null, afterMs: 3_000 });
  expect(sandboxEnd('pending')).toEqual({ status: 'failed', failureClass: 'timeout', afterMs: 600_000 });
  expect(sandboxEnd('declined')).toEqual({ status: 'failed', failureClass: 'declined', afterMs: 0 });
  expect(sandboxEnd('indeterminate')).toBeNull();
});

test('a payment is open before its outcome is due, ended from MODEL_SLACK_MS after, and unjudged between', () => {
  const end = { status: 'succeeded' as const, failureClass: null, afterMs: 3_000 };
  expect(expectedPhase(end, 1_000, 3_999)).toBe('open');
  expect(expectedPhase(end, 1_000, 4_000)).toBe('either');
  expect(expectedPhase(end, 1_000, 4_000 + MODEL_SLACK_MS - 1)).toBe('either');
  expect(expectedPhase(end, 1_000, 4_000 + MODEL_SLACK_MS)).toBe('ended');
});
