import type { Environment } from './environment';

/**
 * A settlement run (issue 11, INTERFACE.md "Money movement"): the Schedule (SETTLEMENT_SCHEDULE) or
 * `settlements run` starts `settlementRunWorkflow`, which pages through every merchant, environment
 * and currency with a positive available balance and starts one batch (`settlementWorkflow`,
 * workflow id `stl_…`) for each, or records why it skipped one (`settlement_skips`).
 */
export const SETTLEMENT_RUN_WORKFLOW_TYPE = 'settlementRunWorkflow';

/** Why a balance was not settled: the merchant has no settlement account (`merchants set --settlement-bank --settlement-account`). */
export const NO_SETTLEMENT_ACCOUNT = 'no settlement account';

/**
 * Why a balance was not settled: the merchant's settlement bank (banks.currency, GET
 * /v1/reference/banks) takes another currency than the balance's. A merchant has one settlement
 * account, so only the balances in its currency are settled; the others stay available and are
 * skipped with this reason, detailed by settlementCurrencyMismatch (which names both currencies).
 */
export const SETTLEMENT_CURRENCY_MISMATCH = 'settlement account currency mismatch';

/**
 * The recorded reason of a currency mismatch: `settlement account currency mismatch: bank GCB takes
 * GHS, balance is NGN`. A bank code the banks reference does not know (no currency) reads `takes no
 * known currency`. Holds no account number.
 */
export function settlementCurrencyMismatch(bankCode: string, bankCurrency: string | null, balanceCurrency: string): string {
  return `${SETTLEMENT_CURRENCY_MISMATCH}: bank ${bankCode} takes ${bankCurrency ?? 'no known currency'}, balance is ${balanceCurrency}`;
}

/**
 * Why a live balance was not settled: no live rail exists (src/domain/live-rail.ts LIVE_RAIL is
 * 'none'), so a live batch could only fail at once and wait for an operator. The run skips live
 * balances instead, until a rail is connected; the money stays in live available.
 */
export const LIVE_RAIL_UNAVAILABLE = 'live rail unavailable: no live payment rail is connected yet; the money stays available';

/** Why a live balance is skipped while one of its batches has no final answer from the partner. */
export function unansweredBatchSkip(settlementId: string): string {
  return `live batch ${settlementId} has no final answer from the partner yet: its money may be on its way, so this balance is not swept again until the partner answers (or its statement does)`;
}

/** The start of a skip reason of a held balance (settlementAccountHoldSkip). */
export const SETTLEMENT_ACCOUNT_HOLD = 'settlement account changed';

/**
 * Why a live balance is skipped while the merchant's settlement account change is held (issue 43:
 * `merchants set` replaced the bank or number within SETTLEMENT_ACCOUNT_HOLD, default 24 h).
 */
export function settlementAccountHoldSkip(heldUntil: string): string {
  return `${SETTLEMENT_ACCOUNT_HOLD}: live settlements are held until ${heldUntil} (SETTLEMENT_ACCOUNT_HOLD), against account takeover; the money stays available`;
}

/** Balances read per page (one database step each), and pages per run before it continues as new. */
export const DEFAULT_RUN_PAGE_SIZE = 100;
export const DEFAULT_RUN_PAGES_PER_RUN = 10;
export const MAX_RUN_PAGE_SIZE = 1_000;
/** Batches and skips a run lists by name in its result (the counts cover them all). */
export const MAX_LISTED = 100;

/** One balance: the key the run pages by (merchant, environment, currency, in that order). */
export interface BalanceKey {
  merchantId: string;
  environment: Environment;
  currency: string;
}

export interface SkippedBalance extends BalanceKey {
  reason: string;
}

export interface StartedBatch extends BalanceKey {
  settlementId: string;
}

