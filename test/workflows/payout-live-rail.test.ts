import { paymentReviewWorkflowId } from '../../src/domain/payment-review';
import { SA } from '../../src/domain/search-attributes';
import { startPayoutTestEnv, type PayoutTestEnv } from './support/payout-env';

// A live payout on the partner rail (workflows/payout-rail.ts followLivePayout), on the time-skipping
// server with the rail's activities scripted (test/workflows/support/fake-rail-activities.ts). The
// waits of a day or more are in payout-live-rail-days.test.ts (a file of its own: on a loaded machine
// the two together came near the fast tier's 60 s per file).

let h: PayoutTestEnv;
beforeAll(async () => {
  h = await startPayoutTestEnv();
});
afterAll(async () => {
  await h?.close();
});

async function runLive(sandboxOutcome: string | null = null) {
  const record = await h.payout({ environment: 'live', sandboxOutcome });
  const handle = await h.start(record);
  const result = await handle.result();
  const transitions = h.store.transitionsOf(record.id).map(({ to, failureClass }) => (failureClass ? { to, failureClass } : { to }));
  return { record, result, transitions, sa: await h.searchAttributes(record.id) };
}

test('transfer accepted, then succeeded: the payout succeeds (sandbox_outcome has no effect)', async () => {
  h.rail.partner({ kind: 'accepted' }, [{ status: 'pending' }, { status: 'succeeded', financialTransactionId: 'ft-p1' }]);
  const r = await runLive('insufficient_funds');
  expect(r.transitions).toEqual([{ to: 'succeeded' }]);
  expect(h.rail.submits.filter((s) => s.paymentId === r.record.id)).toEqual([{ paymentId: r.record.id, product: 'disbursement', failover: true }]);
});

test('PAYEE_NOT_ALLOWED_TO_RECEIVE: failed with invalid_recipient', async () => {
  h.rail.partner({ kind: 'accepted' }, [{ status: 'failed', reason: 'PAYEE_NOT_ALLOWED_TO_RECEIVE', failureClass: 'invalid_recipient' }]);
  const r = await runLive();
  expect(r.transitions).toEqual([{ to: 'failed', failureClass: 'invalid_recipient' }]);
});

test('a refusal of a resubmission (after the partner said unknown) is final only as the partner says: FAILED from the status', async () => {
  h.rail.partner({ kind: 'accepted' }, [{ status: 'unknown' }, { status: 'failed', reason: 'PAYEE_NOT_FOUND', failureClass: 'invalid_recipient' }]);
  const r = await runLive();
  expect(r.transitions).toEqual([{ to: 'failed', failureClass: 'invalid_recipient' }]);
  expect(h.rail.submits.filter((s) => s.paymentId === r.record.id).map((s) => s.resubmit ?? false)).toEqual([false, true]);
});

const details = async (payoutId: string) => (await h.handle(payoutId).query<{ currentDetails: string }>('__temporal_workflow_metadata')).currentDetails;

test('issue 43: a SUCCESSFUL for another amount than ours ends nothing: the payout stays pending, its reservation kept, flagged with the difference; the corrected SUCCESSFUL pays it, with no review', async () => {
  // Before the patch success-must-match the payout succeeded on it (19,999 paid, 20,000 debited from
  // the merchant's reservation) and a payment review named the difference afterwards.
  const record = await h.payout({ environment: 'live' });
  const startedMs = await h.env.currentTimeMs();
  const correctedAtMs = startedMs + 2 * 3600_000;
  const odd = { status: 'succeeded' as const, financialTransactionId: 'ft-odd', amount: 19_999, currency: 'GHS', mismatch: "the partner's SUCCESSFUL says amount 19999 minor units, ours 20000" };
  h.rail.partner({ kind: 'accepted' }, []).statusBy((now) => (now < correctedAtMs ? odd : { status: 'succeeded', financialTransactionId: 'ft-odd', amount: 20_000, currency: 'GHS' }));
  await h.start(record);

  await h.env.sleep(3600_000);
  expect((await h.handle(record.id).describe()).status.name).toBe('RUNNING');
  expect(h.store.transitionsOf(record.id)).toEqual([]);
  expect((await h.searchAttributes(record.id)).get(SA.NeedsAttention)).toBe(true);
  expect(await details(record.id)).toContain("the partner's SUCCESSFUL says amount 19999 minor units, ours 20000, for transfer");

  const result = await h.handle(record.id).result();
  expect(result).toMatchObject({ status: 'succeeded' });
  const transitions = h.store.transitionsOf(record.id);
  expect(transitions.map(({ to }) => to)).toEqual(['succeeded']);
  expect(Date.parse(transitions[0].at)).toBeGreaterThanOrEqual(correctedAtMs);
  await expect(h.env.client.workflow.getHandle(paymentReviewWorkflowId(record.id)).describe()).rejects.toThrow(/not found/i);
});
