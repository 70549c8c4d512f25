import { IN_FLIGHT_CHANCE, IN_FLIGHT_FAULTS, IN_FLIGHT_KINDS, IN_FLIGHT_MAX_DELAY_MS } from './in-flight';
import { Rng } from '../chaos/random';
import {
  ACTIVITIES_TO_FAIL, BANK_CHARGE_ENDINGS, BANK_PAYOUT_ENDINGS, BURST_CHANCE, cardParams, ending, LIVE_CHANNEL_CHANCE, LIVE_CHANNELS, REFUND_PAYER_ENDINGS, BURST_SHAPES, chargeParams, MOMO_NETWORK, phone, UNANSWERED_JUMP_MS, DISPUTE_REASONS, jumpMs, MONEY_PATH_CHANCE, MONEY_PATHS, OPERATOR_ACTIONS, operatorParams, PARTNER_BEHAVIOURS, PARTNER_FAULT_CHANCE, PARTNER_FAULT_MAX_PAYMENTS, PARTNER_FAULT_PARTNERS, payoutParams, RECEIVER_MODES, RECEIVERS, REFUND_REASONS, STEP_WEIGHTS,
  type OperatorActionName,
} from './plan-params';
import { creating, earlier, nothingMade, ref, type Built, type Made } from './plan-made';
import { SLOW_RACE_DELAYS_MS } from './steps/slow-partner-race';
import { buildSandbox, SANDBOX_BURST_SHAPES, SANDBOX_STEP_WEIGHTS, SandboxBook, sandboxRefundsTarget } from './plan-sandbox';
import type { Plan, Ref, Step, StepKind } from './types';

