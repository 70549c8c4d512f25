import { workflowDetails } from '../src/domain/workflow-details';
import { ApplicationFailure, continueAsNew, defineQuery, log, ParentClosePolicy, setCurrentDetails, setHandler, startChild, uuid4, workflowInfo } from '@temporalio/workflow';
import { ENVIRONMENTS } from '../src/domain/environment';
import {
  addToTotals,
  batchQueueFor,
  DEFAULT_RUN_PAGE_SIZE,
  DEFAULT_RUN_PAGES_PER_RUN,
  EMPTY_TOTALS,
  MAX_RUN_PAGE_SIZE,
  settlementIdFromHex,
  type BalanceKey,
  type SettlementRunInput,
  type SettlementRunResult,
  type StartedBatch,
} from '../src/domain/settlement-run';
import { settlementStartSearchAttributePairs } from '../src/domain/settlement-search-attributes';
import { SETTLEMENT_WORKFLOW_TYPE, type SettlementStart } from '../src/domain/settlement-start';
import { attentionDesk } from './charge-attention';
import { settlementRunPage } from './settlement-run-activities';
import type { settlementWorkflow } from './settlement';

/** Error type of a run refused at its start (malformed input); nothing is read or started. */
export const SETTLEMENT_RUN_INPUT_REFUSED = 'SettlementRunInputRefused';

/** What the run (this chain of runs) did so far: `temporal workflow query --type settlementRun`. */
export const settlementRunQuery = defineQuery<SettlementRunResult>('settlementRun');

/**
 * One settlement run: a batch (`settlementWorkflow`) for every merchant, environment and currency
 * with a positive available balance. Started by the Schedule (src/temporal/settlement-schedule.ts,
 * input `{}`) or by `settlements run` (filters: merchant, environment; sandbox outcome).
 *
 * 1. Page (local activity, one transaction; src/persistence/settlements/settlement-balances.ts): the next
 *    settleable balances after the last key (merchant, environment, currency), 100 by default. The
 *    balances of merchants without a settlement account, and live balances while no live rail
 *    exists (src/domain/live-rail.ts), are skipped there: recorded with the reason in
 *    settlement_skips (and logged by the worker), never started. The page step decides, not this
 *    code, so recorded histories replay unchanged.
 * 2. For each other balance, a child `settlementWorkflow` with workflow id `stl_` + 24 base62
 *    characters from `uuid4()` (seeded by the history: the same ids on replay), input SettlementStart,
 *    search attributes MerchantId, Environment, Currency (NeedsAttention false), on the queue of the
 *    balance's environment (sandbox batches on `<base>-sandbox`, live on `<base>-live`), parent close
 *    policy ABANDON: the batch goes on whatever becomes of the run. The run waits for the starts
 *    only, not for the batches.
 * 3. After DEFAULT_RUN_PAGES_PER_RUN pages, or earlier when the server suggests it, the run continues
 *    as new with the last key and its totals, so 100,000 merchants never go into one history.
 *
 * Two runs at once (the Schedule and `settlements run`, or a run repeated after a crash) may start two
 * batches for one balance; the batch's sweep locks the balance row and marks every swept posting, so
 * the second finds nothing and ends without a batch: money moves once. Result and query: the counts,
 * and the first 100 batches and skips.
 */
/**
 * The page step is safe to repeat, so a run whose page step gave up fails (NeedsAttention, the
 * reason as its failure) and the next tick of the Schedule starts afresh. Runs recorded before
 * waited for `retryStep` with no timer, and held the Schedule (overlap SKIP) until someone came.
 */
export const SETTLEMENT_RUN_FAILS_ON_GIVE_UP_PATCH = 'settlement-run-fails-on-give-up';
export const SETTLEMENT_RUN_GAVE_UP = 'SettlementRunGaveUp';

