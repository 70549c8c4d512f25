import type { Rng } from '../chaos/random';
import { chargeFee, payoutFee } from './model/rates';
import { creating, earlier, ref, type Built, type Made } from './plan-made';
import { DISPUTE_REASONS, payoutParams, RECEIVERS, REFUND_REASONS, STEP_WEIGHTS, type Params } from './plan-params';
import type { Step, StepKind } from './types';

/**
 * The sandbox-only mix (`--mix sandbox`, issue 44's throughput): every step a sandbox merchant makes,
 * drawn so that none is wasted on a refusal the planner could see coming. The planner keeps a
 * conservative book of what each step WILL have done (SandboxBook): a charge drawn to succeed counts
 * as succeeded only once the plan's time jumps since it passed three seconds (real time may end it
 * sooner; never later), its merchant's available balance grows by its merchant amount, and refunds,
 * disputes, payouts and settlement runs take from it. A refund or a dispute is then drawn only on a
 * charge that has succeeded with something left, a payout only within what is available, a review only
 * of a payout held for it, evidence only once per dispute. What is left of the refusals comes from the
 * faults (an activity failing, connections cut) and repeats of a refused request.
 */

/**
 * Step weights of the sandbox mix: no live payment, no partner, no operator action, and no fault. A
 * fault costs its real time: a failed database step retries inside its workflow task after a backoff
 * of one second and more, in real time (the test server skips no time while a task is under way), a
 * restart drains the worker. The full mix (`--mix all`) has every fault; this one measures the engine.
 */
const SANDBOX_DRAWN: Readonly<Partial<Record<StepKind, number>>> = {
  create_merchant: 1,
  create_endpoint: 1,
  rotate_endpoint_secret: 1,
  disable_endpoint: 1,
  replay_delivery: 2,
  sandbox_charge: 16,
  repeat_request: 4,
  payout: 6,
  review_payout: 3,
  refund: 5,
  dispute: 3,
  dispute_evidence: 2,
  settlement_run: 1,
  receiver_failure: 2,
  time_jump: 10,
};

/** Every kind of STEP_WEIGHTS: the drawn ones first, in their order (a plan's draws follow it), then the rest at 0. */
export const SANDBOX_STEP_WEIGHTS: Readonly<Record<StepKind, number>> = Object.fromEntries([
  ...Object.entries(SANDBOX_DRAWN),
  ...(Object.keys(STEP_WEIGHTS) as StepKind[]).filter((kind) => !(kind in SANDBOX_DRAWN)).map((kind) => [kind, 0]),
]) as Record<StepKind, number>;

/** The bursts of the sandbox mix (no `callback_race`: it is a live charge). */
export const SANDBOX_BURST_SHAPES = { refunds: 2, same_key_charge: 1, payouts: 2 } as const;

/** The receivers' modes of the sandbox mix (plan-params.ts RECEIVER_MODES without `slow`). */
const SANDBOX_RECEIVER_MODES = { ok: 4, fail_500: 2, drop: 1 } as const;

/** A sandbox payment's completion after acceptance (SPEC 4.2), as model/outcomes.ts. */
const COMPLETION_MS = 3_000;
/** The smallest payout the mix draws (minor units). */
const MIN_PAYOUT = 100;

interface BookCharge {
  merchant: number;
  at: number;
  succeeds: boolean;
  succeeded: boolean;
  merchantAmount: number;
  /** What refunds and disputes may still take. */
  left: number;
  disputed: boolean;
}

/** What the plan's steps will have done, at least (the conservative book above); a pure fold over the steps. */
export class SandboxBook {
  private now = 0;
  private readonly available: number[] = [];
  private readonly thresholds: number[] = [];
  private readonly charges: BookCharge[] = [];
  private readonly heldPayouts: number[] = [];
  private readonly disputesWithoutEvidence: number[] = [];

  /** Charges that have succeeded by now with something left to refund or dispute. */
  succeededWithLeft(): number[] {
    return this.charges.flatMap((c, i) => (c.succeeded && c.left > 0 ? [i] : []));
  }

  /** Whether a charge drawn to succeed has not succeeded yet (a time jump would end it). */
  succeedingLater(): boolean {
    return this.charges.some((c) => c.succeeds && !c.succeeded);
  }

  /** Merchants with at least `amount` available (with room for a payout's fee). */
  merchantsWith(amount: number): number[] {
    return this.available.flatMap((a, i) => (a >= amount ? [i] : []));
  }

  availableOf(merchant: number): number {
    return this.available[merchant] ?? 0;
  }

  charge(index: number): BookCharge {
    return this.charges[index]!;
  }

  held(): number[] {
    return [...this.heldPayouts];
  }

  awaitingEvidence(): number[] {
    return [...this.disputesWithoutEvidence];
  }