function build(kind: StepKind, rng: Rng, made: Made, seed: number): Built {
  const merchant = () => [ref('merchant', earlier(rng, made.merchant))];
  const needsMerchant = made.merchant === 0;
  switch (kind) {
    case 'create_merchant':
      return { params: creating(made, 'merchant', { name: `Sim ${seed} #${made.merchant + 1}`, review_threshold: rng.int(20, 200) * 100, verified: made.merchant === 0 || rng.chance(0.8), settlement_account: `00${rng.int(1_000_000_000, 1_999_999_999)}` }) };
    case 'create_endpoint':
      if (needsMerchant) return { need: 'create_merchant' };
      return { refs: merchant(), params: creating(made, 'endpoint', { receiver: rng.int(0, RECEIVERS - 1), timeout_seconds: rng.int(1, 5) }) };
    case 'rotate_endpoint_secret':
    case 'disable_endpoint':
    case 'replay_delivery': {
      if (made.endpoint === 0) return { need: 'create_endpoint' };
      const refs = [ref('endpoint', earlier(rng, made.endpoint))];
      if (kind === 'disable_endpoint') return { refs, params: { status: rng.chance(0.7) ? 'disabled' : 'active' } };
      if (kind === 'replay_delivery') return { refs, params: { pick: rng.int(0, 999_999), idempotency_key: rng.uuid(), request_index: made.request++ } };
      return { refs, params: {} };
    }
    case 'sandbox_charge':
    case 'live_charge': {
      if (needsMerchant) return { need: 'create_merchant' };
      const live = kind === 'live_charge';
      const refs = merchant();
      const drawn = chargeParams(rng, live);
      const params = { ...drawn, ref_index: made.charges.length, request_index: made.request++ };
      if (!live && drawn.outcome === 'succeed') made.succeeding.push(made.charges.length);
      made.charges.push(live ? 'live' : 'sandbox');
      return { refs, params };
    }
    case 'repeat_request':
      if (made.request === 0) return { need: 'sandbox_charge' };
      return { refs: [ref('request', earlier(rng, made.request))], params: {} };
    case 'payout': {
      if (needsMerchant) return { need: 'create_merchant' };
      const refs = merchant();
      const params = payoutParams(rng, rng.chance(0.35));
      if (params.environment === 'live') made.livePayouts.push(made.payouts);
      return { refs, params: { ...params, ref_index: made.payouts++, request_index: made.request++ } };
    }
    case 'review_payout':
      if (made.payouts === 0) return { need: 'payout' };
      return { refs: [ref('payout', earlier(rng, made.payouts))], params: { decision: rng.chance(0.6) ? 'approve' : 'reject', reason: 'simulation: review' } };
    case 'refund': {
      if (made.charges.length === 0) return { need: 'sandbox_charge' };
      const refs = [ref('charge', earlier(rng, made.charges.length))];
      return { refs, params: creating(made, 'refund', { amount: rng.chance(0.5) ? null : rng.int(1, 50) * 100, reason: rng.pick(REFUND_REASONS), idempotency_key: rng.uuid() }, true) };
    }
    case 'dispute': {
      // Disputes are a sandbox control (POST /v1/sandbox/charges/{id}/disputes): a sandbox charge.
      const sandbox = made.charges.flatMap((env, i) => (env === 'sandbox' ? [i] : []));
      if (sandbox.length === 0) return { need: 'sandbox_charge' };
      const refs = [ref('charge', sandbox[earlier(rng, sandbox.length)]!)];
      return { refs, params: creating(made, 'dispute', { amount: rng.chance(0.6) ? null : rng.int(1, 50) * 100, reason: rng.pick(DISPUTE_REASONS), idempotency_key: rng.uuid() }, true) };
    }
    case 'dispute_evidence':
      if (made.dispute === 0) return { need: 'dispute' };
      return { refs: [ref('dispute', earlier(rng, made.dispute))], params: { text: `Delivery note ${rng.int(1000, 9999)}: the customer signed for the goods.` } };
    case 'settlement_run': {
      if (needsMerchant) return { need: 'create_merchant' };
      const environment = rng.weighted({ sandbox: 2, live: 1, all: 1 });
      return { refs: rng.chance(0.5) ? merchant() : [], params: { environment, failed: environment === 'sandbox' && rng.chance(0.25) } };
    }
    case 'operator_action':
      return operatorStep(rng, made);
    case 'partner_behaviour':
      return { params: { behaviour: rng.weighted(PARTNER_BEHAVIOURS) } };
    case 'partner_statement':
      return { params: { days_ago: rng.int(0, 2), breaks: rng.int(0, 3) } };
    case 'receiver_failure':
      return { params: { receiver: rng.int(0, RECEIVERS - 1), mode: rng.weighted(RECEIVER_MODES) } };
    case 'restart_worker':
    case 'cut_db_connections':
      return { params: {} };
    case 'fail_activity':
      return { params: { activity: rng.pick(ACTIVITIES_TO_FAIL), times: rng.int(1, 5) } };
    case 'time_jump':
      return { params: { ms: jumpMs(rng) } };
    case 'terminate_run':
      // Weight 0 (plan-params.ts): only moneyPath inserts it; here for completeness.
      if (made.payouts === 0) return { need: 'payout' };
      return { refs: [ref('payout', earlier(rng, made.payouts))], params: { reason: 'simulation: terminate a payout\'s run, then payments restart' } };
    case 'settlement_account_change':
      // Weight 0 (plan-params.ts): only moneyPath inserts it; here for completeness.
      if (needsMerchant) return { need: 'create_merchant' };
      return { refs: merchant(), params: { settlement_account: `00${rng.int(1_000_000_000, 1_999_999_999)}`, reason: `simulation ${seed}: the merchant's new bank account` } };
    case 'restart_settlement':
    case 'settlement_retry_late':
    case 'unanswered_payout_jump':
    case 'reset_run':
    case 'late_return_refused':
    case 'partner_pays_late':
    case 'burst':
    case 'partner_down':
    case 'partner_declining':
      // Weight 0 (plan-params.ts): only moneyPath, burstOf, partnerFaultOf (or a hand-written plan) inserts these; never drawn here.
      return { need: 'time_jump' };
  }
}

