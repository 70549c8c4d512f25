import type { EntityManager } from '@mikro-orm/postgresql';
import {
  disputeJson,
  disputeState,
  isOpenDisputeStatus,
  type BegunDispute,
  type DisputeEventType,
  type DisputeEvidenceRequest,
  type DisputeOutcomeRequest,
  type DisputeRecord,
} from '../../domain/dispute';
import { sandboxDisputeDecision } from '../../domain/dispute-evidence';
import { disputeTransfersFor } from '../../domain/dispute-ledger';
import type { Transfer } from '../../domain/ledger';
import { rowToDispute } from './dispute-mapping';
import type { Orm } from '../orm';
import { writeStateChange } from '../state-change';

export class DisputeNotFoundError extends Error {
  constructor(readonly disputeId: string) {
    super(`dispute ${disputeId} does not exist`);
    this.name = 'DisputeNotFoundError';
  }
}

/**
 * The writes of one dispute state change inside the caller's transaction, in the order of
 * persistence/state-change.ts writeStateChange: the projection row (already written by the caller)
 * in one flush; the balance rows of the merchant's currency, in account order; the event counter with
 * the ledger entries (dated once the counter is held), then the event (`data` = the dispute object,
 * `transaction_id` = the charge). The caller commits.
 */
export async function writeDisputeStateChange(em: EntityManager, record: DisputeRecord, transfers: Transfer[], at: string, type: DisputeEventType): Promise<void> {
  await writeStateChange(em, record, transfers, at, { type, resourceType: 'dispute', transactionId: record.chargeId, dataJson: disputeJson(record) });
}

async function lockDispute(em: EntityManager, disputeId: string): Promise<DisputeRecord | null> {
  const rows = await em.execute<Record<string, unknown>[]>(`select * from disputes where id = ? for update`, [disputeId]);
  return rows.length === 0 ? null : rowToDispute(rows[0]);
}

/**
 * The dispute workflow's first step, in one transaction under the dispute's row lock: marks the
 * workflow started and, the first time, sets `evidence_due_by` = created_at + `evidenceWindowMs`
 * (DISPUTE_EVIDENCE_WINDOW) and writes `dispute.evidence_required` (no money moves). A retry, or a
 * run started again, finds the deadline set and writes nothing more. Null when there is no such
 * dispute: a workflow started for a dispute the API did not write refuses to run.
 */
export async function beginDispute(orm: Orm, disputeId: string, evidenceWindowMs: number, now: Date = new Date()): Promise<BegunDispute | null> {
  return orm.em.fork().transactional(async (em) => {
    const before = await lockDispute(em, disputeId);
    if (!before) return null;
    let record = before;
    if (before.evidenceDueBy === null && before.status === 'needs_response') {
      const at = now.toISOString();
      record = { ...before, evidenceDueBy: new Date(Date.parse(before.createdAt) + evidenceWindowMs).toISOString(), updatedAt: at };
      await em.execute(`update disputes set evidence_due_by = ?, updated_at = ?, workflow_started_at = coalesce(workflow_started_at, now()) where id = ?`, [
        record.evidenceDueBy,
        record.updatedAt,
        record.id,
      ]);
      await writeDisputeStateChange(em, record, [], at, 'dispute.evidence_required');
    } else {
      await em.execute(`update disputes set workflow_started_at = coalesce(workflow_started_at, now()) where id = ?`, [disputeId]);
    }
    const decision = record.status === 'under_review' && record.evidenceText !== null ? sandboxDisputeDecision(record.evidenceText) : null;
    return { dispute: disputeState(record), decision };
  });
}

/**
 * Records the merchant's evidence (the `submitEvidence` update, validated by the workflow: the
 * dispute needs a response and the deadline has not passed): `under_review`, the text and when it
 * arrived. No money moves and no event is written (SPEC 6.5 has none for it; `dispute.won|lost`
 * carry the evidence). A dispute no longer needing a response is returned as stored: its workflow is
 * its only writer, so that is a retry of this very step.
 */
export async function recordDisputeEvidence(orm: Orm, request: DisputeEvidenceRequest): Promise<DisputeRecord> {
  return orm.em.fork().transactional(async (em) => {
    const before = await lockDispute(em, request.disputeId);
    if (!before) throw new DisputeNotFoundError(request.disputeId);
    if (before.status !== 'needs_response') return before;
    const at = new Date(request.at).toISOString();
    const after: DisputeRecord = { ...before, status: 'under_review', evidenceText: request.text, evidenceSubmittedAt: at, updatedAt: at };
    await em.execute(`update disputes set status = ?, evidence_text = ?, evidence_submitted_at = ?, updated_at = ? where id = ?`, [
      after.status,
      after.evidenceText,
      after.evidenceSubmittedAt,
      after.updatedAt,
      after.id,
    ]);
    return after;
  });
}

/**
 * The end of a dispute, in one transaction: under the dispute's row lock, the projection; the ledger
 * transfer (won: release the hold to available; lost: debit it to dispute_clearing) with its balance
 * rows; `dispute.won` or `dispute.lost`. A dispute already resolved is returned as stored and nothing
 * is written (activity retries are safe). `onCommitted` runs once, after the commit of a change that was written.
 */
export async function applyDisputeOutcome(orm: Orm, request: DisputeOutcomeRequest, onCommitted: (dispute: DisputeRecord) => void = () => {}): Promise<DisputeRecord> {
  let applied = false;
  const record = await orm.em.fork().transactional(async (em) => {
    const before = await lockDispute(em, request.disputeId);
    if (!before) throw new DisputeNotFoundError(request.disputeId);
    if (!isOpenDisputeStatus(before.status)) return before;
    const at = new Date(request.at).toISOString();
    const after: DisputeRecord = { ...before, status: request.to, updatedAt: at };
    await em.execute(`update disputes set status = ?, updated_at = ? where id = ?`, [after.status, after.updatedAt, after.id]);
    await writeDisputeStateChange(em, after, disputeTransfersFor(after, after.status), at, `dispute.${request.to}`);
    applied = true;
    return after;
  });
  if (applied) onCommitted(record);
  return record;
}

/** The dispute if it belongs to this merchant and environment (GET /v1/disputes/{id}). */
export async function findDispute(orm: Orm, scope: { merchantId: string; environment: string }, id: string): Promise<DisputeRecord | null> {
  const rows = await orm.em
    .fork()
    .execute<Record<string, unknown>[]>(`select * from disputes where id = ? and merchant_id = ? and environment = ?`, [id, scope.merchantId, scope.environment]);
  return rows.length === 0 ? null : rowToDispute(rows[0]);
}

/**
 * A page of the merchant's disputes in one environment, newest first: `page` is the list filters'
 * clause (src/services/list-filters.ts: `and …` conditions, order and `limit ?`) with its parameters.
 */
export async function listDisputes(orm: Orm, scope: { merchantId: string; environment: string }, page: { sql: string; params: unknown[] }): Promise<DisputeRecord[]> {
  const rows = await orm.em
    .fork()
    .execute<Record<string, unknown>[]>(`select * from disputes where merchant_id = ? and environment = ?${page.sql}`, [scope.merchantId, scope.environment, ...page.params]);
  return rows.map(rowToDispute);
}
