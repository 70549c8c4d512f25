import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { DEFAULT_DISPUTE_EVIDENCE_WINDOW_MS } from '../../src/config';
import { DISPUTE_INPUT_REFUSED, DISPUTE_NOT_FOUND } from '../../src/domain/dispute';
import { MAX_EVIDENCE_LENGTH, SANDBOX_DECISION_DELAY_MS } from '../../src/domain/dispute-evidence';
import { SA } from '../../src/domain/search-attributes';
import { submitEvidenceUpdate } from '../../workflows/dispute-messages';
import { retryStepUpdate } from '../../workflows/messages';
import { startDisputeTestEnv, type DisputeOptions, type DisputeTestEnv } from './support/dispute-env';
import { timelineOf } from './support/timeline';
import { failureOf } from './support/workflow-failure';
import { waitFor, signalsAnswered } from './support/wait-for';

// disputeWorkflow on the time-skipping test server, activities in memory (FakeDisputeStore), started
// as the API starts it (the dispute written, then `{ disputeId }`). Durations come from the history.

const DEADLINE_SUMMARY = 'evidence deadline: no evidence by evidence_due_by, then lost';
const DECISION_SUMMARY = 'sandbox review decision: the evidence is judged';

let h: DisputeTestEnv;
beforeAll(async () => {
  h = await startDisputeTestEnv();
});
afterAll(async () => {
  await h?.close();
});

/** A dispute, started, once its workflow waits on `summary` (default: the evidence deadline). */
async function waiting(options: DisputeOptions = {}, summary = DEADLINE_SUMMARY) {
  const record = await h.dispute(options);
  const handle = await h.start(record);
  await waitFor(async () => ((await handle.query('nextTimer')) as { summary: string } | null)?.summary === summary);
  return { record, handle };
}

async function refusalOf(promise: Promise<unknown>): Promise<WorkflowUpdateFailedError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WorkflowUpdateFailedError);
  return error as WorkflowUpdateFailedError;
}

describe('evidence, then the sandbox decision about 3 s later', () => {
  test('won: the update answers under_review, the review timer fires, the hold is released (dispute.won)', async () => {
    const { record, handle } = await waiting();
    const due = h.store.disputes.get(record.id)!.evidenceDueBy!;
    expect(Date.parse(due)).toBe(Date.parse(record.createdAt) + DEFAULT_DISPUTE_EVIDENCE_WINDOW_MS);
    const answer = await handle.executeUpdate(submitEvidenceUpdate, { args: [{ text: 'Signed delivery receipt attached.' }] });
    expect(answer).toMatchObject({ id: record.id, status: 'under_review', evidenceDueBy: due, evidenceSubmittedAt: expect.any(String) });
    expect(await handle.result()).toMatchObject({ id: record.id, status: 'won' });
    expect(h.store.transitionsOf(record.id)).toEqual(['under_review', 'won']);
    expect(h.store.events.get(record.id)).toEqual(['dispute.evidence_required', 'dispute.won']);
    expect(h.store.disputes.get(record.id)).toMatchObject({ status: 'won', evidenceText: 'Signed delivery receipt attached.' });

    const { timers } = timelineOf(await handle.fetchHistory());
    expect(timers.map((t) => t.durationMs)).toEqual([expect.any(Number), SANDBOX_DECISION_DELAY_MS]);
    expect(timers[0].durationMs).toBeLessThanOrEqual(DEFAULT_DISPUTE_EVIDENCE_WINDOW_MS);
    expect(timers[0].firedAt).toBeNull(); // the deadline lost to the evidence
    expect(timers[1].firedAt).not.toBeNull();
    const sa = await h.searchAttributes(record.id);
    expect([sa.get(SA.PaymentStatus), sa.get(SA.NeedsAttention), sa.get(SA.Amount), sa.get(SA.Currency), sa.get(SA.MerchantId)]).toEqual([
      'won',
      false,
      record.amount,
      'GHS',
      'mer_test',
    ]);
    // The evidence text is in the update's input alone: no activity result, query or run result holds it.
    expect(JSON.stringify(await handle.query('disputeState'))).not.toContain('receipt');
  });

  test('lost: evidence containing losing_evidence; the hold is debited (dispute.lost)', async () => {
    const { record, handle } = await waiting();
    await handle.executeUpdate(submitEvidenceUpdate, { args: [{ text: 'our losing_evidence, sadly' }] });
    expect(await handle.result()).toMatchObject({ status: 'lost' });
    expect(h.store.transitionsOf(record.id)).toEqual(['under_review', 'lost']);
    expect(h.store.events.get(record.id)).toEqual(['dispute.evidence_required', 'dispute.lost']);
    expect((await h.searchAttributes(record.id)).get(SA.PaymentStatus)).toBe('lost');
  });

  test('while under review: PaymentStatus under_review and nextTimer names the decision', async () => {
    const { record, handle } = await waiting();
    await handle.executeUpdate(submitEvidenceUpdate, { args: [{ text: 'tracking number 123' }] });
    await waitFor(async () => ((await handle.query('nextTimer')) as { summary: string } | null)?.summary === DECISION_SUMMARY);
    expect((await h.searchAttributes(record.id)).get(SA.PaymentStatus)).toBe('under_review');
    expect((await handle.describe()).raw.workflowExecutionInfo).toBeDefined();
    await handle.result();
  });

  test('evidence sent right after the start (before the run read its dispute) is accepted once the dispute is read', async () => {
    const record = await h.dispute();
    const handle = await h.start(record);
    const answer = await handle.executeUpdate(submitEvidenceUpdate, { args: [{ text: 'early evidence' }] });
    expect(answer).toMatchObject({ status: 'under_review' });
    expect(await handle.result()).toMatchObject({ status: 'won' });
  });
});

