import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { LIVE_PARTNER_RAIL_PATCH, PARTNER_WORD_PATCH } from '../domain/live-rail';
import { CHARGE_PATCHES_AS_ONE_PATCH, CHARGE_PATCHES_IN_ONE } from '../../workflows/charge-patches';
import { PAYOUT_PATCHES_AS_ONE_PATCH, PAYOUT_PATCHES_IN_ONE } from '../../workflows/patches-at-start';
import type { ChangeActor } from '../domain/operator-action';
import { SA } from '../domain/search-attributes';
import type { Orm } from '../persistence/orm';
import { openPaymentReview } from './review-open';

/**
 * `payments old-shape` (issue 43, finding 5): the open live runs of the old shape, at deploy. A live
 * payout, settlement batch or charge whose run took its rail before PARTNER_WORD_PATCH
 * (`partner-word-only`) replays that way for good: its code fails it and releases its money at its
 * 24 h deadline (a charge: expires it at expires_at) without the partner's word. The status gate
 * (src/persistence/payment-gate.ts) refuses that end, so the money stays reserved, but the run then
 * fails (payouts, charges) or waits for a retry (batches) and nothing asks the partner any more.
 * This lists them, and with `--yes` starts a watching payment review for each (`review-<id>`,
 * audited as `payments review-open`), which asks the partner until its word and stays flagged.
 *
 * A run is listed when its history (the MarkerRecorded events of `patched()`, read from the server,
 * not the TemporalChangeVersion search attribute, which the SDK sets only on some servers and
 * versions) has no `partner-word-only` marker. `at_rail`: it has the `live-partner-rail` marker, so
 * it decided its rail without `partner-word-only` (the old path for sure). A run without either has
 * not reached its rail yet: on a worker of this code it would take the new path there, but a run
 * pinned to an older build (Worker Versioning) keeps that build's code, so it is listed too.
 */

/** The workflow types of live money that had an old shape. */
export const OLD_SHAPE_TYPES = ['payoutWorkflow', 'settlementWorkflow', 'chargeWorkflow'] as const;

export interface OldShapeRun {
  id: string;
  run_id: string;
  type: string;
  merchant_id: string | null;
  started_at: string;
  /** It decided its rail without `partner-word-only`: its code ends it at a deadline. */
  at_rail: boolean;
}

/** The `patched()` ids a history's markers record (core_patch markers: their details name the id). */
export function patchIdsOf(history: temporal.api.history.v1.IHistory): Set<string> {
  const ids = new Set<string>();
  for (const event of history.events ?? []) {
    const marker = event.markerRecordedEventAttributes;
    if (marker?.markerName !== 'core_patch') continue;
    for (const payloads of Object.values(marker.details ?? {})) {
      for (const payload of payloads.payloads ?? []) {
        const text = Buffer.from(payload.data ?? []).toString('utf8');
        try {
          const parsed = JSON.parse(text) as { id?: unknown; patch_id?: unknown } | string;
          const id = typeof parsed === 'string' ? parsed : (parsed.id ?? parsed.patch_id);
          if (typeof id === 'string') ids.add(id);
        } catch {
          // Not JSON: the id as it stands.
          if (text) ids.add(text);
        }
      }
    }
  }
  return ids;
}

/** Whether a live run of this history is of the old shape (no partner-word-only marker), and whether it took its rail so. Null when it is not. */
export function oldShapeOf(history: temporal.api.history.v1.IHistory): { at_rail: boolean } | null {
  const ids = withPatchesInOne(patchIdsOf(history));
  if (ids.has(PARTNER_WORD_PATCH)) return null;
  return { at_rail: ids.has(LIVE_PARTNER_RAIL_PATCH) };
}

/** Issue 48: a run's one as-one marker stands for every patch in its set (workflows/charge-patches.ts, patches-at-start.ts). */
function withPatchesInOne(ids: Set<string>): Set<string> {
  const all = new Set(ids);
  if (ids.has(CHARGE_PATCHES_AS_ONE_PATCH)) for (const id of CHARGE_PATCHES_IN_ONE) all.add(id);
  if (ids.has(PAYOUT_PATCHES_AS_ONE_PATCH)) for (const id of PAYOUT_PATCHES_IN_ONE) all.add(id);
  return all;
}

