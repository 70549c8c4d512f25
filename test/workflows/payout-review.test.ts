import { WorkflowUpdateFailedError } from '@temporalio/client';
import { DEFAULT_PAYOUT_REVIEW_TIMEOUT_MS } from '../../src/domain/payout-review';
import { SA } from '../../src/domain/search-attributes';
import { COMPLETION_DELAY_MS } from '../../src/domain/sandbox-outcome';
import { decidePayoutUpdate } from '../../workflows/payout-messages';
import { startPayoutTestEnv, type PayoutOptions, type PayoutTestEnv } from './support/payout-env';
import { timelineOf } from './support/timeline';
import { waitFor, signalsAnswered } from './support/wait-for';
import { auditLog } from './support/fake-audit';

// The review of a held payout: a durable timer until created_at + PAYOUT_REVIEW_TIMEOUT, raced by
// the decidePayout update (validated) and by the sandbox advance signal.

let h: PayoutTestEnv;
beforeAll(async () => {
  h = await startPayoutTestEnv();
});
afterAll(async () => {
  await h?.close();
});

/** A held payout, started, once its workflow waits for the decision. */
async function held(options: PayoutOptions = {}) {
  const record = await h.payout({ status: 'held_for_review', amount: 6_000_000, ...options });
  const handle = await h.start(record);
  await waitFor(async () => (await handle.query('nextTimer')) !== null);
  return { record, handle };
}

const transitionsOf = (id: string) =>
  h.store.transitionsOf(id).map(({ to, failureClass, review }) => ({ to, ...(failureClass ? { failureClass } : {}), ...(review ? { review } : {}) }));

test('while held: NeedsAttention, PaymentStatus held_for_review, and the review timer aimed at created_at + 72h', async () => {
  const { record, handle } = await held();
  const sa = await h.searchAttributes(record.id);
  expect([sa.get(SA.NeedsAttention), sa.get(SA.PaymentStatus)]).toEqual([true, 'held_for_review']);
  const next = await handle.query('nextTimer');
  expect(next).toEqual({ summary: 'review timeout: no decision within PAYOUT_REVIEW_TIMEOUT, then declined', firesAt: expect.any(String) });
  expect(Date.parse((next as { firesAt: string }).firesAt)).toBeLessThanOrEqual(Date.parse(record.createdAt) + DEFAULT_PAYOUT_REVIEW_TIMEOUT_MS);
  expect((await handle.describe()).raw.workflowExecutionInfo).toBeDefined();
  await handle.executeUpdate(decidePayoutUpdate, { args: [{ decision: 'reject', reason: 'cleanup', operator: 'ui:jane' }] });
  await handle.result();
});

test('approved: pending with the review recorded (who, why, when), then the rail: succeeded', async () => {
  const { record, handle } = await held();
  const answer = await handle.executeUpdate(decidePayoutUpdate, { args: [{ decision: 'approve', reason: 'known supplier', decided_by: 'cli:ops' }] });
  expect(answer).toMatchObject({ id: record.id, status: 'pending', review: { decision: 'approved', reason: 'known supplier', decidedBy: 'cli:ops', decidedAt: expect.any(String) } });
  expect(auditLog.of(record.id)).toEqual([
    expect.objectContaining({ action: 'payout.approve', operator: 'cli:ops', reason: 'known supplier', before: expect.objectContaining({ status: 'held_for_review' }), after: expect.objectContaining({ status: 'pending' }), requestId: expect.any(String) }),
  ]);
  const result = await handle.result();
  expect(result).toMatchObject({ status: 'succeeded' });
  expect(transitionsOf(record.id)).toEqual([
    { to: 'pending', review: { decision: 'approved', reason: 'known supplier', decidedBy: 'cli:ops', decidedAt: expect.any(String) } },
    { to: 'succeeded' },
  ]);
  const { timers, eventTypes } = timelineOf(await handle.fetchHistory());
  expect(timers.map((t) => t.durationMs).slice(1)).toEqual([COMPLETION_DELAY_MS]);
  expect(timers[0].firedAt).toBeNull(); // the review timer lost to the decision
  expect(eventTypes).toContain('TIMER_CANCELED');
  const sa = await h.searchAttributes(record.id);
  expect([sa.get(SA.NeedsAttention), sa.get(SA.PaymentStatus)]).toEqual([false, 'succeeded']);
});