/** An operator action on an earlier creation of the kind it acts on (any payment for restart and settle-late). */
function operatorStep(rng: Rng, made: Made): Built {
  const action = rng.pick(Object.keys(OPERATOR_ACTIONS) as OperatorActionName[]);
  const params = operatorParams(rng, action);
  const target = OPERATOR_ACTIONS[action];
  if (target === 'merchant') return made.merchant === 0 ? { need: 'create_merchant' } : { refs: [ref('merchant', earlier(rng, made.merchant))], params };
  if (target === 'payout') return made.payouts === 0 ? { need: 'payout' } : { refs: [ref('payout', earlier(rng, made.payouts))], params };
  if (target === 'charge') return made.charges.length === 0 ? { need: 'sandbox_charge' } : { refs: [ref('charge', earlier(rng, made.charges.length))], params };
  // `payments restart` takes a payout, refund or dispute (PO_ID|RE_ID|DP_ID); settle-late any payment.
  const kinds = (['charge', 'payout', 'refund', 'dispute'] as const).filter((k) => !(k === 'charge' && action === 'payments restart')).filter((k) => (k === 'charge' ? made.charges.length : k === 'payout' ? made.payouts : made[k]) > 0);
  if (kinds.length === 0) return { need: action === 'payments restart' ? 'payout' : 'sandbox_charge' };
  const kind = rng.pick(kinds);
  const count = kind === 'charge' ? made.charges.length : kind === 'payout' ? made.payouts : made[kind];
  return { refs: [ref(kind, earlier(rng, count))], params };
}

/** Mostly the newest of `indexes` (a payment likely still in flight, where the paths matter), else any. */
function recent(rng: Rng, indexes: number[]): number {
  return rng.chance(0.7) ? indexes[indexes.length - 1]! : rng.pick(indexes);
}

/**
 * One of issue 43's money paths (MONEY_PATHS), drawn from its own stream `rng`, or null when the plan
 * has nothing for it yet (no live payout to restart, no live charge to resolve). Draws nothing from
 * the plan's main stream, so the steps drawn after it are the ones the plan drew before it existed.
 */
function moneyPath(rng: Rng, made: Made, seed: number): Omit<Step, 'n'> | null {
  const path = rng.weighted(MONEY_PATHS);
  if (path === 'settlement_account_change') {
    return { kind: 'settlement_account_change', refs: [ref('merchant', rng.int(0, made.merchant - 1))], params: { settlement_account: `00${rng.int(1_000_000_000, 1_999_999_999)}`, reason: `simulation ${seed}: the merchant's new bank account` } };
  }
  if (path === 'terminate_live_payout') {
    if (made.livePayouts.length === 0) return null;
    return { kind: 'terminate_run', refs: [ref('payout', recent(rng, made.livePayouts))], params: { reason: 'simulation: terminate a live payout\'s run, then payments restart' } };
  }
  if (path === 'restart_live_payout') {
    if (made.livePayouts.length === 0) return null;
    return { kind: 'operator_action', refs: [ref('payout', recent(rng, made.livePayouts))], params: { action: 'payments restart', reason: 'simulation: payments restart of a live payout' } };
  }
  const live = made.charges.flatMap((env, i) => (env === 'live' ? [i] : []));
  const merchant = () => [ref('merchant', rng.int(0, made.merchant - 1))];
  if (path === 'restart_live_settlement') return { kind: 'restart_settlement', refs: merchant(), params: { reason: 'simulation: terminate a live settlement batch\'s run, then payments restart' } };
  if (path === 'retry_after_late_success') return { kind: 'settlement_retry_late', refs: merchant(), params: { reason: 'simulation: settlements retry after the partner paid the batch late' } };
  if (path === 'unanswered_payout_jump') {
    return { kind: 'unanswered_payout_jump', refs: merchant(), params: { amount: rng.int(1, 10) * 100, momo_network_id: MOMO_NETWORK, identifier: phone(rng, true), idempotency_key: rng.uuid(), ms: UNANSWERED_JUMP_MS } };
  }
  // Live payments: a payout (by `made.livePayouts`) or a live charge.
  const livePayment = (): Ref | null => {
    const kinds = [...(made.livePayouts.length > 0 ? ['payout' as const] : []), ...(live.length > 0 ? ['charge' as const] : [])];
    if (kinds.length === 0) return null;
    return rng.pick(kinds) === 'payout' ? ref('payout', recent(rng, made.livePayouts)) : ref('charge', recent(rng, live));
  };
  if (path === 'reset_live_run' || path === 'late_return_0013') {
    const target = livePayment();
    if (!target) return null;
    if (path === 'reset_live_run') return { kind: 'reset_run', refs: [target], params: { reapply: rng.chance(0.5) } };
    return { kind: 'late_return_refused', refs: [target], params: { reason: 'simulation: settle-late return while the partner refuses a duplicate' } };
  }
  if (live.length === 0) return null;
  if (path === 'terminate_live_charge') return { kind: 'terminate_run', refs: [ref('charge', recent(rng, live))], params: { reason: 'simulation: terminate a live charge\'s run, then payments restart' } };
  return { kind: 'operator_action', refs: [ref('charge', recent(rng, live))], params: { action: 'charges resolve', reason: 'simulation: charges resolve of a live charge', as: rng.pick(['succeeded', 'failed']), failure_class: null } };
}