const QUERY_LIMIT = 2_000;

/** The list query: running live payouts, settlement batches and charges, narrowed by the operator's query. */
export function oldShapeQuery(operatorQuery?: string): string {
  const base = `ExecutionStatus = 'Running' AND Environment = 'live' AND WorkflowType IN (${OLD_SHAPE_TYPES.map((t) => `'${t}'`).join(', ')})`;
  const narrowed = operatorQuery?.trim();
  if (narrowed !== undefined && narrowed.length > QUERY_LIMIT) throw new Error(`--query is longer than ${QUERY_LIMIT} characters`);
  return narrowed ? `${base} AND (${narrowed})` : base;
}

/** The open live runs of the old shape the query selects, oldest first; `checked`: how many open live runs were read. */
export async function listOldShapeRuns(client: Client, operatorQuery?: string): Promise<{ query: string; checked: number; runs: OldShapeRun[] }> {
  const query = oldShapeQuery(operatorQuery);
  const open: Array<{ id: string; runId: string; type: string; merchantId: string | null; started: Date }> = [];
  for await (const wf of client.workflow.list({ query })) {
    open.push({ id: wf.workflowId, runId: wf.runId, type: wf.type, merchantId: wf.typedSearchAttributes.get(SA.MerchantId) ?? null, started: wf.startTime });
  }
  const runs: OldShapeRun[] = [];
  // A few histories at a time: a deploy's open live runs may be many.
  for (let i = 0; i < open.length; i += 8) {
    const checked = await Promise.all(
      open.slice(i, i + 8).map(async (wf) => {
        const shape = oldShapeOf(await client.workflow.getHandle(wf.id, wf.runId).fetchHistory());
        return shape && { id: wf.id, run_id: wf.runId, type: wf.type, merchant_id: wf.merchantId, started_at: wf.started.toISOString(), at_rail: shape.at_rail };
      }),
    );
    for (const run of checked) if (run) runs.push(run);
  }
  runs.sort((a, b) => a.started_at.localeCompare(b.started_at) || a.id.localeCompare(b.id));
  return { query, checked: open.length, runs };
}

export interface OldShapeWatch {
  id: string;
  review: string;
  /** The review's workflow status before (none, COMPLETED, FAILED, RUNNING, …). */
  before: string;
  audit_id: string;
}

/**
 * Lists the old-shape runs and, with `yes`, starts (or flags) a watching payment review for each,
 * one audit row (`payment.review_open`) each, its reason naming the old shape. A run whose review
 * could not be opened is reported with the reason; the others go on.
 */
export async function watchOldShapeRuns(
  deps: { orm: Orm; client: Client; taskQueue: string },
  request: { query?: string | undefined; yes: boolean; actor?: ChangeActor | undefined },
): Promise<Record<string, unknown>> {
  const { query, checked, runs } = await listOldShapeRuns(deps.client, request.query);
  if (!request.yes) {
    return {
      dry_run: true,
      query,
      checked,
      count: runs.length,
      runs,
      apply_with:
        runs.length === 0
          ? 'nothing to watch'
          : `payments old-shape --yes --reason TEXT --operator NAME${request.query ? ' with the same --query' : ''}: starts a watching payment review (review-<id>) for each run listed then, audited as payment.review_open`,
    };
  }
  if (!request.actor) throw new Error('--yes needs --reason and --operator (each review opened is audited)');
  const actor: ChangeActor = {
    ...request.actor,
    reason: `old-shape run (no ${PARTNER_WORD_PATCH} marker: its code ends it at its deadline without the partner's word; the status gate refuses that end): ${request.actor.reason}`.slice(0, 500),
  };
  const watched: OldShapeWatch[] = [];
  const failed: Array<{ id: string; error: string }> = [];
  for (const run of runs) {
    try {
      const opened = await openPaymentReview(deps, run.id, actor);
      watched.push({ id: run.id, review: opened.review, before: opened.before, audit_id: opened.audit_id });
    } catch (error) {
      failed.push({ id: run.id, error: error instanceof Error ? error.message : String(error) });
    }
  }
  return { dry_run: false, query, checked, count: runs.length, watched, failed };
}
