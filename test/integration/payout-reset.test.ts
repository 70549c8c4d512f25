import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { temporal as proto } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { codecDataConverter } from '../../src/temporal/payload-codec';
import { workflowBundle } from '../../workers/workflow-bundle';
import { testPayloadCodec } from '../support/payload-codec';
import { SA } from '../../src/domain/search-attributes';
import { setPayoutReviewThreshold } from '../../src/persistence/merchants/merchant-settings-store';
import { decidePayoutUpdate } from '../../workflows/payout-messages';
import { balanceRows, fundMerchant } from '../support/fund-merchant';
import { idempotencyKey, MTN_GH, type TestMerchant, PAYMENT_QUEUES } from '../support/harness';
import { startPartnerHarness, type PartnerHarness } from '../support/partner-harness';
import { until } from '../support/webhook-fixtures';

/**
 * Issue 43, Medium, "terminate or reset strands or releases money", on a real Temporal server: an
 * approved live payout on the partner rail, its review deadline passed, is reset (`temporal workflow
 * reset`, i.e. ResetWorkflowExecution) to the workflow task that took the operator's approval:
 *
 * - updates excluded from the reapply (`--reapply-exclude Update`): the new run replays the review
 *   without the decision, times it out and rejects it as `system`. The store's compare-and-set
 *   refuses `pending -> failed` (a review decision moves only from held_for_review); since patch
 *   review-decision-refused-goes-on the run reads the payout again and follows the partner, flagged
 *   (`waiting: review decision refused`), instead of failing with the money reserved and nothing
 *   watching (on 83c79c5 the store accepted the rejection and released the money);
 * - updates reapplied (the default): the approval comes again, writes nothing (the payout is pending
 *   already) and the run follows the partner.
 *
 * Either way: the payout stays pending with its money reserved, nothing is released, the partner
 * keeps one transfer, and the partner's SUCCESSFUL then ends it once (the reservation posted out).
 */

const REVIEW_TIMEOUT = '3s';
let partner: PartnerHarness;
let m: TestMerchant;
const h = () => partner.h;
let savedTimeout: string | undefined;

beforeAll(async () => {
  // The worker's review deadline (read by beginPayout in this process's worker): short, so a reset lands past it.
  savedTimeout = process.env.PAYOUT_REVIEW_TIMEOUT;
  process.env.PAYOUT_REVIEW_TIMEOUT = REVIEW_TIMEOUT;
  // 0004: the partner accepts and says PENDING until the test settles it.
  partner = await startPartnerHarness({ queues: PAYMENT_QUEUES, fake: { approveAfterMs: 30 * 60_000 } });
  m = await h().merchant({ verified: true });
  await fundMerchant(h(), m.id, 1_000_000, 'GHS', 'live');
  await setPayoutReviewThreshold(h().orm, m.id, 10_000);
});
afterAll(async () => {
  await partner?.close(); // runs `ledger check` over the whole database first
  if (savedTimeout === undefined) delete process.env.PAYOUT_REVIEW_TIMEOUT;
  else process.env.PAYOUT_REVIEW_TIMEOUT = savedTimeout;
});

const sql = <T = Record<string, unknown>>(text: string, params: unknown[] = []) => h().orm.em.fork().getConnection().execute<T[]>(text, params);
const { ResetReapplyExcludeType } = proto.api.enums.v1;

/** An approved live payout at the partner (PENDING), its review deadline passed: id, total debit, reference. */
async function approvedPayout(): Promise<{ id: string; total_debit: number; reference: string; createdAt: string }> {
  const res = await h().request('live', 'POST', '/v1/payouts', {
    key: m.liveKey,
    body: { amount: 20_000, currency: 'GHS', channel: 'mobile_money', momo_network_id: MTN_GH, recipient: { identifier: '233240000004', name: 'Kofi Boateng' }, reference: `reset-${idempotencyKey()}`, metadata: {} },
    headers: { 'Idempotency-Key': idempotencyKey() },
  });
  expect(res.status).toBe(200);
  expect(res.json.status).toBe('held_for_review');
  const id: string = res.json.id;
  const handle = h().temporal.client.workflow.getHandle(id);
  await until(`${id} waits for its review`, async () => (await handle.describe()).typedSearchAttributes.get(SA.PaymentStatus) === 'held_for_review');
  await handle.executeUpdate(decidePayoutUpdate, { args: [{ decision: 'approve', reason: 'recipient checked', operator: 'ops:ama' }] });
  const [ref] = await until(`${id} acknowledged by the partner`, async () => {
    const rows = await sql<{ reference_id: string }>(`select r.reference_id from rail_references r join rail_answers a on a.payment_id = r.payment_id and a.outcome = 'acknowledged' where r.payment_id = ?`, [id]);
    return rows.length > 0 ? rows : undefined;
  });
  return { id, total_debit: res.json.total_debit, reference: ref!.reference_id, createdAt: res.json.created_at };
}

