import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RailProduct, RailResource } from '../partner-rail';
import { DEFAULT_PARTNER_TIMEOUT_MS, DEFAULT_TARGET_ENVIRONMENT, type PartnerConfig } from '../partner-config';
import { FakeAuth, randomCredentials, type FakeCredentials } from './auth';
import { CallbackSender, type FakeLog } from './callbacks';
import type { RecordedRequest, SentCallback } from './recording';
import { fakePartnerHandler } from './server';
import { FakeTransactions, type FakeTransaction } from './transactions';
import { FakeStatements, type StatementAmendment } from './statement';
import { DEFAULT_LATE_PAYOUT_SUCCESS_MS, DEFAULT_LATE_SUCCESS_MS } from './behaviours';
import { listeningSwitch } from './listening';
import type { PartnerStatement, StatementLine } from '../momo-statement';

export type { FakeCredentials } from './auth';
export type { RecordedRequest, SentCallback } from './recording';
export type { FakeTransaction } from './transactions';
export { BEHAVIOUR_BY_SUFFIX, REFUND_BEHAVIOUR_PREFIX, behaviourOf, refundBehaviourOf, type Behaviour } from './behaviours';
export type { StatementAmendment } from './statement';

/**
 * The fake mobile-money partner: a small HTTP server playing the MoMo-modelled protocol
 * (docs/partner-rail.md), started by the tests and by `npm start` when no partner is configured.
 * What it plays is chosen by the party's partyId (src/rail/fake-partner/behaviours.ts); a refund's
 * by the payer of the request-to-pay it refunds (`…01NN` plays `00NN`), and it is checked against
 * that request-to-pay (src/rail/fake-partner/refunds.ts).
 */

export interface FakePartnerOptions {
  /** Default 0: a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** How long after acceptance a transaction becomes final (default 1000 ms). */
  approveAfterMs?: number;
  /** How long a `0007` (slow) submission waits before its 202 (default 8000 ms). */
  slowMs?: number;
  /** When a `0009` (late) callback is sent, after acceptance (default 5 × approveAfterMs). */
  lateCallbackMs?: number;
  /** When a `0012` request-to-pay becomes SUCCESSFUL, after acceptance (default 2 h: after any charge expiry the tests use). */
  lateSuccessMs?: number;
  /** When a `0012` transfer (or a `0112` refund) becomes SUCCESSFUL, after acceptance (default 10 minutes). */
  latePayoutSuccessMs?: number;
  /** The credentials it accepts (default: random ones, read back from `credentials`). */
  credentials?: Partial<FakeCredentials>;
  /** Its X-Target-Environment (default `sandbox`). */
  targetEnvironment?: string;
  /** Lifetime of its access tokens (default 3600 s). */
  tokenTtlSeconds?: number;
  /** Where it says what it does (refused calls, callbacks not delivered); never a secret. Default: silent. */
  log?: FakeLog;
  /** Its transaction ids of the payments it pays (default: random nine digits; the simulation's are seeded). */
  transactionIds?: () => string;
}

/** What the adapter needs to reach the fake, beside our own callback settings. */
export interface FakePartnerCredentials extends FakeCredentials {
  baseUrl: string;
  targetEnvironment: string;
}

export interface FakePartner {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  config: FakePartnerCredentials;
  /** A full PartnerConfig for the adapter, pointing at this fake (the same credentials for both products). */
  partnerConfig(ours: { callbackBaseUrl: string; callbackSecret: string; timeoutMs?: number }): PartnerConfig;
  /** Every request received, in order, secrets masked. */
  requests: RecordedRequest[];
  /** Every callback sent (once it was answered or failed), its URL's token masked. */
  callbacksSent: SentCallback[];
  /** A copy of what the fake keeps of a reference of a resource (`refund` for a refund; undefined: it does not know it). */
  transaction(resource: RailResource, referenceId: string): FakeTransaction | undefined;
  /**
   * A copy of every reference the fake keeps of a product, in acceptance order (what it paid, to whom,
   * how much): its books, as its statement lists them. A disbursement's are its transfers and its
   * refunds (issue 45), each with its `resource`; a refund's externalId is our refund's id (`re_…`).
   */
  transactions(product: RailProduct): FakeTransaction[];
  /** Every access token issued so far stops working (the next call gets a 401). */
  revokeTokens(): void;
  /**
   * Issue 46, the `partner_declining` fault: while on, every new request-to-pay and transfer is refused
   * at once with 400 COULD_NOT_PERFORM_TRANSACTION (retry elsewhere) and nothing is kept.
   */
  setDeclining(on: boolean): void;
  /**
   * Issue 46, the `partner_down` fault: off, the port is closed (open connections closed, new ones
   * refused) while what the fake keeps stays in memory; on, it listens again on the same address.
   * Its own timers (approvals, callbacks or webhooks) go on meanwhile.
   */
  setListening(on: boolean): Promise<void>;
  /**
   * Makes a kept reference final now, whatever its behaviour (a success after 24 h, an approval after
   * the charge's expiry, an approval in the last poll interval): one callback unless `callback: false`.
   * False when the fake does not know the reference.
   */
  settle(resource: RailResource, referenceId: string, final: { status: 'SUCCESSFUL' } | { status: 'FAILED'; reason: string }, options?: { callback?: boolean }): boolean;
  /** The statement of a product and UTC day, as its endpoint serves it (a disbursement's lists its refunds too). */
  statement(product: RailProduct, date: string): PartnerStatement;
  /** Changes a reference's statement line (a refund's: on `disbursement`): leave it out, or another currency, amount or status. */
  amendStatement(product: RailProduct, referenceId: string, amendment: StatementAmendment): void;
  /** Adds a statement line of a transaction we never sent (listed on the day of its `time`). */
  addStatementLine(product: RailProduct, line: StatementLine): void;
  close(): Promise<void>;
}