/**
 * A step of the aggregator's channels or a live refund (issue 45, LIVE_CHANNELS), drawn from its own
 * stream `rng`, or null when the plan has nothing for it yet (no merchant, no live charge to refund).
 * Existing kinds with their parameters as build() makes them, so every handler, reference and
 * invariant treats them as any other.
 */
function liveChannel(rng: Rng, made: Made): Omit<Step, 'n'> | null {
  if (made.merchant === 0) return null;
  const what = rng.weighted(LIVE_CHANNELS);
  // The plan's first merchant is verified (live keys work); later ones mostly.
  const merchant = [ref('merchant', rng.chance(0.7) ? 0 : rng.int(0, made.merchant - 1))];
  const amount = rng.int(1, 400) * 100 + (rng.chance(0.2) ? rng.int(1, 99) : 0);
  if (what === 'card_charge' || what === 'bank_charge' || what === 'momo_charge_refund_payer') {
    const channel = what === 'card_charge' ? 'card' : what === 'bank_charge' ? 'bank' : 'mobile_money';
    const identifier = channel === 'card' ? `customer-${rng.int(1000, 9999)}@example.com` : channel === 'bank' ? `GH00${rng.int(1000, 9999)}${ending(rng, BANK_CHARGE_ENDINGS)}` : `23324${rng.int(100, 999)}${ending(rng, REFUND_PAYER_ENDINGS)}`;
    const params = {
      amount, currency: 'GHS', channel, momo_network_id: channel === 'mobile_money' ? MOMO_NETWORK : null, identifier, outcome: null, idempotency_key: rng.uuid(),
      ...(channel === 'card' ? cardParams(rng) : {}),
      ref_index: made.charges.length, request_index: made.request++,
    };
    made.charges.push('live');
    return { kind: 'live_charge', refs: merchant, params };
  }
  if (what === 'bank_payout') {
    const params = {
      environment: 'live', amount: rng.int(1, 30) * 100, currency: 'GHS', channel: 'bank', momo_network_id: null, bank_code: 'GCB',
      identifier: `${rng.int(100_000, 999_999)}${ending(rng, BANK_PAYOUT_ENDINGS)}`, idempotency_key: rng.uuid(),
    };
    made.livePayouts.push(made.payouts);
    return { kind: 'payout', refs: merchant, params: { ...params, ref_index: made.payouts++, request_index: made.request++ } };
  }
  const live = made.charges.flatMap((env, i) => (env === 'live' ? [i] : []));
  if (live.length === 0) return null;
  const params = creating(made, 'refund', { amount: rng.chance(0.5) ? null : rng.int(1, 50) * 100, reason: rng.pick(REFUND_REASONS), idempotency_key: rng.uuid() }, true);
  return { kind: 'refund', refs: [ref('charge', recent(rng, live))], params };
}

