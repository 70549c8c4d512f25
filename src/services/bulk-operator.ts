import type { Client } from '@temporalio/client';
import { isIdOf } from '../domain/ids';
import { SA } from '../domain/search-attributes';
import { newId } from '../support/new-id';
import { paymentTypeOf } from '../domain/payment-types';

/**
 * Bulk operator actions (`--query 'a Temporal list query'` instead of an id): the same guarded path
 * as one action, once per payment. Without `--yes` a dry run: the count and the first 20 rows, and
 * nothing changes. With `--yes`: one action at a time at a bounded rate (BULK_ACTIONS_PER_SECOND,
 * default 5), each with its own audit row, all with one batch id (`opb_…`, `audit list --batch`).
 * `--merchant` limits the query to that merchant's payments.
 */

/** Rows a dry run shows. */
export const DRY_RUN_ROWS = 20;
export const DEFAULT_BULK_RATE = 5;

export function bulkRate(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.BULK_ACTIONS_PER_SECOND;
  if (raw === undefined || raw === '') return DEFAULT_BULK_RATE;
  const rate = Number(raw);
  if (!Number.isFinite(rate) || rate <= 0 || rate > 100) throw new Error(`BULK_ACTIONS_PER_SECOND must be a number from 0 to 100, got "${raw}"`);
  return rate;
}

/** The list query of a bulk action: the operator's, narrowed to one merchant when asked. */
export function bulkQuery(query: string, merchantId?: string): string {
  const trimmed = query.trim();
  if (!trimmed) throw new Error('--query must not be empty');
  if (merchantId === undefined) return trimmed;
  if (!isIdOf('merchant', merchantId)) throw new Error('--merchant must be a merchant id (mer_…)');
  return `(${trimmed}) AND ${SA.MerchantId.name} = '${merchantId}'`;
}

export interface SelectedPayment {
  id: string;
  type: string;
  status: string | null;
  merchant_id: string | null;
  environment: string | null;
  needs_attention: boolean;
  workflow_status: string;
}

/** Every payment workflow the query matches (its latest run), oldest first; other workflows are left out. */
export async function selectPayments(client: Client, query: string): Promise<SelectedPayment[]> {
  const byId = new Map<string, SelectedPayment & { started: number }>();
  for await (const wf of client.workflow.list({ query })) {
    const type = paymentTypeOf(wf.workflowId);
    if (!type) continue;
    const known = byId.get(wf.workflowId);
    if (known && known.started >= wf.startTime.getTime()) continue; // list queries return runs: keep the latest
    const sa = wf.typedSearchAttributes;
    byId.set(wf.workflowId, {
      id: wf.workflowId,
      type,
      status: sa.get(SA.PaymentStatus) ?? null,
      merchant_id: sa.get(SA.MerchantId) ?? null,
      environment: sa.get(SA.Environment) ?? null,
      needs_attention: sa.get(SA.NeedsAttention) ?? false,
      workflow_status: wf.status.name,
      started: wf.startTime.getTime(),
    });
  }
  return [...byId.values()].sort((a, b) => a.started - b.started || a.id.localeCompare(b.id)).map(({ started: _, ...row }) => row);
}

export interface DryRun {
  dry_run: true;
  action: string;
  query: string;
  count: number;
  first: SelectedPayment[];
  apply_with: string;
}

export function dryRun(action: string, query: string, selected: SelectedPayment[]): DryRun {
  return { dry_run: true, action, query, count: selected.length, first: selected.slice(0, DRY_RUN_ROWS), apply_with: 'the same command with --yes' };
}

export interface BulkOutcome {
  dry_run: false;
  action: string;
  query: string;
  batch_id: string;
  count: number;
  succeeded: number;
  failed: number;
  results: Array<{ id: string; ok: true } | { id: string; ok: false; error: string }>;
}

/**
 * Applies `act` to each selected payment, one at a time, at most `perSecond` a second, all under one
 * batch id. A refusal (the action no longer applies) is recorded and the run goes on.
 */
export async function applyInBulk(
  action: string,
  query: string,
  selected: SelectedPayment[],
  act: (id: string, batchId: string) => Promise<unknown>,
  perSecond: number,
): Promise<BulkOutcome> {
  const batchId = newId('operatorBatch');
  const gapMs = 1000 / perSecond;
  const results: BulkOutcome['results'] = [];
  let nextAt = Date.now();
  for (const payment of selected) {
    const wait = nextAt - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    nextAt = Date.now() + gapMs;
    try {
      await act(payment.id, batchId);
      results.push({ id: payment.id, ok: true });
    } catch (error) {
      results.push({ id: payment.id, ok: false, error: error instanceof Error ? error.message : String(error) });
    }
  }
  const succeeded = results.filter((r) => r.ok).length;
  return { dry_run: false, action, query, batch_id: batchId, count: selected.length, succeeded, failed: selected.length - succeeded, results };
}
