import { WorkflowFailedError, WorkflowUpdateFailedError } from '@temporalio/client';
import type { PayoutRecord } from '../../src/domain/payout';
import { SA } from '../../src/domain/search-attributes';
import { payoutStartOptions } from '../../src/temporal/payout-start';
import { payoutReversalOperation } from '../../src/temporal/payout-reversal-start';
import { reversePayoutUpdate } from '../../workflows/payout-messages';
import { startPayoutTestEnv, type PayoutTestEnv } from './support/payout-env';
import { timelineOf } from './support/timeline';
import { waitFor, signalsAnswered } from './support/wait-for';
import { auditLog } from './support/fake-audit';

// Reversal of a succeeded payout: the sandbox `reverse` outcome, and an operator's reversePayout
// update (payouts reverse), to the open run or, once it has closed, to a new run under the same id.

let h: PayoutTestEnv;
beforeAll(async () => {
  h = await startPayoutTestEnv();
});
afterAll(async () => {
  await h?.close();
});

const tos = (id: string) => h.store.transitionsOf(id).map((t) => t.to);

/** `payouts reverse` as src/services/reverse-payout.ts sends it. */
function reverse(record: PayoutRecord, request: { reason: string; requested_by?: string; operator?: string }) {
  return h.env.client.workflow.executeUpdateWithStart(reversePayoutUpdate, {
    args: [{ operator: 'ui:jane', ...request }],
    startWorkflowOperation: payoutReversalOperation(h.store.payouts.get(record.id)!, h.taskQueue),
  });
}

test('operator reversal after the run closed: a new run under the same id reverses it (fee kept: one reversal transition)', async () => {
  const record = await h.payout();
  const first = await h.start(record);
  expect(await first.result()).toMatchObject({ status: 'succeeded' });
  const answer = await reverse(record, { reason: 'recipient returned the money', requested_by: 'cli:ops' });
  expect(answer).toMatchObject({ id: record.id, status: 'reversed' });
  expect(tos(record.id)).toEqual(['succeeded', 'reversed']);
  const second = h.handle(record.id);
  expect((await second.describe()).runId).not.toBe(first.firstExecutionRunId);
  expect(await second.result()).toMatchObject({ status: 'reversed' });
  expect((await h.searchAttributes(record.id)).get(SA.PaymentStatus)).toBe('reversed');
  // The second run: begin, the update, the reversal; no timer.
  expect(timelineOf(await second.fetchHistory()).timers).toEqual([]);
  // One audit row, written by the reversal's transition itself (issue 31), with the payout's own merchant and environment.
  expect(auditLog.of(record.id)).toEqual([
    expect.objectContaining({ action: 'payout.reverse', operator: 'ui:jane', reason: 'recipient returned the money', merchantId: record.merchantId, environment: 'sandbox', before: expect.objectContaining({ status: 'succeeded' }), after: expect.objectContaining({ status: 'reversed' }) }),
  ]);
  // The same command again (a raw update-with-start, past the command's own check): answered as it is, nothing moved, no second row.
  expect(await reverse(record, { reason: 'again' })).toMatchObject({ status: 'reversed' });
  expect(tos(record.id)).toEqual(['succeeded', 'reversed']);
  expect(auditLog.of(record.id)).toHaveLength(1);
});

test('operator reversal during the sandbox `reverse` window: one reversal, the 3 s timer cancelled', async () => {
  const record = await h.payout({ sandboxOutcome: 'reverse' });
  const handle = await h.start(record);
  await waitFor(async () => ((await handle.query('nextTimer')) as { summary: string } | null)?.summary === 'sandbox reverse outcome: the rail returns the payout');
  const answer = await reverse(record, { reason: 'operator' });
  expect(answer).toMatchObject({ status: 'reversed' });
  expect(await handle.result()).toMatchObject({ status: 'reversed' });
  expect(tos(record.id)).toEqual(['succeeded', 'reversed']);
  const { eventTypes } = timelineOf(await handle.fetchHistory());
  expect(eventTypes).toContain('WORKFLOW_EXECUTION_UPDATE_ACCEPTED');
  expect(eventTypes.filter((t) => t === 'TIMER_CANCELED')).toHaveLength(1);
  expect(auditLog.of(record.id)).toEqual([expect.objectContaining({ action: 'payout.reverse', operator: 'ui:jane', reason: 'operator' })]);
});