/** Which steps a plan draws: every kind (`all`), or a sandbox merchant's only, state-aware (`sandbox`, plan-sandbox.ts). */
export type Mix = 'all' | 'sandbox';

/**
 * The plan of a run: `steps` steps drawn from `seed` (pure: the same arguments give the same plan).
 * It opens with a merchant (verified for live: later merchants are, mostly) and a webhook endpoint; then each step's kind is drawn by STEP_WEIGHTS, and
 * a step that needs something no earlier step creates is replaced by the step that creates it.
 */
/** A burst (steps/burst.ts) from its own stream `rng`, or null when the plan has nothing for it yet. */
function burstOf(rng: Rng, made: Made, book?: SandboxBook): Omit<Step, 'n'> | null {
  const shape: keyof typeof BURST_SHAPES = book ? rng.weighted(SANDBOX_BURST_SHAPES) : rng.weighted(BURST_SHAPES);
  const count = rng.int(2, 4);
  const key = rng.uuid();
  if (shape === 'refunds') {
    // A charge drawn to succeed (in the sandbox mix, one that has and can be refunded): a refund of another is refused before it races anything.
    const target = book ? sandboxRefundsTarget(rng, book) : made.succeeding.length === 0 ? null : recent(rng, made.succeeding);
    if (target === null) return null;
    return { kind: 'burst', refs: [ref('charge', target)], params: { shape, count, idempotency_key: key } };
  }
  if (made.merchant === 0) return null;
  // The plan's first merchant is verified (live keys work).
  if (shape === 'slow_partner_race') {
    return { kind: 'burst', refs: [ref('merchant', 0)], params: { shape, count, target: rng.pick(['charge', 'payout']), amount: rng.int(1, 50) * 100, currency: 'GHS', momo_network_id: MOMO_NETWORK, phone_prefix: rng.int(100, 999), delay_ms: rng.pick(SLOW_RACE_DELAYS_MS), as: rng.pick(['succeeded', 'failed']), outcome: null, idempotency_key: key } };
  }
  if (shape === 'callback_race') return { kind: 'burst', refs: [ref('merchant', 0)], params: { shape, count, ...chargeParams(rng, true), as: rng.pick(['succeeded', 'failed']), idempotency_key: key } };
  // Payouts: the amount is what the merchant has then (steps/burst.ts); the recipient is drawn here.
  if (shape === 'payouts') return { kind: 'burst', refs: [ref('merchant', earlier(rng, made.merchant))], params: { shape, count, ...payoutParams(rng, false), idempotency_key: key } };
  return { kind: 'burst', refs: [ref('merchant', earlier(rng, made.merchant))], params: { shape, count, ...chargeParams(rng, false), idempotency_key: key } };
}

/**
 * A partner fault for its step's span (issue 46, steps/partner-faults.ts) from its own stream `rng`,
 * with the live mobile-money payments made while it is in force (the plan's first merchant: verified).
 */
function partnerFaultOf(rng: Rng, made: Made): Omit<Step, 'n'> | null {
  if (made.merchant === 0) return null;
  const kind = rng.pick(['partner_down', 'partner_declining'] as const);
  const count = rng.int(1, PARTNER_FAULT_MAX_PAYMENTS);
  const keys = Array.from({ length: count }, () => rng.uuid()).join(',');
  return {
    kind,
    refs: [ref('merchant', 0)],
    params: { partner: rng.weighted(PARTNER_FAULT_PARTNERS), target: rng.chance(0.75) ? 'charge' : 'payout', amount: rng.int(1, 50) * 100, momo_network_id: MOMO_NETWORK, phone_prefix: rng.int(100, 999), phone_suffix: rng.int(0, 4999), idempotency_keys: keys },
  };
}