export async function settlementRunWorkflow(input: SettlementRunInput = {}): Promise<SettlementRunResult> {
  const problem = inputProblem(input);
  if (problem) throw ApplicationFailure.create({ type: SETTLEMENT_RUN_INPUT_REFUSED, message: `settlement run refused: ${problem}`, nonRetryable: true });
  const runId = input.runId ?? workflowInfo().workflowId;
  const pageSize = input.limits?.pageSize ?? DEFAULT_RUN_PAGE_SIZE;
  const pagesPerRun = input.limits?.pagesPerRun ?? DEFAULT_RUN_PAGES_PER_RUN;
  let totals = input.totals ?? EMPTY_TOTALS;
  let after: BalanceKey | null = input.after ?? null;
  setHandler(settlementRunQuery, () => ({ runId, ...totals }));
  const desk = attentionDesk(workflowInfo().workflowId);

  for (let page = 1; ; page++) {
    setCurrentDetails(`page ${totals.pages + 1}: reading up to ${pageSize} settleable balances${after ? ` after ${keyText(after)}` : ''}; ${totals.started} batches started, ${totals.skipped} skipped so far`);
    const found = await desk.persist(
      'settlement run page',
      () => settlementRunPage({ runId, after, limit: pageSize, ...(input.merchantId !== undefined ? { merchantId: input.merchantId } : {}), ...(input.environment ? { environment: input.environment } : {}) }),
      { failRunOnGiveUp: { type: SETTLEMENT_RUN_GAVE_UP, patch: SETTLEMENT_RUN_FAILS_ON_GIVE_UP_PATCH, next: 'the run failed; the next scheduled run starts afresh (or: settlements run)' } },
    );
    const batches = await Promise.all(found.settle.map((balance) => startBatch(balance, runId, input.outcome ?? null)));
    totals = addToTotals(totals, batches, found.skipped);
    if (!found.next) break;
    after = found.next;
    if (page >= pagesPerRun || workflowInfo().continueAsNewSuggested) {
      setCurrentDetails(`continuing as new after ${keyText(after)}: ${totals.started} batches started, ${totals.skipped} skipped so far`);
      return continueAsNew<typeof settlementRunWorkflow>({ ...input, runId, after, totals: { ...totals, continuations: totals.continuations + 1 } });
    }
  }
  setCurrentDetails(`finished: ${totals.started} batches started, ${totals.skipped} skipped (${totals.pages} pages)`);
  return { runId, ...totals };
}

/** Starts one batch (the start only: the run never waits for a batch's result). */
async function startBatch(balance: BalanceKey, runId: string, outcome: 'failed' | null): Promise<StartedBatch> {
  // Two uuid4s, taken in page order before any await: deterministic on replay.
  const settlementId = settlementIdFromHex(uuid4() + uuid4());
  const start: SettlementStart = { settlementId, ...balance, outcome: balance.environment === 'sandbox' ? outcome : null, runId };
  const child = await startChild<typeof settlementWorkflow>(SETTLEMENT_WORKFLOW_TYPE, {
    workflowId: settlementId,
    taskQueue: batchQueueFor(workflowInfo().taskQueue, balance.environment),
    args: [start],
    parentClosePolicy: ParentClosePolicy.ABANDON,
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
    typedSearchAttributes: settlementStartSearchAttributePairs(balance),
    staticSummary: `${balance.environment} settlement batch ${balance.currency} for ${balance.merchantId} (run ${runId})`,
    staticDetails: workflowDetails({ kind: 'Settlement batch', id: settlementId, merchantId: balance.merchantId, environment: balance.environment, currency: balance.currency, extra: { run: runId } }),
  });
  // A batch that ends while the run is still open reports back; its failure is the batch's business
  // (NeedsAttention on the batch), not the run's.
  child.result().catch((error: unknown) => log.warn('settlement batch failed', { settlementId, error: error instanceof Error ? error.message : String(error) }));
  return { settlementId, ...balance };
}

const keyText = (key: BalanceKey) => `${key.merchantId}/${key.environment}/${key.currency}`;

function inputProblem(input: SettlementRunInput): string | null {
  if (typeof input !== 'object' || input === null) return 'the input must be an object';
  if (input.merchantId !== undefined && typeof input.merchantId !== 'string') return 'merchantId must be a string';
  if (input.environment !== undefined && !(ENVIRONMENTS as readonly unknown[]).includes(input.environment)) return 'environment must be sandbox or live';
  if (input.outcome != null && input.outcome !== 'failed') return 'outcome must be "failed" or null';
  if (input.outcome === 'failed' && input.environment === 'live') return 'outcome is a sandbox control: not with environment live';
  const { pageSize, pagesPerRun } = input.limits ?? {};
  if (pageSize !== undefined && !(Number.isInteger(pageSize) && pageSize >= 1 && pageSize <= MAX_RUN_PAGE_SIZE)) return `limits.pageSize must be an integer from 1 to ${MAX_RUN_PAGE_SIZE}`;
  if (pagesPerRun !== undefined && !(Number.isInteger(pagesPerRun) && pagesPerRun >= 1)) return 'limits.pagesPerRun must be a positive integer';
  return null;
}
