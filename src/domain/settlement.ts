import type { Environment } from './environment';
import type { FailureClass } from './failure-classes';
import { COMPLETION_DELAY_MS } from './sandbox-outcome';

/**
 * Settlement batches (INTERFACE.md, "Money movement"): one batch moves one merchant's available
 * balance in one environment and currency to its settlement bank account. The batch workflow
 * (workflows/settlement.ts) owns every transition: `pending` (swept: the money is in transit, shown
 * in `reserved`) → `paid` | `failed` (the money returns to available).
 */
export const SETTLEMENT_STATUSES = ['pending', 'paid', 'failed'] as const;
export type SettlementStatus = (typeof SETTLEMENT_STATUSES)[number];

export function isTerminalSettlementStatus(status: SettlementStatus): boolean {
  return status !== 'pending';
}

/** One event per status: `settlement.created` (the sweep), `settlement.paid`, `settlement.failed`; dedupe key `<stl id>:<type>`. */
export type SettlementEventType = 'settlement.created' | 'settlement.paid' | 'settlement.failed';

export function settlementEventType(status: SettlementStatus): SettlementEventType {
  return status === 'pending' ? 'settlement.created' : `settlement.${status}`;
}

/** A batch as the system of record holds it: the camelCase of the `settlements` columns. */
export interface SettlementRecord {
  id: string;
  merchantId: string;
  environment: Environment;
  currency: string;
  status: SettlementStatus;
  amount: number;
  /** Ledger postings the batch swept (its own sweep posting not counted). */
  entryCount: number;
  /** When the sweep ran: the batch holds every available-balance posting committed before it. */
  periodEnd: string;
  destinationBankCode: string;
  /**
   * The account number sealed with SECRETS_KEY (copied from the merchant by the sweep; only a live
   * rail's payment activity would open it). Null only on a batch row from before migration
   * 20261125000005 whose plain number no worker start or `secrets reseal` has sealed yet.
   */
  destinationAccountSealed: string | null;
  /** The account number masked (its last four digits): all the API and events show. */
  destinationAccountMasked: string;
  paidAt: string | null;
  failureClass: FailureClass | null;
  runId: string | null;
  /** The sandbox switch of the start (`failed` or null; null on live). */
  sandboxOutcome: string | null;
  createdAt: string;
  updatedAt: string;
}

/**
 * What the batch workflow holds of a batch, and all that goes into its history (activity results,
 * queries, the run's result): no destination account.
 */
export interface SettlementState {
  kind: 'batch';
  id: string;
  merchantId: string;
  environment: Environment;
  currency: string;
  status: SettlementStatus;
  amount: number;
  entryCount: number;
  failureClass: FailureClass | null;
  sandboxOutcome: string | null;
  updatedAt: string;
}

/** The sweep found nothing to settle (no positive balance, no settlement account, an account in another currency): no batch was written. */
export interface SettlementNothing {
  kind: 'nothing';
  reason: string;
}

/** What a settlement batch workflow ends with (and what its sweep returns). */
export type SettlementOutcome = SettlementState | SettlementNothing;

export function settlementState(record: SettlementRecord): SettlementState {
  return {
    kind: 'batch',
    id: record.id,
    merchantId: record.merchantId,
    environment: record.environment,
    currency: record.currency,
    status: record.status,
    amount: record.amount,
    entryCount: record.entryCount,
    failureClass: record.failureClass,
    sandboxOutcome: record.sandboxOutcome,
    updatedAt: record.updatedAt,
  };
}

/** Reasons a sweep writes nothing (the workflow ends `{ kind: 'nothing', reason }`). */
export const NOTHING_TO_SETTLE = {
  noAccount: 'no settlement account',
  /** The merchant's settlement bank takes another currency than the batch's (a batch started by hand, or by a run from before the rule). */
  currencyMismatch: "settlement account currency mismatch: the merchant's settlement bank takes another currency than the batch",
  noBalance: 'no positive available balance',
  noMerchant: 'no such merchant',
  tooLarge: 'the available balance exceeds the largest single transfer (2^53 - 1 minor units)',
} as const;

/**
 * The sweep, as the workflow asks for it: the start, and `at` (workflow time). The sweep dates its
 * batch by the database instead, once it holds the balance row (src/persistence/settlements/settlement-store.ts);
 * `at` stays in the request, which recorded histories carry.
 */