test('approved with the held_for_review sandbox outcome: the rail then succeeds', async () => {
  const { record, handle } = await held({ sandboxOutcome: 'held_for_review', amount: 1_000 });
  await handle.executeUpdate(decidePayoutUpdate, { args: [{ decision: 'approve', reason: 'ok', operator: 'ui:jane' }] });
  expect(await handle.result()).toMatchObject({ status: 'succeeded', review: { decision: 'approved', decidedBy: 'ui:jane' } });
  expect(transitionsOf(record.id).map((t) => t.to)).toEqual(['pending', 'succeeded']);
});

test('rejected: failed with declined, the review recorded, NeedsAttention cleared', async () => {
  const { record, handle } = await held();
  const answer = await handle.executeUpdate(decidePayoutUpdate, { args: [{ decision: 'reject', reason: 'unknown recipient', decided_by: 'cli:ama' }] });
  expect(answer).toMatchObject({ status: 'failed', failureClass: 'declined', review: { decision: 'rejected', reason: 'unknown recipient', decidedBy: 'cli:ama' } });
  expect(await handle.result()).toMatchObject({ status: 'failed', failureClass: 'declined' });
  expect(transitionsOf(record.id)).toEqual([
    { to: 'failed', failureClass: 'declined', review: { decision: 'rejected', reason: 'unknown recipient', decidedBy: 'cli:ama', decidedAt: expect.any(String) } },
  ]);
  const sa = await h.searchAttributes(record.id);
  expect([sa.get(SA.NeedsAttention), sa.get(SA.PaymentStatus), sa.get(SA.FailureClass)]).toEqual([false, 'failed', 'declined']);
});

test('no decision within PAYOUT_REVIEW_TIMEOUT (72h): failed with declined, decided by system', async () => {
  const record = await h.payout({ status: 'held_for_review', amount: 6_000_000 });
  const handle = await h.start(record);
  expect(await handle.result()).toMatchObject({ status: 'failed', failureClass: 'declined', review: { decision: 'rejected', decidedBy: 'system' } });
  const { timers } = timelineOf(await handle.fetchHistory());
  expect(timers).toHaveLength(1);
  expect(timers[0].durationMs).toBeLessThanOrEqual(DEFAULT_PAYOUT_REVIEW_TIMEOUT_MS);
  expect(timers[0].durationMs).toBeGreaterThan(DEFAULT_PAYOUT_REVIEW_TIMEOUT_MS - 60_000);
  expect(timers[0].firedAt).not.toBeNull();
  expect(transitionsOf(record.id)).toEqual([{ to: 'failed', failureClass: 'declined', review: expect.objectContaining({ decision: 'rejected', decidedBy: 'system' }) }]);
});

test('the timeout comes from the begin step (PAYOUT_REVIEW_TIMEOUT of the worker), so it is in history', async () => {
  h.store.reviewTimeoutMs = 30 * 60_000;
  try {
    const record = await h.payout({ status: 'held_for_review', amount: 6_000_000 });
    const handle = await h.start(record);
    await handle.result();
    const { timers } = timelineOf(await handle.fetchHistory());
    expect(timers[0].durationMs).toBeLessThanOrEqual(30 * 60_000);
    expect(timers[0].durationMs).toBeGreaterThan(29 * 60_000);
  } finally {
    h.store.reviewTimeoutMs = DEFAULT_PAYOUT_REVIEW_TIMEOUT_MS;
  }
});

test('advance fires the review timeout now: declined, the history shows the signal winning', async () => {
  const { record, handle } = await held();
  await handle.signal('advance');
  await signalsAnswered(handle);
  expect(await handle.result()).toMatchObject({ status: 'failed', failureClass: 'declined', review: { decidedBy: 'system', reason: 'review timeout advanced (sandbox)' } });
  const { eventTypes } = timelineOf(await handle.fetchHistory());
  expect(eventTypes).toEqual(expect.arrayContaining(['WORKFLOW_EXECUTION_SIGNALED', 'TIMER_CANCELED']));
  expect(eventTypes).not.toContain('TIMER_FIRED');
  expect(transitionsOf(record.id).map((t) => t.to)).toEqual(['failed']);
});

