/**
 * The simulation's plan (src/simulation/plan.ts): a pure function of the seed, plain JSON, every kind
 * of step in a long plan, references only to earlier creations; and the registry that resolves them.
 */
import { validateCreateCharge } from '../../src/http/schemas/create-charge';
import { validateCreatePayout } from '../../src/http/schemas/create-payout';
import { validateCreateRefund } from '../../src/http/schemas/create-refund';
import { validateDisputeEvidence } from '../../src/http/schemas/dispute-evidence';
import { validateOpenDispute } from '../../src/http/schemas/open-dispute';
import { check } from '../../src/http/validate';
import { plan } from '../../src/simulation/plan';
import { CARD_ENDINGS, HAND_WRITTEN_ONLY, STEP_WEIGHTS } from '../../src/simulation/plan-params';
import { cardNumber } from '../../src/simulation/sim-cards';
import { isCardNumber } from '../../src/rail/aggregator/card-input';
import { looksLikeCardNumber } from '../../src/services/card-identifier';
import { createRegistry } from '../../src/simulation/registry';
import { chargeBody } from '../../src/simulation/steps/charges';
import { payoutBody } from '../../src/simulation/steps/payouts';
import { disputeBody, refundBody } from '../../src/simulation/steps/refunds-disputes';
import type { Ref, StepKind } from '../../src/simulation/types';

test('the same seed gives the same plan; another seed another plan', () => {
  expect(plan(7, 300)).toEqual(plan(7, 300));
  expect(plan(7, 300).steps).not.toEqual(plan(8, 300).steps);
  expect(plan(7, 300).seed).toBe(7);
  expect(plan(7, 300).steps).toHaveLength(300);
  // A shorter plan of the same seed is its beginning.
  expect(plan(7, 300).steps.slice(0, 40)).toEqual(plan(7, 40).steps);
});

test('a plan opens with a merchant and an endpoint, and a long one has every kind of step but those of hand-written plans', () => {
  const steps = plan(11, 2000).steps;
  expect(steps[0]!.kind).toBe('create_merchant');
  expect(steps[0]!.params.verified).toBe(true);
  expect(steps[1]!.kind).toBe('create_endpoint');
  const kinds = new Set(steps.map((s) => s.kind));
  expect([...kinds].sort()).toEqual((Object.keys(STEP_WEIGHTS) as StepKind[]).filter((k) => !HAND_WRITTEN_ONLY.includes(k)).sort());
  expect(steps.map((s) => s.n)).toEqual(steps.map((_, i) => i));
});

test('a reference names only what an earlier step creates', () => {
  for (const seed of [1, 2, 3, 99, 123456]) {
    const created = new Map<Ref['kind'], Set<number>>();
    const add = (kind: Ref['kind'], index: unknown) => {
      if (typeof index !== 'number') return;
      if (!created.has(kind)) created.set(kind, new Set());
      expect(created.get(kind)!.has(index)).toBe(false);
      created.get(kind)!.add(index);
    };
    for (const step of plan(seed, 600).steps) {
      for (const r of step.refs ?? []) expect(created.get(r.kind)?.has(r.index)).toBe(true);
      const kind = ({ create_merchant: 'merchant', create_endpoint: 'endpoint', sandbox_charge: 'charge', live_charge: 'charge', payout: 'payout', refund: 'refund', dispute: 'dispute' } as Partial<Record<StepKind, Ref['kind']>>)[step.kind];
      if (kind) add(kind, step.params.ref_index);
      add('request', step.params.request_index);
      // Every request with an Idempotency-Key has one of its own.
      if ('request_index' in step.params) expect(typeof step.params.idempotency_key).toBe('string');
    }
  }
});

test('a plan is plain JSON: it survives a round trip unchanged', () => {
  const p = plan(42, 500);
  expect(JSON.parse(JSON.stringify(p))).toEqual(p);
  for (const step of p.steps) for (const v of Object.values(step.params)) expect(['string', 'number', 'boolean'].includes(typeof v) || v === null).toBe(true);
});

