import { randomInt } from 'node:crypto';
import { productOfResource, type RailProduct, type RailResource } from '../../partner-rail';
import type { Timing } from '../../fake-partner/behaviours';
import { AGGREGATOR_ERRORS, type AggregatorErrorCode } from '../errors';
import { endingOf, type AggregatorBehaviour, type FakeFinal } from './behaviours';
import { maskUrl } from './recording';

/** What the fake aggregator keeps of one reference (a copy is what `transaction()` returns). Amounts in minor units. */
export interface FakeAggregatorTransaction {
  /** A charge (`collection`), a transfer (`disbursement`) or a refund (`refund`). */
  resource: RailResource;
  /** Its statement: a refund is on the disbursement statement. */
  product: RailProduct;
  /** Our reference: the charge's tx_ref, the transfer's or refund's reference. */
  referenceId: string;
  /** The aggregator's id (a refund path names a charge's). */
  id: number;
  flwRef: string;
  behaviour: AggregatorBehaviour;
  /** The charge type (`mobile_money_ghana`, `bank_transfer`, …), `transfer` or `refund`. */
  paymentType: string;
  /** Who pays or is paid: a wallet's number, `<bank code>:<account number>`, a card as `<first six>******<last four>` (a refund's: its charge's payer, paid back). */
  partyId: string;
  partyKind: 'MSISDN' | 'BANK_ACCOUNT' | 'CARD';
  /** A transfer's account_bank, a charge's network or payer bank. */
  accountBank: string | null;
  beneficiaryName: string | null;
  externalId: string;
  narration: string;
  currency: string;
  /** What it was asked for. */
  askedAmount: number;
  /** The aggregator's record of the money (askedAmount, but one less for `0015` once successful). */
  amount: number;
  status: 'pending' | 'successful' | 'failed';
  failure: { code: string; message: string } | null;
  acceptedAt: number;
  completedAt: number | null;
  /** A bank-transfer charge: the virtual account to pay into, until `expiresAt` (ms). */
  instructions: { accountNumber: string; bankName: string; accountName: string; expiresAt: number } | null;
  /** A refund: the charge it refunds. */
  charge: { referenceId: string; id: number } | null;
  /** A transfer's own `callback_url`, where its webhook goes instead of the account's. */
  webhookUrl: string | null;
  /** A card charge: all the fake keeps of the card (never its number, never its CVV). */
  card: FakeCard | null;
  /** A card charge that asked the customer to act: its OTP or 3-D Secure step, and how it went. */
  challenge: FakeChallenge | null;
  /** A card charge's `redirect_url`: where its 3-D Secure page sends the customer back. */
  redirectUrl: string | null;
}

export interface FakeCard {
  /** Lower case (`visa`, `mastercard`, …; `unknown`). */
  brand: string;
  first6: string;
  last4: string;
  /** The fake's token of the card. */
  token: string;
  /** `MM/YY`. */
  expiry: string;
}

export interface FakeChallenge {
  mode: 'otp' | 'redirect';
  /** `awaiting` the customer; `passed` (the OTP or 3-D Secure authentication); `failed` (a wrong OTP); `cancelled` (3-D Secure); `expired` (never done in time). */
  state: 'awaiting' | 'passed' | 'failed' | 'cancelled' | 'expired';
  /** A redirect: the fake's 3-D Secure page of this charge. */
  url: string | null;
}

export type NewTransaction = Omit<FakeAggregatorTransaction, 'product' | 'id' | 'flwRef' | 'amount' | 'status' | 'failure' | 'acceptedAt' | 'completedAt' | 'instructions' | 'card' | 'challenge' | 'redirectUrl'> &
  Partial<Pick<FakeAggregatorTransaction, 'card' | 'challenge' | 'redirectUrl'>> & {
    /** A bank transfer: how long its account stays open, as the charge's `expires` asked (seconds × 1000), at most `bankTransferExpiryMs`. */
    openForMs?: number;
  };

export interface BooksTiming extends Timing {
  /** A bank-transfer charge's account stays open this long (default 30 minutes). */
  bankTransferExpiryMs: number;
  /** A card charge's challenge (OTP, 3-D Secure) stays open this long, then fails CHARGE_TIMEOUT (default 10 minutes). */
  challengeExpiryMs: number;
}

/** What a submission handler (charges.ts, transfers.ts, refunds.ts) works with. */
export interface SubmitContext {
  books: FakeBooks;
  /** How long a `0007` (slow) submission's answer waits after the reference is kept. */
  slowMs: number;
  /** Issue 46 (the `partner_declining` fault): every new reference is refused with SERVICE_DECLINING (retry elsewhere), nothing kept. */
  declining?: () => boolean;
}

/** The virtual accounts' bank, as the instructions name it. */
export const VIRTUAL_ACCOUNT_BANK = 'Fake Aggregator Bank';
export const VIRTUAL_ACCOUNT_NAME = 'Fake Aggregator Collections';