describe('the evidence deadline', () => {
  test('no evidence by evidence_due_by (7 days): lost by the deadline timer', async () => {
    const record = await h.dispute();
    const handle = await h.start(record);
    expect(await handle.result()).toMatchObject({ status: 'lost' });
    expect(h.store.transitionsOf(record.id)).toEqual(['lost']);
    expect(h.store.events.get(record.id)).toEqual(['dispute.evidence_required', 'dispute.lost']);
    const { timers } = timelineOf(await handle.fetchHistory());
    expect(timers).toHaveLength(1);
    expect(timers[0].durationMs).toBeLessThanOrEqual(DEFAULT_DISPUTE_EVIDENCE_WINDOW_MS);
    expect(timers[0].durationMs).toBeGreaterThan(DEFAULT_DISPUTE_EVIDENCE_WINDOW_MS - 60_000);
    expect(timers[0].firedAt).not.toBeNull();
    expect(timers[0].resumedAt! - timers[0].taskStartedAt).toBeGreaterThanOrEqual(timers[0].durationMs);
  });

  test('the window comes from the begin step (DISPUTE_EVIDENCE_WINDOW of the worker), so it is in history', async () => {
    h.store.evidenceWindowMs = 48 * 3_600_000;
    try {
      const record = await h.dispute();
      const handle = await h.start(record);
      await handle.result();
      const { timers } = timelineOf(await handle.fetchHistory());
      expect(timers[0].durationMs).toBeLessThanOrEqual(48 * 3_600_000);
      expect(timers[0].durationMs).toBeGreaterThan(47 * 3_600_000);
    } finally {
      h.store.evidenceWindowMs = DEFAULT_DISPUTE_EVIDENCE_WINDOW_MS;
    }
  });

  test('evidence after the deadline is refused: while the lost write is still under way (validator), and once the run has ended', async () => {
    const record = await h.dispute();
    h.store.breakOutcome(record.id);
    const handle = await h.start(record);
    // The deadline fires (time skipped past it); the lost write gives up (the database refuses it) and waits for an operator.
    await h.env.sleep(DEFAULT_DISPUTE_EVIDENCE_WINDOW_MS + 60_000);
    await waitFor(async () => (await h.searchAttributes(record.id)).get(SA.NeedsAttention) === true);
    const refusal = await refusalOf(handle.executeUpdate(submitEvidenceUpdate, { args: [{ text: 'too late' }] }));
    expect(refusal.cause?.message).toMatch(/evidence deadline of dispute .* passed at .*evidence is no longer accepted/);
    expect(h.store.transitionsOf(record.id)).toEqual(['lost']); // the attempt that gave up; no evidence recorded

    h.store.heal(record.id);
    await handle.executeUpdate(retryStepUpdate, { args: [{ reason: 'database back', operator: 'ui:jane' }] });
    expect(await handle.result()).toMatchObject({ status: 'lost' });
    expect(h.store.disputes.get(record.id)).toMatchObject({ status: 'lost', evidenceText: null });
    expect((await h.searchAttributes(record.id)).get(SA.NeedsAttention)).toBe(false);

    // The run has ended: there is nothing to take evidence any more (the API answers 409 from the stored dispute).
    await expect(handle.executeUpdate(submitEvidenceUpdate, { args: [{ text: 'later still' }] })).rejects.toBeInstanceOf(WorkflowNotFoundError);
  });
});