export interface SettlementSweepRequest {
  settlementId: string;
  merchantId: string;
  environment: Environment;
  currency: string;
  outcome: 'failed' | null;
  runId: string | null;
  at: string;
}

/** The batch's end, as the workflow asks for it (`at` is workflow time). */
export interface SettlementTransitionRequest {
  settlementId: string;
  to: Exclude<SettlementStatus, 'pending'>;
  failureClass: FailureClass | null;
  at: string;
}

/** Failure class of a sandbox batch started with `outcome: 'failed'` (the simulated bank refused the transfer). */
export const SANDBOX_SETTLEMENT_FAILURE: FailureClass = 'declined';

/** What the payment step does with a batch. */
export type SettlementPlan = { kind: 'pay'; afterMs: number } | { kind: 'fail'; afterMs: number; failureClass: FailureClass } | { kind: 'fail_now'; failureClass: FailureClass };

/**
 * Sandbox: the simulator answers about three seconds after the sweep (a timer the sandbox `advance`
 * fires at once): paid, or failed (`declined`) when the start asked for `outcome: 'failed'`. Live:
 * no live rail exists, so a live batch fails at once with `partner_unavailable` and its money returns
 * to available.
 */
export function settlementPlan(environment: Environment, sandboxOutcome: string | null): SettlementPlan {
  if (environment === 'live') return { kind: 'fail_now', failureClass: 'partner_unavailable' };
  if (sandboxOutcome === 'failed') return { kind: 'fail', afterMs: COMPLETION_DELAY_MS, failureClass: SANDBOX_SETTLEMENT_FAILURE };
  return { kind: 'pay', afterMs: COMPLETION_DELAY_MS };
}

/** The public settlement object (API answers and event data). */
export interface SettlementView {
  id: string;
  object: 'settlement';
  status: SettlementStatus;
  amount: number;
  currency: string;
  entry_count: number;
  period_end: string;
  destination: { bank_code: string; account_masked: string };
  paid_at: string | null;
  failure_class?: FailureClass;
  livemode: boolean;
  created_at: string;
  updated_at: string;
  metadata: Record<string, never>;
}

export function settlementObject(record: SettlementRecord): SettlementView {
  return {
    id: record.id,
    object: 'settlement',
    status: record.status,
    amount: record.amount,
    currency: record.currency,
    entry_count: record.entryCount,
    period_end: record.periodEnd,
    destination: { bank_code: record.destinationBankCode, account_masked: record.destinationAccountMasked },
    paid_at: record.paidAt,
    ...(record.status === 'failed' && record.failureClass ? { failure_class: record.failureClass } : {}),
    livemode: record.environment === 'live',
    created_at: record.createdAt,
    updated_at: record.updatedAt,
    metadata: {},
  };
}

/** The body of API answers and the `data` of settlement events. */
export function settlementJson(record: SettlementRecord): string {
  return JSON.stringify(settlementObject(record));
}

/** One swept ledger posting (`GET /v1/settlements/{id}/entries`). */
export interface SettlementEntryRecord {
  transferId: string;
  kind: string;
  /** The resource whose transfer it is (a charge, payout, refund, dispute, an earlier settlement…). */
  resourceId: string;
  amount: number;
  createdAt: string;
}

export interface SettlementEntryView {
  object: 'settlement_entry';
  transfer_id: string;
  kind: string;
  source: string;
  amount: number;
  created_at: string;
}

export function settlementEntryObject(entry: SettlementEntryRecord): SettlementEntryView {
  return { object: 'settlement_entry', transfer_id: entry.transferId, kind: entry.kind, source: entry.resourceId, amount: entry.amount, created_at: entry.createdAt };
}

/**
 * What the failed batch tells an operator while its workflow waits for a retry (NeedsAttention;
 * `payments stuck`). Holds no account data.
 */
export function settlementFailureReason(state: Pick<SettlementState, 'id' | 'amount' | 'currency' | 'failureClass'>): string {
  return (
    `settlement ${state.id} failed (${state.failureClass ?? 'unknown'}): ${state.amount} ${state.currency} returned to available; ` +
    `check the merchant's settlement account, then retry: settlements retry ${state.id} --reason TEXT (a new batch sweeps the available balance again)`
  );
}
