import { randomInt } from 'node:crypto';
import { productOfResource, type RailProduct, type RailResource } from '../partner-rail';
import type { MomoSubmission, MomoTransaction } from '../momo-protocol';
import { maskUrl } from './recording';
import { endingOf, type Behaviour, type Timing } from './behaviours';
import { formatMomoAmount, parseMomoAmount } from '../momo-amount';

/** A transaction the fake partner keeps (a copy is what the fake's `transaction()` returns). */
export interface FakeTransaction {
  /** What the reference names: a request-to-pay (`collection`), a transfer (`disbursement`) or a refund (`refund`, issue 45). */
  resource: RailResource;
  /** The partner product it belongs to (productOfResource): its statement; a refund is `disbursement`. */
  product: RailProduct;
  referenceId: string;
  behaviour: Behaviour;
  acceptedAt: number;
  /** When it became final (SUCCESSFUL or FAILED); undefined while PENDING. */
  completedAt?: number;
  /**
   * The status as a status GET answers it (and a callback carries it). A refund's also names its
   * `referenceIdToRefund` and, as `payee`, the payer of that request-to-pay (who gets the money back).
   */
  state: MomoTransaction;
  /** The amount it was asked for (`state.amount` until a behaviour changes the partner's record: `0015`). */
  askedAmount: string;
  /** The submission's X-Callback-Url (with its token: never logged or recorded), if any. */
  callbackUrl: string | undefined;
}

type Send = (resource: RailResource, referenceId: string, url: string, body: MomoTransaction) => Promise<void>;

/** The partner's own transaction id of a payment it paid: nine digits, random unless the fake was given a source (FakePartnerOptions.transactionIds). */
export function randomTransactionId(): string {
  return String(randomInt(100_000_000, 999_999_999));
}

/**
 * The references the fake keeps, per resource (request-to-pay, transfer, refund: one UUID under two
 * resources is two references), and their lifecycle: PENDING at acceptance, then the behaviour's ending at
 * approveAfterMs, and its callbacks. The timers are cleared by `close`.
 */
export class FakeTransactions {
  private readonly kept = new Map<string, FakeTransaction>();
  private readonly timers = new Set<NodeJS.Timeout>();
  /** References whose first submission got a 500 (behaviour `error_once`): not kept, only remembered. */
  private readonly failed = new Set<string>();

  constructor(
    private readonly timing: Timing,
    private readonly send: Send,
    private readonly financialTransactionId: () => string = randomTransactionId,
  ) {}

  private key(resource: RailResource, referenceId: string): string {
    return `${resource}:${referenceId.toLowerCase()}`;
  }

  get(resource: RailResource, referenceId: string): FakeTransaction | undefined {
    return this.kept.get(this.key(resource, referenceId));
  }

  /** For `error_once`: false the first time a reference is seen (it then answers 500), true after. */
  failedOnce(resource: RailResource, referenceId: string): boolean {
    const key = this.key(resource, referenceId);
    if (this.failed.has(key)) return true;
    this.failed.add(key);
    return false;
  }

  /** Every kept transaction of `product`, in acceptance order (the statement's source): a disbursement's are its transfers and its refunds. */
  all(product: RailProduct): FakeTransaction[] {
    return [...this.kept.values()].filter((t) => t.product === product);
  }

  /** The refunds kept of a request-to-pay, in acceptance order. */
  refundsOf(originalReferenceId: string): FakeTransaction[] {
    const original = originalReferenceId.toLowerCase();
    return [...this.kept.values()].filter((t) => t.resource === 'refund' && t.state.referenceIdToRefund?.toLowerCase() === original);
  }

  /**
   * Makes a kept transaction final now, whatever its behaviour planned (a test's knob: a success
   * after 24 h, an approval after the charge's expiry, an approval in the last poll interval without
   * a callback). Sends one callback unless `callback` is false. False when the reference is unknown.
   */
  settle(resource: RailResource, referenceId: string, final: { status: 'SUCCESSFUL' } | { status: 'FAILED'; reason: string }, options: { callback?: boolean } = {}): boolean {
    const transaction = this.get(resource, referenceId);
    if (!transaction) return false;
    this.finish(transaction, final);
    const url = transaction.callbackUrl;
    if (url && options.callback !== false) void this.send(resource, referenceId, url, transaction.state);
    return true;
  }

  private finish(transaction: FakeTransaction, final: { status: 'SUCCESSFUL' } | { status: 'FAILED'; reason: string }): void {
    transaction.completedAt = Date.now();
    transaction.state =
      final.status === 'SUCCESSFUL'
        ? { ...transaction.state, status: 'SUCCESSFUL', financialTransactionId: transaction.state.financialTransactionId ?? this.financialTransactionId() }
        : { ...transaction.state, status: 'FAILED', reason: final.reason };
    if (final.status === 'SUCCESSFUL' && transaction.behaviour === 'success_amount_minus_one') {
      // `0015`: the partner's record of the money is one minor unit short of what was asked.
      const minor = parseMomoAmount(transaction.state.amount, transaction.state.currency);
      if (minor !== undefined) transaction.state = { ...transaction.state, amount: formatMomoAmount(minor - 1, transaction.state.currency) };
    }
  }

  /** A copy, safe to compare before and after (the callback URL's token masked). */
  snapshot(resource: RailResource, referenceId: string): FakeTransaction | undefined {
    const found = this.get(resource, referenceId);
    return found ? { ...structuredClone(found), callbackUrl: found.callbackUrl && maskUrl(found.callbackUrl) } : undefined;
  }

  /** Keeps a new reference, PENDING, and starts its lifecycle. */
  accept(resource: RailResource, referenceId: string, behaviour: Behaviour, submission: MomoSubmission, callbackUrl: string | undefined): FakeTransaction {
    const product = productOfResource(resource);
    const transaction: FakeTransaction = { resource, product, referenceId, behaviour, acceptedAt: Date.now(), state: { ...submission, status: 'PENDING' }, askedAmount: submission.amount, callbackUrl };
    this.kept.set(this.key(resource, referenceId), transaction);
    const ending = endingOf(behaviour, this.timing, product);
    const { final, finalAfterMs } = ending;
    if (!final) return transaction;
    this.after(finalAfterMs, () => {
      // A test may have settled it by hand already (settle): its answer stands.
      if (transaction.state.status !== 'PENDING') return;
      this.finish(transaction, final);
      const url = transaction.callbackUrl;
      if (!url) return;
      for (const delay of ending.callbackDelaysMs) {
        this.after(Math.max(0, delay - finalAfterMs), () => void this.send(resource, referenceId, url, transaction.state));
      }
    });
    return transaction;
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