test('the sandbox `reverse` outcome can be advanced', async () => {
  const record = await h.payout({ sandboxOutcome: 'reverse' });
  const handle = await h.start(record);
  await waitFor(async () => ((await handle.query('nextTimer')) as { summary: string } | null)?.summary === 'sandbox completion: the rail pays the recipient');
  await handle.signal('advance');
  await waitFor(async () => ((await handle.query('nextTimer')) as { summary: string } | null)?.summary === 'sandbox reverse outcome: the rail returns the payout');
  await handle.signal('advance');
  await signalsAnswered(handle);
  expect(await handle.result()).toMatchObject({ status: 'reversed' });
  expect(timelineOf(await handle.fetchHistory()).eventTypes).not.toContain('TIMER_FIRED');
});

describe('refusals', () => {
  test('no reason: refused by the validator, nothing written', async () => {
    const record = await h.payout({ sandboxOutcome: 'reverse' });
    const handle = await h.start(record);
    await waitFor(async () => ((await handle.query('nextTimer')) as { summary: string } | null)?.summary === 'sandbox reverse outcome: the rail returns the payout');
    const error = await reverse(record, { reason: ' ' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkflowUpdateFailedError);
    expect((error as WorkflowUpdateFailedError).cause?.message).toMatch(/non-empty "reason"/);
    await handle.result();
    expect(tos(record.id)).toEqual(['succeeded', 'reversed']); // the sandbox reversal only
  });

  test('a payout on the rail (pending): refused, and it goes on to succeed', async () => {
    const record = await h.payout({ sandboxOutcome: 'pending' });
    const handle = await h.start(record);
    await waitFor(async () => (await handle.query('nextTimer')) !== null);
    const error = await reverse(record, { reason: 'too early' }).catch((e: unknown) => e);
    expect((error as WorkflowUpdateFailedError).cause?.message).toMatch(/is pending: only a succeeded payout can be reversed/);
    await handle.signal('advance');
    await signalsAnswered(handle);
    expect(await handle.result()).toMatchObject({ status: 'failed', failureClass: 'timeout' });
    expect(tos(record.id)).toEqual(['failed']);
  });

  test('a failed payout (closed run): the new run refuses the update and moves nothing', async () => {
    const record = await h.payout({ sandboxOutcome: 'insufficient_funds' });
    await (await h.start(record)).result();
    const error = await reverse(record, { reason: 'x' }).catch((e: unknown) => e);
    expect((error as WorkflowUpdateFailedError).cause?.message).toMatch(/is failed: only a succeeded payout can be reversed/);
    expect(await h.handle(record.id).result()).toMatchObject({ status: 'failed' });
    expect(tos(record.id)).toEqual(['failed']);
  });

  test('already reversed: a repeated command answers the reversed payout, nothing written twice', async () => {
    const record = await h.payout({ sandboxOutcome: 'reverse' });
    await (await h.start(record)).result();
    expect(await reverse(record, { reason: 'again' })).toMatchObject({ status: 'reversed' });
    expect(tos(record.id)).toEqual(['succeeded', 'reversed']);
    // The rail reversed it, not an operator: no audit row claims the reversal (issue 31, finding 6).
    expect(auditLog.of(record.id)).toEqual([]);
  });
});

describe('trust only the database', () => {
  test('no payout row: the run fails PayoutNotFoundError, nothing written', async () => {
    const record = await h.payout();
    const handle = await h.start(record, { write: false });
    const error = await handle.result().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkflowFailedError);
    expect((error as WorkflowFailedError).cause).toMatchObject({ type: 'PayoutNotFoundError' });
    expect(tos(record.id)).toEqual([]);
  });

  test('a workflow id other than the payout id: refused before any step', async () => {
    const record = await h.payout();
    h.store.write(record);
    const handle = await h.env.client.workflow.start('payoutWorkflow', { ...payoutStartOptions(record, h.taskQueue), workflowId: `po_other${record.id.slice(3)}` });
    const error = await handle.result().catch((e: unknown) => e);
    expect((error as WorkflowFailedError).cause).toMatchObject({ type: 'PayoutInputRefused' });
    expect(h.store.calls.filter((c) => c.payoutId === record.id)).toEqual([]);
  });

  test('search attributes of another merchant: refused after begin, nothing written', async () => {
    const record = await h.payout();
    h.store.write(record);
    const handle = await h.env.client.workflow.start('payoutWorkflow', payoutStartOptions({ ...record, merchantId: 'mer_other' }, h.taskQueue));
    const error = await handle.result().catch((e: unknown) => e);
    expect((error as WorkflowFailedError).cause).toMatchObject({ type: 'PayoutInputRefused' });
    expect(tos(record.id)).toEqual([]);
  });

  test('a payout already failed: a new run moves nothing', async () => {
    const record = await h.payout();
    h.store.write({ ...record, status: 'failed', failureClass: 'declined' });
    const handle = await h.start({ ...record, status: 'failed', failureClass: 'declined' });
    expect(await handle.result()).toMatchObject({ status: 'failed' });
    expect(tos(record.id)).toEqual([]);
  });
});