/** What one run (and its continuations) did so far; the result of the run. */
export interface SettlementRunTotals {
  started: number;
  skipped: number;
  pages: number;
  /** Continue-as-new hand-overs so far. */
  continuations: number;
  /** The first MAX_LISTED batches and skips. */
  batches: StartedBatch[];
  skips: SkippedBalance[];
}

export interface SettlementRunInput {
  /** Only this merchant's balances (`settlements run --merchant`). */
  merchantId?: string;
  /** Only this environment's balances (`settlements run --env`). */
  environment?: Environment;
  /** Sandbox batches only: `failed` makes their payment fail (`settlements run --outcome failed`). */
  outcome?: 'failed' | null;
  /** Continue-as-new: the last balance key handled; the next page starts after it. */
  after?: BalanceKey | null;
  /** Kept on every skip and batch; default: the run's workflow id. */
  runId?: string;
  /** Continue-as-new: what the earlier runs of this chain did. */
  totals?: SettlementRunTotals;
  /** Page size and pages per run (defaults above); tests set them small. */
  limits?: { pageSize?: number; pagesPerRun?: number };
}

export interface SettlementRunResult extends SettlementRunTotals {
  runId: string;
}

/** The input of one page step: the run's filters and where to start. */
export interface SettlementRunPageRequest {
  runId: string;
  after: BalanceKey | null;
  limit: number;
  merchantId?: string;
  environment?: Environment;
}

/**
 * One page of settleable balances, as the page step answers: those to start a batch for, those it
 * skipped (and recorded, with the reason), and the key to continue after (null: no more pages).
 */
export interface SettlementRunPage {
  settle: BalanceKey[];
  skipped: SkippedBalance[];
  next: BalanceKey | null;
}

export const EMPTY_TOTALS: SettlementRunTotals = { started: 0, skipped: 0, pages: 0, continuations: 0, batches: [], skips: [] };

/** Adds one page's batches and skips to the totals (lists capped at MAX_LISTED). */
export function addToTotals(totals: SettlementRunTotals, batches: StartedBatch[], skips: SkippedBalance[]): SettlementRunTotals {
  return {
    ...totals,
    started: totals.started + batches.length,
    skipped: totals.skipped + skips.length,
    pages: totals.pages + 1,
    batches: [...totals.batches, ...batches].slice(0, MAX_LISTED),
    skips: [...totals.skips, ...skips].slice(0, MAX_LISTED),
  };
}

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * A settlement id (`stl_` + 24 base62 characters) from random hex digits: in the run workflow, from
 * `uuid4()`, which is seeded by the workflow's history and so gives the same ids on replay. At
 * least 32 hex digits (two uuid4s give 60 random ones, more than the 143 bits the id holds).
 */
export function settlementIdFromHex(hex: string): string {
  const digits = hex.replace(/[^0-9a-f]/gi, '');
  if (digits.length < 32) throw new Error('settlementIdFromHex needs at least 32 hex digits');
  let n = BigInt(`0x${digits}`);
  let out = '';
  for (let i = 0; i < 24; i++) {
    out += ALPHABET[Number(n % 62n)];
    n /= 62n;
  }
  return `stl_${out}`;
}

/**
 * The queue of a batch in `environment`, from the queue its run runs on: every queue of a deployment
 * is named from its base (TEMPORAL_TASK_QUEUE) as `<base>-sandbox` / `<base>-live`
 * (src/temporal/task-queues.ts taskQueueFor; workflow code cannot import it), so sandbox batches go
 * to the sandbox queue and live ones to the live queue whichever queue the run is on. A run on the
 * legacy base queue takes that queue as the base.
 */
export function batchQueueFor(runQueue: string, environment: Environment): string {
  const base = runQueue.replace(/-(sandbox|live)$/, '');
  return `${base}-${environment}`;
}

/** The queue a run is started on: its environment's, and live's when it spans both (live work never waits behind a sandbox flood). */
export function runEnvironmentQueue(environment: Environment | undefined): Environment {
  return environment ?? 'live';
}
