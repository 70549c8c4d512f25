import type { Client } from '@temporalio/client';
import type { Environment } from '../domain/environment';
import { MAX_LISTED, type SettlementRunInput, type SettlementRunResult } from '../domain/settlement-run';
import type { Orm } from '../persistence/orm';
import { runSettlementNow } from '../temporal/settlement-run-start';

/** What `settlements run` prints: one JSON object. */
export interface SettlementRunView {
  object: 'settlement_run';
  /** The run's workflow id (`settlement-run-…`); kept as run_id on its batches and skips. */
  id: string;
  merchant_id: string | null;
  environment: Environment | null;
  outcome: 'failed' | null;
  /** Batches started (each a `settlementWorkflow`, `stl_…`: GET /v1/settlements/{id}). */
  started: number;
  /** Balances skipped, with the reason kept (`settlements skipped`). */
  skipped: number;
  pages: number;
  batches: Array<{ id: string; merchant_id: string; environment: Environment; currency: string }>;
  skips: Array<{ merchant_id: string; environment: Environment; currency: string; reason: string }>;
  /** `batches` and `skips` name at most this many each; the counts cover all. */
  listed_up_to: number;
}

export function settlementRunView(input: SettlementRunInput, result: SettlementRunResult): SettlementRunView {
  return {
    object: 'settlement_run',
    id: result.runId,
    merchant_id: input.merchantId ?? null,
    environment: input.environment ?? null,
    outcome: input.outcome ?? null,
    started: result.started,
    skipped: result.skipped,
    pages: result.pages,
    batches: result.batches.map((b) => ({ id: b.settlementId, merchant_id: b.merchantId, environment: b.environment, currency: b.currency })),
    skips: result.skips.map((s) => ({ merchant_id: s.merchantId, environment: s.environment, currency: s.currency, reason: s.reason })),
    listed_up_to: MAX_LISTED,
  };
}

/**
 * `settlements run [--merchant ID] [--env test|live] [--outcome failed]`: a settlement run now, as the
 * Schedule starts one (settlementRunWorkflow), limited to the merchant and environment given. Waits
 * for the run (the batches it started go on by themselves) and answers what it started and skipped.
 * An unknown merchant is refused before anything starts.
 */
export async function runSettlements(deps: { orm: Orm; client: Client; taskQueue: string }, input: SettlementRunInput): Promise<SettlementRunView> {
  if (input.merchantId !== undefined) {
    const rows = await deps.orm.em.fork().execute<{ id: string }[]>(`select id from merchants where id = ?`, [input.merchantId]);
    if (rows.length === 0) throw new Error(`merchant ${input.merchantId} does not exist`);
  }
  const result = await runSettlementNow(deps.client, deps.taskQueue, input);
  return settlementRunView(input, result);
}
