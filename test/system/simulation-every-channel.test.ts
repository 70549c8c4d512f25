/**
 * Issue 45: the simulator with every channel live (docs/simulation.md, "Every channel live"). The
 * engine's live side has both partners: the fake MoMo partner (mobile money) and the fake aggregator
 * (bank and card), the worker's rail routing each reference to its partner.
 *
 * 1. A hand-made plan through every live channel and a refund of each (a MoMo payer `0101`, so its
 *    refund is refused later; a card with an OTP challenge, one with 3-D Secure, one expired; a bank
 *    transfer paid and one never paid; a bank payout): every invariant holds after every step, and
 *    the aggregator's books hold a card charge, a bank transfer, a transfer and a refund.
 * 2. The partner-books invariant over both partners' books: our bank charge submitted to the MoMo
 *    partner as well (a payment at the partner it was not sent to), and paid a second time at the
 *    aggregator under a reference we do not keep: both named.
 */
import { randomUUID } from 'node:crypto';
import { partnerBooksAgree } from '../../src/simulation/invariants';
import { ALL_INVARIANTS } from '../../src/simulation/invariants';
import { startEngine } from '../../src/simulation/engine';
import { runPlan } from '../../src/simulation/run';
import { runSession } from '../../src/simulation/session';
import { MomoPartnerRail } from '../../src/rail/momo-adapter';
import { AggregatorRail } from '../../src/rail/aggregator/adapter';
import type { Plan, Step } from '../../src/simulation/types';

jest.setTimeout(240_000);

const NETWORK = '3f9c2b1e-8a4d-4c6e-9b7a-1d2e3f4a5b01';
const merchant = [{ kind: 'merchant' as const, index: 0 }];
let request = 0;
let charges = 0;
let refunds = 0;
const key = () => randomUUID();

function liveCharge(n: number, channel: 'mobile_money' | 'bank' | 'card', identifier: string, amount: number, card: Record<string, string | boolean> = {}): Step {
  return { n, kind: 'live_charge', refs: merchant, params: { amount, currency: 'GHS', channel, momo_network_id: channel === 'mobile_money' ? NETWORK : null, identifier, outcome: null, idempotency_key: key(), ...card, ref_index: charges++, request_index: request++ } };
}
function refund(n: number, charge: number, amount: number | null): Step {
  return { n, kind: 'refund', refs: [{ kind: 'charge', index: charge }], params: { amount, reason: 'requested_by_customer', idempotency_key: key(), ref_index: refunds++, request_index: request++ } };
}

const EVERY_CHANNEL: Plan = {
  seed: 4545,
  steps: [
    { n: 0, kind: 'create_merchant', params: { name: 'Sim 4545 #1', review_threshold: 100_000, verified: true, settlement_account: '001234567890', ref_index: 0 } },
    liveCharge(1, 'mobile_money', '233241230101', 50_000),
    liveCharge(2, 'bank', 'GH0012345678', 40_000),
    liveCharge(3, 'card', 'ama@example.com', 30_000, { card_ending: '4242', card_brand: 'visa', card_action: 'pay' }),
    liveCharge(4, 'card', 'kofi@example.com', 12_000, { card_ending: '0020', card_brand: 'mastercard', card_action: 'pay', otp_right: true }),
    liveCharge(5, 'card', 'esi@example.com', 9_000, { card_ending: '0021', card_brand: 'visa', card_action: 'pay', three_ds: 'authenticate' }),
    liveCharge(6, 'card', 'yaw@example.com', 8_000, { card_ending: '0023', card_brand: 'visa', card_action: 'pay' }),
    liveCharge(7, 'bank', 'GH0012340004', 7_000),
    { n: 8, kind: 'time_jump', params: { ms: 30_000 } },
    refund(9, 0, null),
    refund(10, 1, 10_000),
    refund(11, 2, null),
    { n: 12, kind: 'payout', refs: merchant, params: { environment: 'live', amount: 5_000, currency: 'GHS', channel: 'bank', momo_network_id: null, bank_code: 'GCB', identifier: '3004005678', idempotency_key: key(), ref_index: 0, request_index: request++ } },
    { n: 13, kind: 'time_jump', params: { ms: 60_000 } },
  ],
};