test('a raw advance on a live payout held for review is ignored: the review still waits, nothing is written (issue 31, finding 2)', async () => {
  const { record, handle } = await held({ environment: 'live' });
  const timer = await handle.query('nextTimer');
  await handle.signal('advance');
  await signalsAnswered(handle);
  // Still held: the same review timer, no transition, no decision; the history shows the signal and the patch marker, no cancelled timer.
  expect(await handle.query('nextTimer')).toEqual(timer);
  expect(transitionsOf(record.id)).toEqual([]);
  const { eventTypes } = timelineOf(await handle.fetchHistory());
  expect(eventTypes).toEqual(expect.arrayContaining(['WORKFLOW_EXECUTION_SIGNALED', 'MARKER_RECORDED']));
  expect(eventTypes).not.toContain('TIMER_CANCELED');
  expect((await handle.describe()).status.name).toBe('RUNNING');
  expect((await h.searchAttributes(record.id)).get(SA.NeedsAttention)).toBe(true);
  // Only the operator's audited update ends it.
  const answer = await handle.executeUpdate(decidePayoutUpdate, { args: [{ decision: 'reject', reason: 'unknown recipient', operator: 'ui:jane' }] });
  expect(answer).toMatchObject({ status: 'failed', failureClass: 'declined', review: { decidedBy: 'ui:jane' } });
  expect(auditLog.of(record.id)).toEqual([expect.objectContaining({ action: 'payout.reject', operator: 'ui:jane' })]);
  await handle.result();
});

test('advance after approval fires the rail timer, not the (gone) review timer', async () => {
  const { handle } = await held();
  await handle.executeUpdate(decidePayoutUpdate, { args: [{ decision: 'approve', reason: 'ok', operator: 'ui:jane' }] });
  await waitFor(async () => ((await handle.query('nextTimer')) as { summary: string } | null)?.summary === 'sandbox completion: the rail pays the recipient');
  await handle.signal('advance');
  await signalsAnswered(handle);
  expect(await handle.result()).toMatchObject({ status: 'succeeded' });
  expect(timelineOf(await handle.fetchHistory()).eventTypes.filter((t) => t === 'TIMER_CANCELED')).toHaveLength(2);
});

describe('validator refusals: nothing written, the payout still waits', () => {
  test.each<[string, unknown, RegExp]>([
    ['empty reason', { decision: 'approve', reason: '  ' }, /non-empty "reason"/],
    ['no reason', { decision: 'reject' }, /non-empty "reason"/],
    ['unknown decision', { decision: 'maybe', reason: 'x' }, /"decision" must be "approve" or "reject"/],
    ['not an object', 'approve', /decidePayout takes/],
    ['reason too long', { decision: 'approve', reason: 'x'.repeat(501) }, /longer than 500/],
    ['empty decided_by', { decision: 'approve', reason: 'x', decided_by: '' }, /decided_by/],
    ['no operator (a raw update from the UI without one)', { decision: 'approve', reason: 'x' }, /an "operator" is required/],
    ['empty operator', { decision: 'approve', reason: 'x', operator: ' ' }, /"operator" must be a non-empty string/],
  ])('%s', async (_, request, message) => {
    const { record, handle } = await held();
    const error = await handle.executeUpdate(decidePayoutUpdate, { args: [request as never] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkflowUpdateFailedError);
    expect((error as WorkflowUpdateFailedError).cause?.message).toMatch(message);
    expect(transitionsOf(record.id)).toEqual([]);
    expect(await handle.query('nextTimer')).not.toBeNull();
    await handle.executeUpdate(decidePayoutUpdate, { args: [{ decision: 'reject', reason: 'cleanup', operator: 'ui:jane' }] });
  });

  test('a payout not held for review (on the rail): refused', async () => {
    const record = await h.payout({ sandboxOutcome: 'pending' });
    const handle = await h.start(record);
    await waitFor(async () => (await handle.query('nextTimer')) !== null);
    const error = await handle.executeUpdate(decidePayoutUpdate, { args: [{ decision: 'approve', reason: 'x', operator: 'ui:jane' }] }).catch((e: unknown) => e);
    expect((error as WorkflowUpdateFailedError).cause?.message).toMatch(/is pending: only a payout held for review/);
    await handle.signal('advance');
    await signalsAnswered(handle);
    await handle.result();
  });

  test('a second decision: refused (the first one stands)', async () => {
    const { record, handle } = await held();
    await handle.executeUpdate(decidePayoutUpdate, { args: [{ decision: 'reject', reason: 'first', operator: 'ui:jane' }] });
    const error = await handle.executeUpdate(decidePayoutUpdate, { args: [{ decision: 'approve', reason: 'second', operator: 'ui:jane' }] }).catch((e: unknown) => e);
    expect(error).toBeDefined();
    expect(transitionsOf(record.id).map((t) => t.review?.reason)).toEqual(['first']);
  });
});