/** A copy of a kept transaction, a callback URL's credentials masked. */
export function copyOf(transaction: FakeAggregatorTransaction): FakeAggregatorTransaction {
  return { ...structuredClone(transaction), webhookUrl: transaction.webhookUrl && maskUrl(transaction.webhookUrl) };
}

/** Ids of the aggregator's transactions: a counter from a random seven-digit start, unless the fake was given a source. */
export function idCounter(start = randomInt(1_000_000, 9_000_000)): () => number {
  let next = start;
  return () => next++;
}

/**
 * The references the fake keeps, per resource, and their lifecycle: pending at acceptance, then the
 * behaviour's ending (behaviours.ts) and its webhooks; a bank-transfer charge also has an expiry,
 * failing ACCOUNT_EXPIRED if still unpaid. `notify` sends one webhook of a transaction as it is when
 * sent. The timers are cleared by `close`.
 */
export class FakeBooks {
  private readonly kept = new Map<string, FakeAggregatorTransaction>();
  private readonly timers = new Set<NodeJS.Timeout>();
  /** References whose first submission got a 500 (`error_once`): not kept, only remembered. */
  private readonly failed = new Set<string>();

  constructor(
    private readonly timing: BooksTiming,
    private readonly notify: (transaction: FakeAggregatorTransaction) => void,
    private readonly nextId: () => number = idCounter(),
  ) {}

  private key(resource: RailResource, referenceId: string): string {
    return `${resource}:${referenceId.toLowerCase()}`;
  }

  get(resource: RailResource, referenceId: string): FakeAggregatorTransaction | undefined {
    return this.kept.get(this.key(resource, referenceId));
  }

  chargeById(id: number): FakeAggregatorTransaction | undefined {
    return [...this.kept.values()].find((t) => t.resource === 'collection' && t.id === id);
  }

  /** Every kept transaction (of `product`), in acceptance order: a disbursement's are its transfers and its refunds. */
  all(product?: RailProduct): FakeAggregatorTransaction[] {
    return [...this.kept.values()].filter((t) => product === undefined || t.product === product);
  }

  /** The refunds kept of a charge, in acceptance order. */
  refundsOf(chargeReferenceId: string): FakeAggregatorTransaction[] {
    const charge = chargeReferenceId.toLowerCase();
    return [...this.kept.values()].filter((t) => t.resource === 'refund' && t.charge?.referenceId.toLowerCase() === charge);
  }

  /** For `error_once`: false the first time a reference is seen (it then answers 500), true after. */
  failedOnce(resource: RailResource, referenceId: string): boolean {
    const key = this.key(resource, referenceId);
    if (this.failed.has(key)) return true;
    this.failed.add(key);
    return false;
  }

  /** A copy, safe to compare before and after (a callback URL's credentials masked). */
  snapshot(resource: RailResource, referenceId: string): FakeAggregatorTransaction | undefined {
    const found = this.get(resource, referenceId);
    return found ? copyOf(found) : undefined;
  }

  /** Keeps a new reference, pending, and starts its lifecycle. */
  accept(fields: NewTransaction): FakeAggregatorTransaction {
    const id = this.nextId();
    const acceptedAt = Date.now();
    const ending = endingOf(fields.behaviour, this.timing, fields.resource);
    const bankTransfer = fields.resource === 'collection' && fields.paymentType === 'bank_transfer';
    // A 0012 bank transfer is paid late, after our deadline: its account stays open for it.
    const { openForMs, ...kept } = fields;
    // The charge's `expires` when it names one, at most the fake's own bankTransferExpiryMs (tests shorten it).
    const openFor = Math.min(openForMs ?? Infinity, this.timing.bankTransferExpiryMs) + (fields.behaviour === 'late_success' ? ending.finalAfterMs : 0);
    const transaction: FakeAggregatorTransaction = {
      ...kept,
      card: fields.card ?? null,
      challenge: fields.challenge ?? null,
      redirectUrl: fields.redirectUrl ?? null,
      product: productOfResource(fields.resource),
      id,
      flwRef: `FAKE-${fields.resource === 'refund' ? 'RF' : fields.resource === 'disbursement' ? 'TR' : 'CH'}-${id}`,
      amount: fields.askedAmount,
      status: 'pending',
      failure: null,
      acceptedAt,
      completedAt: null,
      instructions: bankTransfer ? { accountNumber: `99${String(id).padStart(8, '0').slice(-8)}`, bankName: VIRTUAL_ACCOUNT_BANK, accountName: VIRTUAL_ACCOUNT_NAME, expiresAt: acceptedAt + openFor } : null,
    };
    this.kept.set(this.key(fields.resource, fields.referenceId), transaction);
    const webhooks = ending.webhookDelaysMs.map((delay) => Math.max(0, delay - ending.finalAfterMs));
    if (ending.final) {
      const final = ending.final;
      this.after(ending.finalAfterMs, () => {
        // A test may have settled it by hand already, or it expired: that answer stands.
        if (transaction.status !== 'pending') return;
        this.finish(transaction, final);
        this.deliver(transaction, webhooks);
      });
    }
    if (transaction.instructions) {
      this.after(openFor, () => {
        if (transaction.status !== 'pending') return;
        this.finish(transaction, { status: 'failed', code: 'ACCOUNT_EXPIRED' });
        this.deliver(transaction, webhooks);
      });
    }
    const challenge = transaction.challenge;
    if (challenge) {
      this.after(this.timing.challengeExpiryMs, () => {
        // Never authenticated in time: the aggregator gives up on the charge, with its webhook.
        if (transaction.status !== 'pending' || challenge.state !== 'awaiting') return;
        challenge.state = 'expired';
        this.finish(transaction, { status: 'failed', code: 'CHARGE_TIMEOUT' });
        this.notify(transaction);
      });
    }
    return transaction;
  }