test('every live channel and a refund of each, on both partners: every invariant holds after every step', async () => {
  const started = performance.now();
  const run = await runSession(EVERY_CHANNEL);
  console.log(`simulation-every-channel: ${run.stepsRun} steps, ${run.failure ? `failed after step ${run.failure.step.n}` : 'no failure'} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  for (const outcome of run.trace) console.log(`  ${outcome.n} ${outcome.kind}: ${outcome.result} ${outcome.detail}`);
  if (run.failure) throw new Error(run.failure.violations.map((v) => `${v.invariant}:\n  ${v.lines.join('\n  ')}`).join('\n'));
  expect(run.stepsRun).toBe(EVERY_CHANNEL.steps.length);
  const detail = (n: number) => run.trace.find((o) => o.n === n)!.detail;
  // Each step reached its partner: the cards were sent (the OTP and the 3-D Secure step answered), the refunds and the payout created.
  expect(detail(3)).toMatch(/card …4242: sent/);
  expect(detail(4)).toMatch(/one-time code right: sent/);
  expect(detail(5)).toMatch(/3-D Secure authenticate: done/);
  for (const n of [9, 10, 11, 12]) expect(detail(n)).toMatch(/^200 (re|po)_/);
});

test("the partner-books invariant reads both partners' books: a payment at the partner it was not sent to, and paid twice at its own, are named", async () => {
  const engine = await startEngine({ seed: 4546 });
  try {
    const plan: Plan = { seed: 4546, steps: [EVERY_CHANNEL.steps[0]!, { ...EVERY_CHANNEL.steps[2]!, n: 1, params: { ...EVERY_CHANNEL.steps[2]!.params, ref_index: 0, request_index: 0 } }, { n: 2, kind: 'time_jump', params: { ms: 30_000 } }] };
    const run = await runPlan(engine, plan, ALL_INVARIANTS);
    expect(run.failure).toBeNull();
    const chargeId = run.trace[1]!.created![0]!.id;
    expect(await partnerBooksAgree.check(engine)).toEqual([]);
    // The aggregator paid it: a transaction of it there, none at the MoMo partner.
    expect(engine.fakeAggregator.transactions('collection').filter((t) => t.externalId === chargeId && t.status === 'successful')).toHaveLength(1);

    // Paid again at the aggregator under a reference we do not keep (a mobile-money charge there, approved).
    const aggregator = new AggregatorRail(engine.fakeAggregator.config({ timeoutMs: 1_000 }));
    const momo = new MomoPartnerRail(engine.fakePartner.partnerConfig({ callbackBaseUrl: engine.urls.live, callbackSecret: 'not-the-engines-secret-0123456789abcdef', timeoutMs: 1_000 }));
    try {
      const again = randomUUID();
      await aggregator.submit('collection', { referenceId: again, amount: 40_000, currency: 'GHS', externalId: chargeId, party: { partyIdType: 'MSISDN', partyId: '233241239876' }, message: 'again' });
      // And sent to the MoMo partner too, which it never was.
      const wrong = randomUUID();
      await momo.submit('collection', { referenceId: wrong, amount: 40_000, currency: 'GHS', externalId: chargeId, party: { partyIdType: 'MSISDN', partyId: '233241239875' }, message: 'wrong partner' });
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const lines = await partnerBooksAgree.check(engine);
      console.log(lines.join('\n'));
      expect(lines.some((l) => l.includes(chargeId) && l.includes('the momo partner holds it too') && l.includes(wrong))).toBe(true);
      expect(lines.some((l) => l.includes(chargeId) && l.includes('the partner paid it 2 times') && l.includes(again) && / at aggregator:/.test(l))).toBe(true);
      expect(lines.some((l) => l.includes(chargeId) && l.includes(`under reference ${again}`) && l.includes('that we do not keep'))).toBe(true);
    } finally {
      await aggregator.close();
      await momo.close();
    }
  } finally {
    await engine.close();
  }
});
