import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { ENCRYPTION_KEY_LENGTH } from '../card-crypto';
import type { AddressInfo } from 'node:net';
import type { RailProduct, RailResource } from '../../partner-rail';
import type { FakeLog } from '../../fake-partner/callbacks';
import { DEFAULT_LATE_PAYOUT_SUCCESS_MS, DEFAULT_LATE_SUCCESS_MS } from '../../fake-partner/behaviours';
import { listeningSwitch } from '../../fake-partner/listening';
import type { PartnerStatement } from '../../momo-statement';
import { DEFAULT_AGGREGATOR_TIMEOUT_MS, type AggregatorConfig } from '../config';
import { FakeBooks, copyOf, idCounter, type FakeAggregatorTransaction } from './books';
import type { FakeFinal } from './behaviours';
import type { RecordedAggregatorRequest, SentWebhook } from './recording';
import { fakeAggregatorHandler } from './server';
import { amendStatement, fakeStatement, type StatementAmendment } from './statement';
import { WebhookSender } from './webhooks';
import { completeChallenge } from './three-ds';

export type { FakeAggregatorTransaction } from './books';
export type { RecordedAggregatorRequest, SentWebhook } from './recording';
export type { FakeFinal } from './behaviours';
export { BEHAVIOUR_BY_SUFFIX, CARD_BEHAVIOUR_BY_SUFFIX, behaviourOf, cardBehaviourOf, refundBehaviourOf, type AggregatorBehaviour, type Behaviour, type CardBehaviour } from './behaviours';
export { FAKE_CARD_OTP } from './views';

/**
 * The fake aggregator: a small HTTP server playing the Flutterwave-modelled protocol
 * (docs/aggregator.md), started by the tests (and by `npm start` when no aggregator is configured,
 * src/runtime/live-aggregator.ts). What it plays is chosen by the last four digits of the party (the
 * MoMo fake's table, src/rail/fake-partner/behaviours.ts, and a card's own `0020` to `0023`); a
 * refund's by the payer of the charge it refunds. Cards: cards.ts (the encrypted charge, the OTP)
 * and three-ds.ts (its 3-D Secure page).
 */

export interface FakeAggregatorOptions {
  /** Default 0: a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** How long after acceptance a transaction becomes final, a bank transfer paid (default 1000 ms). */
  approveAfterMs?: number;
  /** How long a `0007` (slow) submission waits before its answer (default 12000 ms: past the adapter's default 10 s timeout). */
  slowMs?: number;
  /** When a `0009` (late) webhook is sent, after acceptance (default 5 × approveAfterMs). */
  lateCallbackMs?: number;
  /** When a `0012` charge becomes successful (default 2 h). */
  lateSuccessMs?: number;
  /** When a `0012` transfer or `0112` refund becomes successful (default 10 minutes). */
  latePayoutSuccessMs?: number;
  /** How long a bank-transfer charge's account stays open (default 30 minutes; `account_expiration`). */
  bankTransferExpiryMs?: number;
  /** How long a card charge's challenge (OTP, 3-D Secure) waits for the customer before the charge fails CHARGE_TIMEOUT (default 10 minutes). */
  challengeExpiryMs?: number;
  /** Whether the account takes cards (default true; false: `type=card` answers CARD_NOT_AVAILABLE). */
  cards?: boolean;
  /** The 24-character key card payloads are encrypted with (AGGREGATOR_ENCRYPTION_KEY; default: random, read back from `encryptionKey` or `config()`). */
  encryptionKey?: string;
  /** The secret key it takes (default: random, read back from `secretKey` or `config()`). */
  secretKey?: string;
  /** The webhook secret hash it sends as `verif-hash` (default: random). */
  webhookHash?: string;
  /** Where it sends webhooks (default none until setWebhookUrl). */
  webhookUrl?: string;
  /** Where it says what it does (refused calls, webhooks not delivered); never a secret. Default: silent. */
  log?: FakeLog;
  /** The aggregator's ids of its transactions (default: a counter from a random seven-digit start). */
  transactionIds?: () => number;
}