  /** The charge the aggregator numbers `flwRef` (validate-charge and the 3-D Secure page name it). */
  chargeByFlwRef(flwRef: string): FakeAggregatorTransaction | undefined {
    return [...this.kept.values()].find((t) => t.resource === 'collection' && t.flwRef === flwRef);
  }

  /**
   * The customer passed a card charge's challenge: successful now (3-D Secure) or, after an OTP, at
   * approveAfterMs as the default behaviour; one webhook when it is. False when no challenge awaits.
   */
  passChallenge(transaction: FakeAggregatorTransaction, when: 'now' | 'after_approval'): boolean {
    if (transaction.challenge?.state !== 'awaiting' || transaction.status !== 'pending') return false;
    transaction.challenge.state = 'passed';
    const complete = () => {
      if (transaction.status !== 'pending') return;
      this.finish(transaction, { status: 'successful' });
      this.notify(transaction);
    };
    if (when === 'now') complete();
    else this.after(this.timing.approveAfterMs, complete);
    return true;
  }

  /** The customer failed a card charge's challenge (a wrong OTP: INVALID_OTP; 3-D Secure cancelled: CUSTOMER_DECLINED): failed now, one webhook. */
  failChallenge(transaction: FakeAggregatorTransaction, state: 'failed' | 'cancelled', code: AggregatorErrorCode): boolean {
    if (transaction.challenge?.state !== 'awaiting' || transaction.status !== 'pending') return false;
    transaction.challenge.state = state;
    this.finish(transaction, { status: 'failed', code });
    this.notify(transaction);
    return true;
  }

  /** Makes a kept reference final now, whatever its behaviour; one webhook unless `webhook: false`. False when the fake does not know it. */
  settle(resource: RailResource, referenceId: string, final: FakeFinal, options: { webhook?: boolean } = {}): boolean {
    const transaction = this.get(resource, referenceId);
    if (!transaction) return false;
    this.finish(transaction, final);
    if (options.webhook !== false) this.notify(transaction);
    return true;
  }

  /**
   * The customer pays a bank-transfer charge still open (the fake's `POST /_fake/pay/{tx_ref}`): it
   * becomes successful (for one minor unit less with `0015`), with the webhooks its behaviour sends.
   */
  pay(referenceId: string): 'paid' | 'unknown' | 'not_payable' {
    const transaction = this.get('collection', referenceId);
    if (!transaction) return 'unknown';
    if (!transaction.instructions || transaction.status !== 'pending') return 'not_payable';
    this.finish(transaction, { status: 'successful' });
    const ending = endingOf(transaction.behaviour, this.timing, 'collection');
    this.deliver(transaction, ending.webhookDelaysMs.map((delay) => Math.max(0, delay - ending.finalAfterMs)));
    return 'paid';
  }

  private finish(transaction: FakeAggregatorTransaction, final: FakeFinal): void {
    transaction.completedAt = Date.now();
    if (final.status === 'successful') {
      transaction.status = 'successful';
      transaction.failure = null;
      // `0015`: the aggregator's record of the money is one minor unit short of what was asked.
      transaction.amount = transaction.behaviour === 'success_amount_minus_one' ? Math.max(0, transaction.askedAmount - 1) : transaction.askedAmount;
    } else {
      transaction.status = 'failed';
      const entry = Object.hasOwn(AGGREGATOR_ERRORS, final.code) ? AGGREGATOR_ERRORS[final.code as AggregatorErrorCode] : undefined;
      transaction.failure = { code: final.code, message: entry?.messages[0] ?? final.code };
      transaction.amount = transaction.askedAmount;
    }
  }

  private deliver(transaction: FakeAggregatorTransaction, delaysMs: number[]): void {
    for (const delay of delaysMs) this.after(delay, () => this.notify(transaction));
  }

  private after(ms: number, run: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      run();
    }, ms);
    timer.unref();
    this.timers.add(timer);
  }

  close(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }
}