  /** Takes in a step the plan just drew. */
  observe(step: Step, made: Made): void {
    const p = step.params;
    const target = step.refs?.[0]?.index ?? 0;
    switch (step.kind) {
      case 'create_merchant':
        this.available.push(0);
        this.thresholds.push(Number(p.review_threshold));
        return;
      case 'sandbox_charge': {
        const amount = Number(p.amount);
        const fee = chargeFee(amount, String(p.channel));
        const merchantAmount = fee ? amount - fee.platform - fee.tax : 0;
        this.charges.push({ merchant: target, at: this.now, succeeds: p.outcome === 'succeed', succeeded: false, merchantAmount, left: amount, disputed: false });
        return;
      }
      case 'time_jump':
        this.advance(Number(p.ms));
        return;
      case 'refund': {
        const charge = this.charges[target]!;
        const amount = p.amount === null ? charge.left : Number(p.amount);
        charge.left -= amount;
        this.available[charge.merchant]! -= amount;
        return;
      }
      case 'dispute': {
        const charge = this.charges[target]!;
        const amount = p.amount === null ? charge.left : Number(p.amount);
        charge.left -= amount;
        charge.disputed = true;
        this.available[charge.merchant]! -= amount;
        this.disputesWithoutEvidence.push(Number(p.ref_index));
        return;
      }
      case 'dispute_evidence':
        this.disputesWithoutEvidence.splice(this.disputesWithoutEvidence.indexOf(target), 1);
        return;
      case 'payout': {
        const amount = Number(p.amount);
        const fee = payoutFee(amount, String(p.channel))!;
        this.available[target]! -= amount + fee.platform + fee.tax;
        if (amount >= this.thresholds[target]!) this.heldPayouts.push(made.payouts - 1);
        return;
      }
      case 'review_payout':
        this.heldPayouts.splice(this.heldPayouts.indexOf(target), 1);
        return;
      case 'settlement_run':
        // A sandbox run sweeps available (all merchants', or the one named).
        for (let m = 0; m < this.available.length; m++) if (!step.refs || step.refs.length === 0 || m === target) this.available[m] = 0;
        return;
      case 'burst':
        if (p.shape === 'refunds') {
          const charge = this.charges[target]!;
          this.available[charge.merchant]! -= charge.left;
          charge.left = 0;
        }
        // At most one payout of 55 % of what is available takes it (with its fee).
        if (p.shape === 'payouts') this.available[target] = Math.floor(this.available[target]! * 0.44);
        return;
      default:
    }
  }

  private advance(ms: number): void {
    this.now += ms;
    for (const c of this.charges) {
      if (c.succeeds && !c.succeeded && this.now - c.at >= COMPLETION_MS) {
        c.succeeded = true;
        this.available[c.merchant]! += c.merchantAmount;
      }
    }
  }
}

/** What a refund or a dispute needs first when no charge has anything left: a jump if one will succeed, else a charge. */
const needCharge = (book: SandboxBook): Built => ({ need: book.succeedingLater() ? 'time_jump' : 'sandbox_charge' });

/**
 * The sandbox mix's draw of the kinds whose success depends on state; undefined for the other kinds
 * (plan.ts builds them as in the full mix).
 */
export function buildSandbox(kind: StepKind, rng: Rng, made: Made, book: SandboxBook): Built | undefined {
  switch (kind) {
    case 'refund':
    case 'dispute': {
      const charges = book.succeededWithLeft().filter((i) => kind === 'refund' ? book.availableOf(book.charge(i).merchant) > 0 : !book.charge(i).disputed);
      if (charges.length === 0) return needCharge(book);
      const index = charges[earlier(rng, charges.length)]!;
      const charge = book.charge(index);
      const cap = kind === 'refund' ? Math.min(charge.left, book.availableOf(charge.merchant)) : charge.left;
      const amount = cap === charge.left && rng.chance(0.5) ? null : rng.int(1, cap);
      const reason = rng.pick(kind === 'refund' ? REFUND_REASONS : DISPUTE_REASONS);
      return { refs: [ref('charge', index)], params: creating(made, kind, { amount, reason, idempotency_key: rng.uuid() }, true) };
    }
    case 'dispute_evidence': {
      const open = book.awaitingEvidence();
      if (open.length === 0) return { need: 'dispute' };
      const losing = rng.chance(0.3) ? ' losing_evidence' : '';
      return { refs: [ref('dispute', rng.pick(open))], params: { text: `Delivery note ${rng.int(1000, 9999)}: the customer signed for the goods.${losing}` } };
    }
    case 'payout': {
      const merchants = book.merchantsWith(MIN_PAYOUT * 10);
      if (merchants.length === 0) return needCharge(book);
      const merchant = rng.pick(merchants);
      // At most 60 % of what is available, the fee (at most 1.15 %, or 1.15 at least on a bank payout) well within the rest.
      const amount = Math.max(MIN_PAYOUT, Math.floor((book.availableOf(merchant) * rng.int(5, 60)) / 100));
      const params: Params = { ...payoutParams(rng, false), amount };
      return { refs: [ref('merchant', merchant)], params: { ...params, ref_index: made.payouts++, request_index: made.request++ } };
    }
    case 'review_payout': {
      const held = book.held();
      if (held.length === 0) return { need: 'payout' };
      return { refs: [ref('payout', rng.pick(held))], params: { decision: rng.chance(0.6) ? 'approve' : 'reject', reason: 'simulation: review' } };
    }
    case 'receiver_failure':
      // Not `slow`: a receiver that answers late holds its delivery for the endpoint's timeout, in real time.
      return { params: { receiver: rng.int(0, RECEIVERS - 1), mode: rng.weighted(SANDBOX_RECEIVER_MODES) } };
    case 'settlement_run':
      return { refs: rng.chance(0.5) ? [ref('merchant', earlier(rng, made.merchant))] : [], params: { environment: 'sandbox', failed: rng.chance(0.25) } };
    default:
      return undefined;
  }
}

/** A burst of the sandbox mix on a charge that has something left, or null (plan.ts burstOf for the rest). */
export function sandboxRefundsTarget(rng: Rng, book: SandboxBook): number | null {
  const charges = book.succeededWithLeft().filter((i) => book.availableOf(book.charge(i).merchant) >= book.charge(i).left);
  return charges.length === 0 ? null : rng.pick(charges);
}