export interface FakeAggregator {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  secretKey: string;
  webhookHash: string;
  /** The card payloads' encryption key (AGGREGATOR_ENCRYPTION_KEY). */
  encryptionKey: string;
  /** An AggregatorConfig for the adapter, pointing at this fake, with its encryption key (timeout: `timeoutMs`, default DEFAULT_AGGREGATOR_TIMEOUT_MS). */
  config(overrides?: { timeoutMs?: number }): AggregatorConfig;
  /** Where webhooks go from now on (null: none sent). */
  setWebhookUrl(url: string | null): void;
  /**
   * Issue 46, the `partner_declining` fault: while on, every new charge (not a card's) and transfer is
   * refused at once with SERVICE_DECLINING (retry elsewhere) and nothing is kept; kept references answer as before.
   */
  setDeclining(on: boolean): void;
  /**
   * Issue 46, the `partner_down` fault: off, the port is closed (open connections closed, new ones
   * refused) while what the fake keeps stays in memory; on, it listens again on the same address.
   * Its own timers (approvals, callbacks or webhooks) go on meanwhile.
   */
  setListening(on: boolean): Promise<void>;
  /** Every request received, in order, secrets masked. */
  requests: RecordedAggregatorRequest[];
  /** Every webhook sent (once answered or failed). */
  webhooksSent: SentWebhook[];
  /** A copy of what the fake keeps of a reference of a resource (undefined: it does not know it). */
  transaction(resource: RailResource, referenceId: string): FakeAggregatorTransaction | undefined;
  /** Copies of every kept reference (of a product: a disbursement's are its transfers and refunds), in acceptance order: its books. */
  transactions(product?: RailProduct): FakeAggregatorTransaction[];
  /**
   * Makes a kept reference final now, whatever its behaviour (`{status: 'failed', code}` with an
   * error table code): one webhook unless `webhook: false`. False when the fake does not know it.
   */
  settle(resource: RailResource, referenceId: string, final: FakeFinal, options?: { webhook?: boolean }): boolean;
  /** The customer pays a bank-transfer charge still open (as `POST /_fake/pay/{tx_ref}`), with its behaviour's webhooks. */
  pay(txRef: string): 'paid' | 'unknown' | 'not_payable';
  /**
   * The customer completes a card charge's challenge, as its 3-D Secure page's buttons do:
   * `authenticate` (3-D Secure: successful now; an OTP challenge: as the right OTP, successful at
   * approveAfterMs), `cancel` (failed CUSTOMER_DECLINED); one webhook when final. `not_awaiting` for a
   * charge whose challenge is over or that has none.
   */
  completeChallenge(txRef: string, action: 'authenticate' | 'cancel'): 'done' | 'unknown' | 'not_awaiting';
  /** The statement of a product and UTC day, as its endpoint serves it. */
  statement(product: RailProduct, date: string): PartnerStatement;
  /** Amends a reference's line on the statements served from now, as the MoMo fake's (`omit`, `amount`, `currency`, `status`): a break to find. */
  amendStatement(product: RailProduct, referenceId: string, amendment: StatementAmendment): void;
  close(): Promise<void>;
}

export async function startFakeAggregator(options: FakeAggregatorOptions = {}): Promise<FakeAggregator> {
  const approveAfterMs = options.approveAfterMs ?? 1_000;
  const secretKey = options.secretKey ?? `FLWSECK_TEST-${randomBytes(16).toString('hex')}-X`;
  const webhookHash = options.webhookHash ?? randomBytes(24).toString('base64url');
  const encryptionKey = options.encryptionKey ?? `FLWSECK_TEST${randomBytes(6).toString('hex')}`;
  if (encryptionKey.length !== ENCRYPTION_KEY_LENGTH || Buffer.byteLength(encryptionKey) !== ENCRYPTION_KEY_LENGTH) throw new Error(`the fake aggregator's encryptionKey must be ${ENCRYPTION_KEY_LENGTH} ASCII characters`);
  const log: FakeLog = options.log ?? (() => {});
  let webhookUrl: string | null = options.webhookUrl ?? null;

  const webhooks = new WebhookSender(webhookHash, () => webhookUrl, log);
  const books = new FakeBooks(
    {
      approveAfterMs,
      lateCallbackMs: options.lateCallbackMs ?? 5 * approveAfterMs,
      lateSuccessMs: options.lateSuccessMs ?? DEFAULT_LATE_SUCCESS_MS,
      latePayoutSuccessMs: options.latePayoutSuccessMs ?? DEFAULT_LATE_PAYOUT_SUCCESS_MS,
      bankTransferExpiryMs: options.bankTransferExpiryMs ?? 30 * 60_000,
      challengeExpiryMs: options.challengeExpiryMs ?? 10 * 60_000,
    },
    (transaction) => void webhooks.send(transaction),
    options.transactionIds ?? idCounter(),
  );
  const requests: RecordedAggregatorRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let url = '';
  const cards = { enabled: options.cards ?? true, encryptionKey, baseUrl: () => url };
  const modes = { declining: false };
  const handler = fakeAggregatorHandler({ books, secretKey, slowMs: options.slowMs ?? 12_000, requests, log, timers, cards, modes });

  const server = http.createServer((req, res) => {
    handler(req, res).catch((error: unknown) => {
      log('fake aggregator: request failed', { error: (error as Error)?.message ?? String(error) });
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const listening = listeningSwitch(server, address.port, address.address);
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  url = `http://${host}:${address.port}`;
  log('fake aggregator listening', { url });

  return {
    url,
    secretKey,
    webhookHash,
    encryptionKey,
    config: (overrides = {}) => ({ baseUrl: url, secretKey, webhookHash, timeoutMs: overrides.timeoutMs ?? DEFAULT_AGGREGATOR_TIMEOUT_MS, encryptionKey }),
    setDeclining: (on) => {
      modes.declining = on;
    },
    setListening: async (on) => {
      await listening.set(on);
      log(on ? 'fake aggregator: listening again' : 'fake aggregator: port closed (the partner_down fault)', { url });
    },
    setWebhookUrl: (next) => {
      webhookUrl = next;
    },
    requests,
    webhooksSent: webhooks.sent,
    transaction: (resource, referenceId) => books.snapshot(resource, referenceId),
    transactions: (product) => books.all(product).map(copyOf),
    settle: (resource, referenceId, final, settleOptions) => books.settle(resource, referenceId, final, settleOptions),
    pay: (txRef) => books.pay(txRef),
    completeChallenge: (txRef, action) => {
      const charge = books.get('collection', txRef);
      if (!charge) return 'unknown';
      return completeChallenge(books, charge, action) ? 'done' : 'not_awaiting';
    },
    statement: (product, date) => fakeStatement(books, product, date),
    amendStatement: (product, referenceId, amendment) => amendStatement(books, product, referenceId, amendment),
    close: async () => {
      listening.release();
      books.close();
      webhooks.close();
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      const closed = new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}