export function plan(seed: number, steps: number, mix: Mix = 'all'): Plan {
  const rng = new Rng(seed);
  const made = nothingMade();
  // The sandbox mix (plan-sandbox.ts): its own weights, no money paths (they are live), no fault in flight, and the book
  // that keeps its refunds, disputes, payouts and reviews within what will be there.
  const book = mix === 'sandbox' ? new SandboxBook() : undefined;
  const weights = book ? SANDBOX_STEP_WEIGHTS : STEP_WEIGHTS;
  const draw = (kind: StepKind): Built => (book ? buildSandbox(kind, rng, made, book) : undefined) ?? build(kind, rng, made, seed);
  const paths = rng.fork('money-paths');
  // When a failed activity fails (issue 44, faults in flight): before it runs, or after (its effect
  // committed, its answer lost), from a stream of its own so the rest of the plan is as it was.
  const faultTiming = rng.fork('fault-timing');
  const bursts = rng.fork('bursts');
  // Issue 46's partner faults (down, declining), from a stream of their own.
  const partnerFaults = rng.fork('partner-faults');
  // Faults in flight (in-flight.ts): which steps a fault lands in the middle of, from a stream of its own.
  const inFlight = rng.fork('in-flight');
  // Every channel live (issue 45): its insertions, and what a drawn live card or bank charge's customer does.
  const channels = rng.fork('live-channels');
  const liveCustomers = rng.fork('live-customers');
  const out: Step[] = [];
  for (let n = 0; n < steps; n++) {
    const push = (step: Step) => {
      out.push(step);
      book?.observe(step, made);
    };
    const burst = n >= 2 && bursts.chance(BURST_CHANCE) ? burstOf(bursts, made, book) : null;
    if (burst) {
      push({ n, ...burst });
      continue;
    }
    const partnerFault = !book && n >= 2 && partnerFaults.chance(PARTNER_FAULT_CHANCE) ? partnerFaultOf(partnerFaults, made) : null;
    if (partnerFault) {
      push({ n, ...partnerFault });
      continue;
    }
    const inserted = !book && n >= 2 && paths.chance(MONEY_PATH_CHANCE) ? moneyPath(paths, made, seed) : null;
    if (inserted) {
      push({ n, ...inserted });
      continue;
    }
    const live = !book && n >= 2 && channels.chance(LIVE_CHANNEL_CHANCE) ? liveChannel(channels, made) : null;
    if (live) {
      push({ n, ...live });
      continue;
    }
    let kind: StepKind = n === 0 ? 'create_merchant' : n === 1 ? 'create_endpoint' : rng.weighted(weights);
    let built = draw(kind);
    while ('need' in built) {
      kind = built.need;
      built = draw(kind);
    }
    let params = kind === 'fail_activity' ? { ...built.params, when: faultTiming.chance(0.5) ? 'after' : 'before' } : built.params;
    // A drawn live card charge gets its customer's card; a drawn live bank charge's payer account an ending of the table (issue 45).
    if (kind === 'live_charge' && params.channel === 'card') params = { ...params, ...cardParams(liveCustomers) };
    if (kind === 'live_charge' && params.channel === 'bank') params = { ...params, identifier: `${String(params.identifier).slice(0, -4)}${ending(liveCustomers, BANK_CHARGE_ENDINGS)}` };
    if (!book && IN_FLIGHT_KINDS.includes(kind) && inFlight.chance(IN_FLIGHT_CHANCE)) params = { ...params, during: inFlight.pick(IN_FLIGHT_FAULTS), during_after_ms: inFlight.int(0, IN_FLIGHT_MAX_DELAY_MS) };
    push({ n, kind, ...(built.refs && built.refs.length > 0 ? { refs: built.refs } : {}), params });
  }
  return { seed, steps: out };
}