export async function startFakePartner(options: FakePartnerOptions = {}): Promise<FakePartner> {
  const approveAfterMs = options.approveAfterMs ?? 1_000;
  const slowMs = options.slowMs ?? 8_000;
  const lateCallbackMs = options.lateCallbackMs ?? 5 * approveAfterMs;
  const targetEnvironment = options.targetEnvironment ?? DEFAULT_TARGET_ENVIRONMENT;
  const credentials: FakeCredentials = { ...randomCredentials(), ...options.credentials };
  const log: FakeLog = options.log ?? (() => {});

  const auth = new FakeAuth(credentials, options.tokenTtlSeconds ?? 3_600);
  const callbacks = new CallbackSender(log);
  const lateSuccessMs = options.lateSuccessMs ?? DEFAULT_LATE_SUCCESS_MS;
  const latePayoutSuccessMs = options.latePayoutSuccessMs ?? DEFAULT_LATE_PAYOUT_SUCCESS_MS;
  const transactions = new FakeTransactions({ approveAfterMs, lateCallbackMs, lateSuccessMs, latePayoutSuccessMs }, (resource, referenceId, url, body) => callbacks.send(resource, referenceId, url, body), options.transactionIds);
  const requests: RecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const statements = new FakeStatements(transactions);
  const modes = { declining: false };
  const handler = fakePartnerHandler({ auth, transactions, statements, targetEnvironment, slowMs, requests, log, timers, modes });

  const server = http.createServer((req, res) => {
    handler(req, res).catch((error: unknown) => {
      log('fake partner: request failed', { error: (error as Error)?.message ?? String(error) });
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
  const url = `http://${host}:${address.port}`;
  const config: FakePartnerCredentials = { baseUrl: url, targetEnvironment, ...credentials };
  log('fake partner listening', { url, targetEnvironment });

  return {
    url,
    config,
    partnerConfig: (ours) => ({
      baseUrl: url,
      credentials: {
        collection: { apiUser: credentials.apiUser, apiKey: credentials.apiKey, subscriptionKey: credentials.subscriptionKey },
        disbursement: { apiUser: credentials.apiUser, apiKey: credentials.apiKey, subscriptionKey: credentials.subscriptionKey },
      },
      targetEnvironment,
      callbackBaseUrl: ours.callbackBaseUrl.replace(/\/+$/, ''),
      callbackSecret: ours.callbackSecret,
      timeoutMs: ours.timeoutMs ?? DEFAULT_PARTNER_TIMEOUT_MS,
    }),
    requests,
    callbacksSent: callbacks.sent,
    transaction: (resource, referenceId) => transactions.snapshot(resource, referenceId),
    transactions: (product) => transactions.all(product).map((t) => transactions.snapshot(t.resource, t.referenceId)!),
    revokeTokens: () => auth.revokeAll(),
    setDeclining: (on) => {
      modes.declining = on;
    },
    setListening: async (on) => {
      await listening.set(on);
      log(on ? 'fake partner: listening again' : 'fake partner: port closed (the partner_down fault)', { url });
    },
    settle: (resource, referenceId, final, settleOptions) => transactions.settle(resource, referenceId, final, settleOptions),
    statement: (product, date) => statements.statement(product, date),
    amendStatement: (product, referenceId, amendment) => statements.amend(product, referenceId, amendment),
    addStatementLine: (product, line) => statements.addLine(product, line),
    close: async () => {
      listening.release();
      transactions.close();
      callbacks.close();
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      const closed = new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}
