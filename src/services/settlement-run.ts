import type { Client } from '@temporalio/client';
import type { Environment } from '../domain/environment';
import { MAX_LISTED, type SettlementRunInput, type SettlementRunResult } from '../domain/settlement-run';
import type { Orm } from '../persistence/orm';
import { newSettlementRunId, runSettlementNow } from '../temporal/settlement-run-start';
import type { ChangeActor } from '../domain/operator-action';
import { recordChange } from '../persistence/operators/change-audit';

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
 * `settlements run --env test|live [--merchant ID] [--outcome failed] --reason TEXT --operator NAME`:
 * a settlement run now, as the Schedule starts one (settlementRunWorkflow), limited to the merchant
 * and environment given. Waits for the run (the batches it started go on by themselves) and answers
 * what it started and skipped. An unknown merchant is refused before anything starts. With an actor
 * (the CLI, issue 43), the request is audited first (`settlement_run.start`, its subject the run's id,
 * committed before the run starts, so no run by hand goes unrecorded; a start that then fails leaves
 * the row of a request that started nothing, which the error says).
 */
export async function runSettlements(deps: { orm: Orm; client: Client; taskQueue: string }, input: SettlementRunInput, actor?: ChangeActor): Promise<SettlementRunView> {
  const runId = newSettlementRunId();
  await deps.orm.em.fork().transactional(async (em) => {
    if (input.merchantId !== undefined) {
      const rows = await em.execute<{ id: string }[]>(`select id from merchants where id = ?`, [input.merchantId]);
      if (rows.length === 0) throw new Error(`merchant ${input.merchantId} does not exist`);
    }
    if (actor) {
      const after = { run_id: runId, environment: input.environment ?? null, merchant_id: input.merchantId ?? null, outcome: input.outcome ?? null };
      await recordChange(em, actor, { action: 'settlement_run.start', subjectId: runId, merchantId: input.merchantId ?? null, environment: input.environment ?? null, before: null, after });
    }
  });
  const result = await runSettlementNow(deps.client, deps.taskQueue, input, runId);
  return settlementRunView(input, result);
}