describe('evidence is accepted once', () => {
  test('a second submission is refused by the validator; nothing is written; the first decides', async () => {
    const { record, handle } = await waiting();
    await handle.executeUpdate(submitEvidenceUpdate, { args: [{ text: 'first' }] });
    const refusal = await refusalOf(handle.executeUpdate(submitEvidenceUpdate, { args: [{ text: 'losing_evidence second' }] }));
    expect(refusal.cause?.message).toMatch(/already submitted and is under review: evidence is accepted once/);
    expect(await handle.result()).toMatchObject({ status: 'won' });
    expect(h.store.transitionsOf(record.id)).toEqual(['under_review', 'won']);
    expect(h.store.disputes.get(record.id)!.evidenceText).toBe('first');
  });

  test.each<[string, unknown, RegExp]>([
    ['empty text', { text: '' }, /non-empty "text"/],
    ['blank text', { text: '  \n ' }, /non-empty "text"/],
    ['no text', {}, /non-empty "text"/],
    ['not an object', 'evidence', /submitEvidence takes/],
    ['text too long', { text: 'x'.repeat(MAX_EVIDENCE_LENGTH + 1) }, /longer than 10000 characters/],
  ])('a malformed request (%s) is refused; the dispute still waits', async (_, request, message) => {
    const { record, handle } = await waiting();
    const refusal = await refusalOf(handle.executeUpdate(submitEvidenceUpdate, { args: [request as never] }));
    expect(refusal.cause?.message).toMatch(message);
    expect(h.store.transitionsOf(record.id)).toEqual([]);
    expect(await handle.query('nextTimer')).toMatchObject({ summary: DEADLINE_SUMMARY });
    await handle.signal('advance');
    await signalsAnswered(handle);
    await handle.result();
  });
});

describe('advance signal (sandbox)', () => {
  test('advance fires the evidence deadline now: lost; the history shows the signal and the timer cancelled', async () => {
    const { record, handle } = await waiting();
    await handle.signal('advance');
    await signalsAnswered(handle);
    expect(await handle.result()).toMatchObject({ status: 'lost' });
    expect(h.store.transitionsOf(record.id)).toEqual(['lost']);
    const { eventTypes } = timelineOf(await handle.fetchHistory());
    expect(eventTypes).toEqual(expect.arrayContaining(['WORKFLOW_EXECUTION_SIGNALED', 'TIMER_CANCELED']));
    expect(eventTypes).not.toContain('TIMER_FIRED');
  });

  test('advance during review fires the decision now', async () => {
    const { record, handle } = await waiting();
    await handle.executeUpdate(submitEvidenceUpdate, { args: [{ text: 'losing_evidence' }] });
    await waitFor(async () => ((await handle.query('nextTimer')) as { summary: string } | null)?.summary === DECISION_SUMMARY);
    await handle.signal('advance');
    await signalsAnswered(handle);
    expect(await handle.result()).toMatchObject({ status: 'lost' });
    expect(h.store.transitionsOf(record.id)).toEqual(['under_review', 'lost']);
    expect(timelineOf(await handle.fetchHistory()).eventTypes.filter((t) => t === 'TIMER_CANCELED')).toHaveLength(2);
  });

  test('nextTimer is null once the dispute is resolved', async () => {
    const record = await h.dispute();
    const handle = await h.start(record);
    await handle.result();
    await expect(handle.query('nextTimer')).resolves.toBeNull();
  });
});

describe('trusts only the database', () => {
  test('a dispute that was never written: DisputeNotFoundError, nothing written', async () => {
    const record = await h.dispute();
    const failure = await failureOf((await h.start(record, { write: false })).result());
    expect(failure).toMatchObject({ type: DISPUTE_NOT_FOUND, nonRetryable: true });
    expect(h.store.transitionsOf(record.id)).toEqual([]);
  });

  test('a workflow id other than the dispute id: DisputeInputRefused before any step', async () => {
    const record = await h.dispute();
    const other = await h.dispute();
    const failure = await failureOf((await h.start(record, { workflowId: other.id })).result());
    expect(failure).toMatchObject({ type: DISPUTE_INPUT_REFUSED, nonRetryable: true });
    expect(h.store.callsFor(record.id)).toEqual([]);
  });

  test('a resolved dispute started again moves nothing', async () => {
    const record = await h.dispute({ status: 'won' });
    const handle = await h.start(record);
    expect(await handle.result()).toMatchObject({ status: 'won' });
    expect(h.store.transitionsOf(record.id)).toEqual([]);
    expect(h.store.events.get(record.id)).toBeUndefined();
    expect(timelineOf(await handle.fetchHistory()).timers).toEqual([]);
  });

  test('a dispute already under review (a run started again) is decided on its stored evidence', async () => {
    const record = await h.dispute({ status: 'under_review', evidenceText: 'losing_evidence stored' });
    const handle = await h.start(record);
    expect(await handle.result()).toMatchObject({ status: 'lost' });
    expect(h.store.transitionsOf(record.id)).toEqual(['lost']);
    expect(timelineOf(await handle.fetchHistory()).timers.map((t) => t.durationMs)).toEqual([SANDBOX_DECISION_DELAY_MS]);
  });
});
