import { WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { paymentReviewWorkflowId, type PaymentReviewStart, type PaymentReviewState } from '../../src/domain/payment-review';
import { SA } from '../../src/domain/search-attributes';
import { needsAttentionReason } from '../../src/services/stuck-payments';
import { closeReviewUpdate, paymentReviewQuery, reviewFlagSignal, settleLateAnswerUpdate } from '../../workflows/payment-review-messages';
import { auditLog } from './support/fake-audit';
import { startPaymentReviewEnv, type PaymentReviewTestEnv } from './support/payment-review-env';
import { waitFor } from './support/wait-for';

// The payment review (issue 29) on the time-skipping test server: the real workflow, the partner's
// status scripted (FakeRail), the database steps in memory with the contract of
// src/persistence/partner/late-answer-store.ts (a late SUCCESSFUL for an ended payment is late money, settled once).

let env: PaymentReviewTestEnv;
let h: PaymentReviewTestEnv['workers'];
let store: PaymentReviewTestEnv['store'];
let rail: PaymentReviewTestEnv['rail'];

beforeAll(async () => {
  env = await startPaymentReviewEnv();
  ({ workers: h, store, rail } = env);
});
afterAll(async () => {
  await env?.close();
});

const review = (ours: string, source: PaymentReviewStart['source'] = 'late_watch') => env.review(ours, source);

const needsAttention = async (handle: WorkflowHandle) => (await handle.describe()).typedSearchAttributes.get(SA.NeedsAttention);
const phaseOf = async (handle: WorkflowHandle) => (await handle.query(paymentReviewQuery)).phase;

test('a late SUCCESSFUL for an expired charge: recorded as late money, NeedsAttention with its reason, then credited through the audited update', async () => {
  rail.partner({ kind: 'accepted' }, [{ status: 'pending' }, { status: 'succeeded', financialTransactionId: 'ft-1' }]);
  const { id, handle } = await review('expired');
  await waitFor(async () => rail.statusCalls.some((c) => c.paymentId === id));
  expect(await needsAttention(handle)).toBe(true);
  await h.env.sleep('2 minutes'); // the second status request, 1 minute later
  await waitFor(async () => (await phaseOf(handle)) === 'late_money');
  expect(rail.statusCalls.filter((c) => c.paymentId === id)).toEqual([
    { paymentId: id, product: 'collection' },
    { paymentId: id, product: 'collection' },
  ]);
  expect(await needsAttention(handle)).toBe(true);
  // `payments stuck` shows the reason: the workflow's current details.
  const reason = await needsAttentionReason(h.env.client, paymentReviewWorkflowId(id), null, 5_000);
  expect(reason).toContain(`LATE MONEY: the partner said SUCCESSFUL after we ended ${id} expired`);
  expect(reason).toContain(`payments settle-late ${id} --action credit|return`);

  // Refused without a reason, and with an action that does not fit a charge; nothing applied.
  await expect(handle.executeUpdate(settleLateAnswerUpdate, { args: [{ action: 'credit', operator: 'ops', reason: ' ' }] })).rejects.toThrow(WorkflowUpdateFailedError);
  await expect(handle.executeUpdate(settleLateAnswerUpdate, { args: [{ action: 'accept', operator: 'ops', reason: 'x' }] })).rejects.toThrow(WorkflowUpdateFailedError);
  await expect(handle.executeUpdate(settleLateAnswerUpdate, { args: [{ action: 'credit', operator: 'ops\u0007', reason: 'x' }] })).rejects.toThrow(WorkflowUpdateFailedError);
  expect(store.settles.filter((s) => s.paymentId === id)).toEqual([]);

  const answer = await handle.executeUpdate(settleLateAnswerUpdate, { args: [{ action: 'credit', operator: 'cli:ama', reason: 'customer was debited (partner ft-1)', evidence: 'ft-1' }] });
  expect(answer).toMatchObject({ paymentId: id, action: 'credit', status: 'succeeded' });
  const state = (await handle.result()) as PaymentReviewState;
  expect(state).toMatchObject({ phase: 'settled', settledAction: 'credit', needsAttention: false, partnerStatus: 'SUCCESSFUL', ourStatus: 'succeeded' });
  expect(store.status.get(id)).toBe('succeeded');
  expect(await needsAttention(handle)).toBe(false);
  expect(auditLog.of(id)).toEqual([
    expect.objectContaining({
      action: 'payment.settle_late',
      operator: 'cli:ama',
      reason: 'customer was debited (partner ft-1)',
      before: expect.objectContaining({ status: 'expired', settled_action: null }),
      after: expect.objectContaining({ status: 'succeeded', settled_action: 'credit', evidence: 'ft-1' }),
    }),
  ]);
  // Settled once: a second request is refused by the validator (the run has closed, or says so).
  await expect(handle.executeUpdate(settleLateAnswerUpdate, { args: [{ action: 'credit', operator: 'ops', reason: 'again' }] })).rejects.toThrow();
});

test('the partner agrees with how we ended it: the review ends with NeedsAttention cleared, nothing recorded', async () => {
  rail.partner({ kind: 'accepted' }, [{ status: 'failed', reason: 'APPROVAL_REJECTED', failureClass: 'declined' }]);
  const { id, handle } = await review('expired');
  const state = (await handle.result()) as PaymentReviewState;
  expect(state).toMatchObject({ phase: 'agreed', needsAttention: false, ourStatus: 'expired', settledAction: null });
  expect(state.partnerStatus).toMatch(/^FAILED/);
  expect(await needsAttention(handle)).toBe(false);
  expect(store.late.has(id)).toBe(false);
});

test('the partner has no final answer for hours: the review keeps asking (1m, 5m, 15m, then hourly), NeedsAttention all along; then returned to the payer', async () => {
  rail.partner({ kind: 'accepted' }, [{ status: 'pending' }, { status: 'pending' }, { status: 'pending' }, { status: 'pending' }, { status: 'pending' }, { status: 'succeeded', financialTransactionId: 'ft-9' }]);
  const { id, handle } = await review('expired');
  await waitFor(async () => rail.statusCalls.some((c) => c.paymentId === id));
  await h.env.sleep('2 hours'); // 1m + 5m + 15m + 1h + 1h (the sixth answer) passes within 2h21m
  await h.env.sleep('30 minutes');
  await waitFor(async () => (await phaseOf(handle)) === 'late_money');
  expect(rail.statusCalls.filter((c) => c.paymentId === id)).toHaveLength(6);
  expect(await needsAttention(handle)).toBe(true);
  // Returned to the payer: the transfer goes out with its own reference and is followed to SUCCESSFUL.
  await handle.executeUpdate(settleLateAnswerUpdate, { args: [{ action: 'return', operator: 'ops', reason: 'merchant asked to return it' }] });
  const state = (await handle.result()) as PaymentReviewState;
  expect(state).toMatchObject({ phase: 'settled', settledAction: 'return', needsAttention: false, ourStatus: 'expired' });
  expect(store.returns.filter((r) => r.paymentId === id).map((r) => r.status)).toEqual(['submitted', 'succeeded']);
  expect(auditLog.of(id)).toEqual([expect.objectContaining({ action: 'payment.settle_late', after: expect.objectContaining({ action: 'return' }) })]);
});

test('a reconciliation reason keeps the review open after the partner agrees, until it is resolved', async () => {
  rail.partner({ kind: 'accepted' }, [{ status: 'failed', reason: 'APPROVAL_REJECTED', failureClass: 'declined' }]);
  const { handle } = await review('failed', 'reconciliation');
  await waitFor(async () => (await phaseOf(handle)) === 'agreed');
  expect(await needsAttention(handle)).toBe(true);
  await handle.signal(reviewFlagSignal, { source: 'reconciliation', reason: 'break brk_1 resolved', resolved: true });
  const state = (await handle.result()) as PaymentReviewState;
  expect(state).toMatchObject({ phase: 'agreed', needsAttention: false });
});

test('a resolved reviewFlag sent by hand while the payment still has open breaks is ignored; the review ends once none is left (issue 31)', async () => {
  rail.partner({ kind: 'accepted' }, [{ status: 'failed', reason: 'APPROVAL_REJECTED', failureClass: 'declined' }]);
  const { id, handle } = await review('failed', 'reconciliation');
  store.openBreaks.set(id, 1);
  await waitFor(async () => (await phaseOf(handle)) === 'agreed');
  await handle.signal(reviewFlagSignal, { source: 'reconciliation', reason: 'resolved (by hand)', resolved: true });
  await waitFor(async () => (await handle.fetchHistory()).events!.some((e) => e.activityTaskCompletedEventAttributes));
  await new Promise((r) => setTimeout(r, 500));
  expect((await handle.describe()).status.name).toBe('RUNNING');
  expect(await needsAttention(handle)).toBe(true);
  // reconcile resolve: the break resolved through the audited path, then the flag.
  store.openBreaks.set(id, 0);
  await handle.signal(reviewFlagSignal, { source: 'reconciliation', reason: 'break brk_1 resolved', resolved: true });
  expect(await handle.result()).toMatchObject({ phase: 'agreed', needsAttention: false });
});

test('a resolved reviewFlag cannot close a contradiction: only the audited closeReview does (issue 31)', async () => {
  rail.partner({ kind: 'accepted' }, [{ status: 'failed', reason: 'INTERNAL_PROCESSING_ERROR', failureClass: 'partner_unavailable' }]);
  const { id, handle } = await review('succeeded', 'callback');
  await waitFor(async () => (await phaseOf(handle)) === 'agreed');
  await handle.signal(reviewFlagSignal, { source: 'callback', reason: 'closed by hand', resolved: true });
  await new Promise((r) => setTimeout(r, 500));
  expect((await handle.describe()).status.name).toBe('RUNNING');
  expect(await needsAttention(handle)).toBe(true);
  await handle.executeUpdate(closeReviewUpdate, { args: [{ operator: 'cli:esi', reason: 'partner confirmed the payment by phone' }] });
  expect(await handle.result()).toMatchObject({ needsAttention: false });
  expect(auditLog.of(id)).toEqual([expect.objectContaining({ action: 'payment.review_close', operator: 'cli:esi' })]);
});

test('the partner contradicts a success we recorded: NeedsAttention stays with the contradiction', async () => {
  rail.partner({ kind: 'accepted' }, [{ status: 'failed', reason: 'INTERNAL_PROCESSING_ERROR', failureClass: 'partner_unavailable' }]);
  const { id, handle } = await review('succeeded', 'callback');
  await waitFor(async () => (await phaseOf(handle)) === 'agreed');
  expect(await needsAttention(handle)).toBe(true);
  expect(await needsAttentionReason(h.env.client, paymentReviewWorkflowId(id), null, 5_000)).toContain('the partner says FAILED, but we recorded succeeded');
  // Closed by an operator, audited: refused without a reason; then the review ends.
  await expect(handle.executeUpdate(closeReviewUpdate, { args: [{ operator: 'ops', reason: '' }] })).rejects.toThrow(WorkflowUpdateFailedError);
  await handle.executeUpdate(closeReviewUpdate, { args: [{ operator: 'cli:esi', reason: 'partner confirmed the payment by phone' }] });
  expect(await handle.result()).toMatchObject({ needsAttention: false });
  expect(await needsAttention(handle)).toBe(false);
  expect(auditLog.of(id)).toEqual([
    expect.objectContaining({ action: 'payment.review_close', operator: 'cli:esi', before: expect.objectContaining({ contradiction: 'the partner says FAILED, but we recorded succeeded' }), after: expect.objectContaining({ closed: true }) }),
  ]);
});

test('closeReview is refused while nothing is open', async () => {
  rail.partner({ kind: 'accepted' }, [{ status: 'failed', reason: 'APPROVAL_REJECTED', failureClass: 'declined' }]);
  const { handle } = await review('failed', 'reconciliation');
  await waitFor(async () => (await phaseOf(handle)) === 'agreed');
  await expect(handle.executeUpdate(closeReviewUpdate, { args: [{ operator: 'ops', reason: 'x' }] })).rejects.toThrow(WorkflowUpdateFailedError);
  await handle.signal(reviewFlagSignal, { source: 'reconciliation', reason: 'break resolved', resolved: true });
  await handle.result();
});

test('a sandbox payment never reached a partner: its review asks nobody and ends (NeedsAttention kept only for a reconciliation reason)', async () => {
  const calls = rail.statusCalls.length;
  const { id, handle } = await env.review('expired', 'late_watch', undefined, 'sandbox');
  expect(await handle.result()).toMatchObject({ phase: 'agreed', needsAttention: false, partnerStatus: expect.stringContaining('sandbox') });
  expect(rail.statusCalls.length).toBe(calls);
  expect(store.late.has(id)).toBe(false);
});