/** Resets the payout's run to the workflow task that took the approval (the update's acceptance is dropped, replayed or not). */
async function resetBeforeApproval(id: string, excludeUpdates: boolean): Promise<string> {
  const handle = h().temporal.client.workflow.getHandle(id);
  const { runId } = await handle.describe();
  const events = (await handle.fetchHistory()).events ?? [];
  const accepted = events.find((e) => e.workflowExecutionUpdateAcceptedEventAttributes);
  expect(accepted).toBeDefined();
  const task = [...events].reverse().find((e) => e.workflowTaskCompletedEventAttributes && Number(e.eventId) < Number(accepted!.eventId));
  expect(task).toBeDefined();
  const { runId: newRunId } = await h().temporal.connection.workflowService.resetWorkflowExecution({
    namespace: h().temporal.namespace,
    workflowExecution: { workflowId: id, runId },
    reason: `test: reset before the approval, updates ${excludeUpdates ? 'excluded' : 'reapplied'}`,
    workflowTaskFinishEventId: task!.eventId,
    requestId: randomUUID(),
    resetReapplyExcludeTypes: excludeUpdates ? [ResetReapplyExcludeType.RESET_REAPPLY_EXCLUDE_TYPE_UPDATE] : [],
  });
  expect(newRunId).not.toBe(runId);
  return newRunId!;
}

/** Replaces every encrypted payload of a history, in place, with its plain payload (the test codec's decode). */
async function decodePayloads(node: unknown): Promise<void> {
  if (!node || typeof node !== 'object') return;
  for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
    const payload = value as { metadata?: Record<string, Uint8Array>; data?: Uint8Array } | null;
    if (payload && typeof payload === 'object' && payload.metadata?.encoding && Buffer.from(payload.metadata.encoding).toString() === 'binary/encrypted') {
      const [plain] = await testPayloadCodec().decode([payload as never]);
      (node as Record<string, unknown>)[key] = plain;
    } else {
      await decodePayloads(value);
    }
  }
}

const payoutRow = async (id: string) => (await sql<{ status: string; review_decision: string; review_decided_by: string }>(`select status, review_decision, review_decided_by from payouts where id = ?`, [id]))[0]!;
const eventTypes = async (id: string) => (await sql<{ type: string }>(`select type from events where resource_id = ? order by created_at, id`, [id])).map((e) => e.type);