test('the registry resolves a reference by the index the plan gave it; a cut or refused creation resolves to null', () => {
  const registry = createRegistry();
  registry.add('charge', 'txn_a', { ref_index: '0' });
  registry.add('charge', 'txn_c', { ref_index: '2', merchant: 'mer_1' });
  expect(registry.resolve({ kind: 'charge', index: 2 })).toEqual({ id: 'txn_c', extra: { ref_index: '2', merchant: 'mer_1' } });
  expect(registry.resolve({ kind: 'charge', index: 1 })).toBeNull();
  expect(registry.resolve({ kind: 'payout', index: 0 })).toBeNull();
  expect(registry.count('charge')).toBe(2);
  registry.add('charge', 'txn_d');
  expect(registry.resolve({ kind: 'charge', index: 3 })?.id).toBe('txn_d');
  expect(() => registry.add('charge', 'txn_e', { ref_index: '0' })).toThrow(/second charge #0/);
});

test("every request body a plan draws is valid by the API's own schemas (a refusal in a run is the engine's, not a malformed step)", () => {
  const steps = plan(5, 3000).steps;
  const valid = (validate: Parameters<typeof check>[0], body: unknown) => expect(() => check(validate, JSON.parse(JSON.stringify(body)))).not.toThrow();
  for (const step of steps) {
    if (step.kind === 'sandbox_charge' || step.kind === 'live_charge') valid(validateCreateCharge, chargeBody(step));
    if (step.kind === 'payout') valid(validateCreatePayout, payoutBody(step));
    if (step.kind === 'refund') valid(validateCreateRefund, refundBody(step, 'txn_' + 'a'.repeat(24)));
    if (step.kind === 'dispute') valid(validateOpenDispute, disputeBody(step));
    if (step.kind === 'dispute_evidence') valid(validateDisputeEvidence, { text: step.params.text });
  }
  // Sandbox charges carry their outcome, live ones none; some live phones pick a partner behaviour.
  const charges = steps.filter((s) => s.kind === 'sandbox_charge');
  expect(new Set(charges.map((s) => s.params.outcome)).size).toBeGreaterThan(8);
  expect(steps.some((s) => s.kind === 'live_charge' && /000[1-9]$|001[0-3]$/.test(String(s.params.identifier)))).toBe(true);
});

test("issue 43's money paths are inserted from a stream of their own: a restart names a live payout, a resolve a live charge; seed 1631's 20 steps (npm test) have none", () => {
  const steps = plan(4301, 600).steps;
  const payouts = steps.filter((s) => s.kind === 'payout');
  const charges = steps.filter((s) => s.kind === 'sandbox_charge' || s.kind === 'live_charge');
  const restarts = steps.filter((s) => s.params.reason === 'simulation: payments restart of a live payout');
  const resolves = steps.filter((s) => s.params.reason === 'simulation: charges resolve of a live charge');
  expect(steps.some((s) => s.kind === 'settlement_account_change')).toBe(true);
  expect(restarts.length).toBeGreaterThan(0);
  expect(resolves.length).toBeGreaterThan(0);
  // terminate_run, reset_run and late_return_refused name a live payout or a live charge.
  const livePayment = (r: { kind: string; index: number }) => (r.kind === 'payout' ? payouts.find((p) => p.params.ref_index === r.index)!.params.environment === 'live' : charges.find((c) => c.params.ref_index === r.index)!.kind === 'live_charge');
  const onLive = steps.filter((x) => x.kind === 'terminate_run' || x.kind === 'reset_run' || x.kind === 'late_return_refused');
  expect(new Set(onLive.map((x) => `${x.kind}/${x.refs![0]!.kind}`))).toEqual(new Set(['terminate_run/payout', 'terminate_run/charge', 'reset_run/payout', 'reset_run/charge', 'late_return_refused/payout', 'late_return_refused/charge']));
  for (const s of onLive) expect(livePayment(s.refs![0]!)).toBe(true);
  // The settlement paths and the unanswered payout's jump name a merchant the plan created before.
  for (const kind of ['restart_settlement', 'settlement_retry_late', 'unanswered_payout_jump'] as const) {
    const these = steps.filter((x) => x.kind === kind);
    expect(these.length).toBeGreaterThan(0);
    for (const s of these) expect(s.refs![0]!.kind).toBe('merchant');
  }
  for (const s of restarts) expect(payouts.find((p) => p.params.ref_index === s.refs![0]!.index)!.params.environment).toBe('live');
  for (const s of resolves) expect(charges.find((c) => c.params.ref_index === s.refs![0]!.index)!.kind).toBe('live_charge');
  expect(plan(1631, 20).steps.filter((s) => STEP_WEIGHTS[s.kind] === 0 || String(s.params.reason).includes(' of a live '))).toEqual([]);
});

describe('the sandbox mix (plan-sandbox.ts)', () => {
  const LIVE_OR_FAULT: StepKind[] = ['live_charge', 'operator_action', 'partner_behaviour', 'partner_statement', 'restart_worker', 'cut_db_connections', 'fail_activity', 'terminate_run', 'reset_run', 'settlement_account_change', 'restart_settlement', 'late_return_refused', 'settlement_retry_late', 'unanswered_payout_jump', 'partner_pays_late'];

  test('is a pure function of the seed, and draws no live payment, partner, operator action or fault', () => {
    expect(plan(21, 400, 'sandbox')).toEqual(plan(21, 400, 'sandbox'));
    for (const seed of [1, 2, 3, 21, 4242]) {
      const steps = plan(seed, 400, 'sandbox').steps;
      expect(steps.filter((s) => LIVE_OR_FAULT.includes(s.kind))).toEqual([]);
      expect(steps.filter((s) => s.params.environment === 'live' || s.params.during !== undefined || s.params.mode === 'slow' || s.params.shape === 'callback_race')).toEqual([]);
      expect(new Set(steps.map((s) => s.kind))).toEqual(new Set(['create_merchant', 'create_endpoint', 'rotate_endpoint_secret', 'disable_endpoint', 'replay_delivery', 'sandbox_charge', 'repeat_request', 'payout', 'review_payout', 'refund', 'dispute', 'dispute_evidence', 'settlement_run', 'receiver_failure', 'time_jump', 'burst']));
    }
  });

  test('refunds and disputes only of charges drawn to succeed whose three seconds the plan\'s time jumps have passed, within what is left; evidence once per dispute', () => {
    for (const seed of [1, 2, 3, 21, 4242]) {
      const steps = plan(seed, 400, 'sandbox').steps;
      const charges: Array<{ outcome: unknown; at: number; left: number }> = [];
      const evidence = new Set<number>();
      let now = 0;
      for (const step of steps) {
        const target = step.refs?.[0]?.index ?? -1;
        if (step.kind === 'sandbox_charge') charges.push({ outcome: step.params.outcome, at: now, left: Number(step.params.amount) });
        if (step.kind === 'time_jump') now += Number(step.params.ms);
        if (step.kind === 'refund' || step.kind === 'dispute' || (step.kind === 'burst' && step.params.shape === 'refunds')) {
          const charge = charges[target]!;
          expect({ seed, n: step.n, outcome: charge.outcome, passed: now - charge.at >= 3_000 }).toEqual({ seed, n: step.n, outcome: 'succeed', passed: true });
          const amount = step.params.amount === null || step.params.amount === undefined ? charge.left : Number(step.params.amount);
          expect(amount).toBeGreaterThan(0);
          expect(amount).toBeLessThanOrEqual(charge.left);
          charge.left -= amount;
        }
        if (step.kind === 'dispute_evidence') {
          expect(evidence.has(target)).toBe(false);
          evidence.add(target);
        }
      }
    }
  });
});

test('issue 45, every channel live: live card and bank charges, bank payouts and refunds of live charges are inserted from a stream of their own, each card ending and challenge answer drawn; the cards built from them are Luhn-valid', () => {
  const plans = [4500, 4501, 4502].map((seed) => plan(seed, 2000).steps);
  const steps = plans[0]!;
  const live = plans.flat().filter((s) => s.kind === 'live_charge');
  const cards = live.filter((s) => s.params.channel === 'card');
  const banks = live.filter((s) => s.params.channel === 'bank');
  // Every card ending of the table, both challenge answers, an abandoned page.
  for (const e of Object.keys(CARD_ENDINGS).filter((x) => x !== 'plain')) expect(cards.some((s) => s.params.card_ending === e)).toBe(true);
  expect(cards.some((s) => s.params.card_ending === '0020' && s.params.otp_right === false)).toBe(true);
  expect(cards.some((s) => s.params.card_ending === '0021' && s.params.three_ds === 'cancel')).toBe(true);
  expect(cards.some((s) => s.params.card_action === 'abandon')).toBe(true);
  // A card charge's customer is never a card number (the API refuses one).
  for (const s of cards) expect(looksLikeCardNumber(String(s.params.identifier))).toBe(false);
  // Bank payers that never pay (0004) and whose refunds play a behaviour (01NN); MoMo payers 01NN too.
  expect(banks.some((s) => String(s.params.identifier).endsWith('0004'))).toBe(true);
  expect(banks.some((s) => /01[0-9]{2}$/.test(String(s.params.identifier)))).toBe(true);
  expect(live.some((s) => s.params.channel === 'mobile_money' && /01[0-9]{2}$/.test(String(s.params.identifier)))).toBe(true);
  expect(steps.some((s) => s.kind === 'payout' && s.params.environment === 'live' && s.params.channel === 'bank')).toBe(true);
  // Refunds of live charges.
  const liveIndexes = new Set(steps.filter((s) => s.kind === 'live_charge').map((s) => s.params.ref_index));
  expect(steps.filter((s) => s.kind === 'refund' && liveIndexes.has(s.refs![0]!.index)).length).toBeGreaterThan(20);
  for (const e of ['4242', ...Object.keys(CARD_ENDINGS).filter((x) => x !== 'plain')]) {
    for (const brand of ['visa', 'mastercard']) {
      const n = cardNumber(e, brand);
      expect(n).toMatch(new RegExp(`^[45][0-9]{11}${e}$`));
      expect(isCardNumber(n)).toBe(true);
    }
  }
});
