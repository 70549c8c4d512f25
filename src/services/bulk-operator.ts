import type { Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/client';
import { SA } from '../domain/search-attributes';
import { paymentTypeOf } from '../domain/payment-types';
import { reviewedPaymentId } from '../domain/payment-review';
import { newId } from '../support/new-id';
import { runStateAccepts, type RunState } from './bulk-query';
import { breakdown, type Breakdown, type ListedPayment } from './bulk-selection';

export { bulkQuery } from './bulk-query';

/**
 * Bulk operator actions (`--query 'a Temporal list query'` instead of an id; issue 31, finding 1):
 * the same guarded path as one action, once per payment, on exactly the set a dry run showed.
 * - Without `--yes`, a dry run: the count, a breakdown by environment and merchant, the first 20
 *   rows, and a token (`opsel_…`, an hour) naming that set; nothing changes.
 * - `--yes --token opsel_…` (with `--ids-file PATH`: the part of them the file names) acts on those ids only, one at a
 *   time at a bounded rate (BULK_ACTIONS_PER_SECOND, default 5), each re-checked first against the
 *   query and the run state (`refused: no longer matches the dry run's query` otherwise), each with
 *   its own audit row, all with one batch id (`opb_…`, `audit list --batch`).
 * The orchestration is in bulk-run.ts; the rules in bulk-selection.ts.
 */

/** Rows a dry run shows. */
export const DRY_RUN_ROWS = 20;
export const DEFAULT_BULK_RATE = 5;
/** What an id dropped before its action is told. */
export const NO_LONGER_MATCHES = "refused: no longer matches the dry run's query";

export function bulkRate(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.BULK_ACTIONS_PER_SECOND;
  if (raw === undefined || raw === '') return DEFAULT_BULK_RATE;
  const rate = Number(raw);
  if (!Number.isFinite(rate) || rate <= 0 || rate > 100) throw new Error(`BULK_ACTIONS_PER_SECOND must be a number from 0 to 100, got "${raw}"`);
  return rate;
}

export type SelectedPayment = ListedPayment;

/**
 * Every payment workflow the query matches, oldest first; other workflows are left out. A list query
 * matches runs: a workflow is selected when its latest run matches (an older run of a reversed
 * payment, still `succeeded` in visibility, does not select it), as `stillSelected` checks later.
 */
export async function selectPayments(client: Client, query: string, state: RunState, options: { reviews?: boolean } = {}): Promise<SelectedPayment[]> {
  const byId = new Map<string, SelectedPayment & { started: number; runId: string }>();
  for await (const wf of client.workflow.list({ query })) {
    const type = listedTypeOf(wf.workflowId, options.reviews === true);
    if (!type) continue;
    const known = byId.get(wf.workflowId);
    if (known && known.started >= wf.startTime.getTime()) continue; // keep the latest matching run
    const sa = wf.typedSearchAttributes;
    byId.set(wf.workflowId, {
      id: wf.workflowId,
      type,
      status: sa.get(SA.PaymentStatus) ?? null,
      merchant_id: sa.get(SA.MerchantId) ?? null,
      environment: sa.get(SA.Environment) ?? null,
      needs_attention: sa.get(SA.NeedsAttention) ?? false,
      needs_attention_reason: sa.get(SA.NeedsAttentionReason) ?? null,
      workflow_status: wf.status.name,
      started: wf.startTime.getTime(),
      runId: wf.runId,
    });
  }
  const rows = [...byId.values()].sort((a, b) => a.started - b.started || a.id.localeCompare(b.id));
  // A running run is its workflow's latest; a closed one may have been followed by another (a reversal's).
  const latest = state === 'running' ? rows : await filterLatest(client, rows);
  return latest.map(({ started: _, runId: __, ...row }) => row);
}

/**
 * The type a listing shows for a workflow id: a payment's, or `review` for a payment review
 * (`review-<payment id>`) when the command acts on reviews (`payments settle-late|review-close`: issue
 * 43, their bulk form selected none); null for any other workflow.
 */
export function listedTypeOf(workflowId: string, reviews: boolean): string | null {
  const type = paymentTypeOf(workflowId);
  if (type) return type;
  const reviewed = reviews ? reviewedPaymentId(workflowId) : null;
  return reviewed !== null && paymentTypeOf(reviewed) !== null ? 'review' : null;
}

async function filterLatest<T extends { id: string; runId: string }>(client: Client, rows: T[]): Promise<T[]> {
  const kept: T[] = [];
  for (const row of rows) {
    const current = await client.workflow.getHandle(row.id).describe();
    if (current.runId === row.runId) kept.push(row);
  }
  return kept;
}

/**
 * Whether payment `id` still belongs to the set just before its action: its latest run is in the
 * command's run state, of `merchantId` (when given), and matched by `query` (the query as the dry run
 * ran it). Null when it is; else why not. `id` is a checked payment id (no quote can reach the query).
 */
export async function stillSelected(client: Client, query: string, id: string, merchantId: string | null, state: RunState): Promise<string | null> {
  let latest;
  try {
    latest = await client.workflow.getHandle(id).describe();
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return `${NO_LONGER_MATCHES} (no workflow ${id})`;
    throw error;
  }
  if (!runStateAccepts(state, latest.status.name)) return `${NO_LONGER_MATCHES} (its workflow is ${latest.status.name})`;
  const merchant = latest.typedSearchAttributes.get(SA.MerchantId) ?? null;
  if (merchantId !== null && merchant !== merchantId) return `${NO_LONGER_MATCHES} (its merchant is ${merchant ?? 'none'})`;
  for await (const wf of client.workflow.list({ query: `WorkflowId = '${id}' AND RunId = '${latest.runId}' AND ${query}`, pageSize: 1 })) {
    if (wf.workflowId === id && wf.runId === latest.runId) return null;
  }
  return NO_LONGER_MATCHES;
}

export interface DryRun extends Breakdown {
  dry_run: true;
  action: string;
  query: string;
  count: number;
  /** Live payments in the set: `--yes` of a money-moving command needs `--expect` this number. */
  live: number;
  first: SelectedPayment[];
  token: string;
  token_expires_at: string;
  /** Where `--save-ids` wrote the ids. */
  ids_file?: string;
  /** Listed by the query but left out of the set, with why (charges retry: payments waiting for the partner); the first DRY_RUN_ROWS. */
  skipped?: { count: number; first: Array<{ id: string; why: string }> };
  apply_with: string;
}

export function dryRun(
  action: string,
  query: string,
  selected: SelectedPayment[],
  token: { token: string; expiresAt: Date; needsExpect: boolean },
  idsFile?: string,
  skipped: ReadonlyArray<{ id: string; why: string }> = [],
): DryRun {
  const live = selected.filter((p) => p.environment === 'live').length;
  const expect = token.needsExpect && live > 0 ? ` --expect ${live}` : '';
  return {
    dry_run: true,
    action,
    query,
    count: selected.length,
    live,
    ...breakdown(selected),
    first: selected.slice(0, DRY_RUN_ROWS),
    token: token.token,
    token_expires_at: token.expiresAt.toISOString(),
    ...(idsFile ? { ids_file: idsFile } : {}),
    ...(skipped.length > 0 ? { skipped: { count: skipped.length, first: skipped.slice(0, DRY_RUN_ROWS) } } : {}),
    apply_with: `${action} --yes --token ${token.token}${expect} with the same options (acts on these ${selected.length} only, once, until ${token.expiresAt.toISOString()})${idsFile ? `; add --ids-file ${idsFile} once shortened to act on fewer` : ''}`,
  };
}

export type BulkResult = { id: string; ok: true } | { id: string; ok: false; error: string };

export interface BulkOutcome {
  dry_run: false;
  action: string;
  query: string;
  batch_id: string;
  /** The token or ids file the set came from. */
  token?: string;
  ids_file?: string;
  count: number;
  succeeded: number;
  failed: number;
  /** Of `failed`: dropped before the action because they no longer match (never acted on). */
  no_longer_matching: number;
  results: BulkResult[];
}

export interface BulkRun {
  action: string;
  query: string;
  ids: readonly string[];
  batchId?: string;
  /** Why `id` must not be acted on now, or null (run just before its action). */
  recheck: (id: string) => Promise<string | null>;
  act: (id: string, batchId: string) => Promise<unknown>;
  perSecond: number;
}

/**
 * Applies `act` to each id, one at a time, at most `perSecond` a second, all under one batch id.
 * Before each, `recheck`: an id that no longer matches is reported and never acted on. A refusal
 * (the action no longer applies) is recorded and the run goes on.
 */
export async function applyInBulk(run: BulkRun): Promise<BulkOutcome> {
  const batchId = run.batchId ?? newId('operatorBatch');
  const gapMs = 1000 / run.perSecond;
  const results: BulkResult[] = [];
  let noLongerMatching = 0;
  let nextAt = Date.now();
  for (const id of run.ids) {
    const wait = nextAt - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    nextAt = Date.now() + gapMs;
    try {
      const refusal = await run.recheck(id);
      if (refusal) {
        noLongerMatching++;
        results.push({ id, ok: false, error: refusal });
        continue;
      }
      await run.act(id, batchId);
      results.push({ id, ok: true });
    } catch (error) {
      results.push({ id, ok: false, error: error instanceof Error ? error.message : String(error) });
    }
  }
  const succeeded = results.filter((r) => r.ok).length;
  return {
    dry_run: false,
    action: run.action,
    query: run.query,
    batch_id: batchId,
    count: run.ids.length,
    succeeded,
    failed: run.ids.length - succeeded,
    no_longer_matching: noLongerMatching,
    results,
  };
}