test('a reset of an approved live payout past its review deadline, updates excluded or reapplied: nothing released, the partner followed, flagged where the review was refused', async () => {
  const [excluded, reapplied] = await Promise.all([approvedPayout(), approvedPayout()]);
  const reserved = (await balanceRows(h(), m.id, 'GHS', 'live')).merchant_reserved;
  expect(reserved).toBe(excluded.total_debit + reapplied.total_debit);
  // Past the review deadline (PAYOUT_REVIEW_TIMEOUT after created_at): the replayed review times out at once.
  const deadline = Math.max(Date.parse(excluded.createdAt), Date.parse(reapplied.createdAt)) + 3_000;
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, deadline - Date.now()) + 200));
  const before = { excluded: await eventTypes(excluded.id), reapplied: await eventTypes(reapplied.id) };

  const [excludedRun, reappliedRun] = await Promise.all([resetBeforeApproval(excluded.id, true), resetBeforeApproval(reapplied.id, false)]);
  const client = h().temporal.client;

  // Updates excluded: the replayed review's rejection by `system` is refused; the run goes on, flagged with why.
  const flagged = await until('the reset run flagged', async () => {
    const d = await client.workflow.getHandle(excluded.id, excludedRun).describe();
    return d.typedSearchAttributes.get(SA.NeedsAttentionReason) === 'waiting: review decision refused' ? d : undefined;
  });
  expect(flagged.status.name).toBe('RUNNING');
  expect(flagged.typedSearchAttributes.get(SA.NeedsAttention)).toBe(true);
  const details = (await client.workflow.getHandle(excluded.id, excludedRun).describe()).raw.executionConfig?.userMetadata?.details;
  expect(details).toBeDefined();
  const excludedEvents = (await client.workflow.getHandle(excluded.id, excludedRun).fetchHistory()).events ?? [];
  expect(excludedEvents.some((e) => e.workflowExecutionUpdateAcceptedEventAttributes || e.workflowExecutionUpdateAdmittedEventAttributes)).toBe(false);

  // Updates reapplied: the approval comes again, writes nothing, and the run follows the partner.
  const reappliedHandle = client.workflow.getHandle(reapplied.id, reappliedRun);
  await until('the reset run with the approval reapplied waits on the partner', async () => {
    const events = (await reappliedHandle.fetchHistory()).events ?? [];
    return events.some((e) => e.workflowExecutionUpdateAdmittedEventAttributes || e.workflowExecutionUpdateAcceptedEventAttributes) && (await reappliedHandle.describe()).status.name === 'RUNNING';
  });

  for (const payout of [excluded, reapplied]) {
    // Status from the database unchanged: pending, the operator's approval kept; no event added, nothing released.
    expect(await payoutRow(payout.id)).toEqual({ status: 'pending', review_decision: 'approved', review_decided_by: 'ops:ama' });
    expect(await sql(`select reference_id from rail_references where payment_id = ?`, [payout.id])).toEqual([{ reference_id: payout.reference }]);
  }
  expect(await eventTypes(excluded.id)).toEqual(before.excluded);
  expect(await eventTypes(reapplied.id)).toEqual(before.reapplied);
  expect((await balanceRows(h(), m.id, 'GHS', 'live')).merchant_reserved).toBe(reserved);
  // The partner keeps one transfer each, still PENDING: nothing sent twice.
  const kept = partner.fake.transactions('disbursement').filter((t) => t.referenceId === excluded.reference || t.referenceId === reapplied.reference);
  expect(kept.map((t) => [t.referenceId, t.state.status]).sort()).toEqual([[excluded.reference, 'PENDING'], [reapplied.reference, 'PENDING']].sort());

  // The partner's word ends each once: succeeded, the reservation posted out, the flag cleared.
  for (const payout of [excluded, reapplied]) expect(partner.fake.settle('disbursement', payout.reference, { status: 'SUCCESSFUL' })).toBe(true);
  for (const [payout, runId] of [[excluded, excludedRun], [reapplied, reappliedRun]] as const) {
    await until(`${payout.id} succeeded`, async () => (await payoutRow(payout.id)).status === 'succeeded');
    const done = await until(`${payout.id}'s reset run ended`, async () => {
      const d = await client.workflow.getHandle(payout.id, runId).describe();
      return d.status.name === 'COMPLETED' ? d : undefined;
    });
    expect(done.typedSearchAttributes.get(SA.NeedsAttention)).toBe(false);
    expect((await eventTypes(payout.id)).filter((t) => t === 'payout.succeeded')).toHaveLength(1);
  }
  expect((await balanceRows(h(), m.id, 'GHS', 'live')).merchant_reserved).toBe(0);

  // Both reset runs replay on this code (the refused decision's branch included). RECORD_RESET_HISTORY=1
  // wrote test/replay/histories/payoutWorkflow/live-reset-review-refused-goes-on.json from the first.
  for (const [payout, runId] of [[excluded, excludedRun], [reapplied, reappliedRun]] as const) {
    const history = await client.workflow.getHandle(payout.id, runId).fetchHistory();
    await expect(Worker.runReplayHistory({ workflowBundle: await workflowBundle(), dataConverter: codecDataConverter(testPayloadCodec()) }, history, payout.id)).resolves.toBeUndefined();
    if (process.env.RECORD_RESET_HISTORY === '1' && payout === excluded) {
      // Decoded (this run's test key is gone tomorrow): the recorded histories hold plain JSON payloads.
      await decodePayloads(history);
      fs.writeFileSync(path.join(__dirname, '../replay/histories/payoutWorkflow/live-reset-review-refused-goes-on.json'), JSON.stringify(JSON.parse(historyToJSON(history)), null, 2) + '\n');
    }
  }
});
