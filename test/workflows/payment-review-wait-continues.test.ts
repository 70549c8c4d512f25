import { PARTNER_WAIT_HISTORY_EVENTS } from '../../src/domain/partner-wait';
import { paymentReviewWorkflowId, type PaymentReviewState } from '../../src/domain/payment-review';
import { SA } from '../../src/domain/search-attributes';
import { paymentReviewQuery, settleLateAnswerUpdate } from '../../workflows/payment-review-messages';
import { startPaymentReviewEnv, type PaymentReviewTestEnv } from './support/payment-review-env';
import { runsOf } from './support/runs-of';
import { waitFor } from './support/wait-for';

// Issue 43 (Medium: no continue-as-new in partner waits): a payment review the partner does not
// answer, and the return transfer of its late money the partner does not answer, were terminated by
// the server's history limit at about day 194 (hourly polls), the late money or the return left with
// no one watching. Both waits now continue as new (REVIEW_WAIT_CONTINUES_PATCH), carrying what the
// review knows. Time-skipping server, the partner's answers scripted by its clock.

const DAY_MS = 24 * 3600_000;

let env: PaymentReviewTestEnv;
beforeAll(async () => {
  env = await startPaymentReviewEnv();
  env.rail.clock = () => env.workers.env.currentTimeMs();
});
afterAll(async () => {
  await env?.close();
});

test('PENDING for 9 days, then late money returned whose transfer stays PENDING 9 days: each wait continues as new, the return is sent once, the review ends when it is paid', async () => {
  const { client } = env.workers.env;
  const t0 = await env.workers.env.currentTimeMs();
  const lateAtMs = t0 + 9 * DAY_MS;
  env.rail.partner({ kind: 'accepted' }, []).statusBy((now) => (now < lateAtMs ? { status: 'pending' } : { status: 'succeeded', financialTransactionId: 'ft-late-9d' }));
  const { id, handle } = await env.review('expired');
  const firstRunId = (await handle.describe()).runId;
  const review = () => client.workflow.getHandle(paymentReviewWorkflowId(id));

  // 1. The partner's status, asked hourly for 9 days: several runs, each short; then the late money.
  await env.workers.env.sleep(9 * DAY_MS + 2 * 3600_000);
  await waitFor(async () => (await review().query(paymentReviewQuery)).phase === 'late_money');
  const asking = await runsOf(client, review().workflowId, firstRunId);
  expect(asking.length).toBeGreaterThan(1);
  for (const run of asking) expect(run.events).toBeLessThan(PARTNER_WAIT_HISTORY_EVENTS + 50);
  const found = await review().query(paymentReviewQuery);
  // The first run's reason is carried into each run; the late money's reason added by the last.
  expect(found.reasons.map((r) => r.reason)).toEqual(['the charge expired while the partner still said PENDING', 'late money: the partner said SUCCESSFUL, we had ended it expired']);
  expect((await review().describe()).typedSearchAttributes.get(SA.NeedsAttention)).toBe(true);

  // 2. Returned to the payer; the return transfer stays PENDING for 9 days, then is paid.
  const t1 = await env.workers.env.currentTimeMs();
  let returned = false;
  env.store.returnStatus = async () => {
    returned ||= (await env.workers.env.currentTimeMs()) >= t1 + 9 * DAY_MS;
    return returned ? { status: 'succeeded', financialTransactionId: 'ft-return-9d' } : { status: 'pending' };
  };
  const settlingRunId = (await review().describe()).runId;
  await review().executeUpdate(settleLateAnswerUpdate, { args: [{ action: 'return', operator: 'cli:ama', reason: 'the customer asked for the money back' }] });
  await env.workers.env.sleep(9 * DAY_MS - 3600_000);
  const watching = await review().query(paymentReviewQuery);
  expect(watching).toMatchObject({ phase: 'settling', settledAction: 'return', partnerStatus: 'SUCCESSFUL', ourStatus: 'expired', needsAttention: true });
  expect((await review().describe()).status.name).toBe('RUNNING');
  const watchRuns = await runsOf(client, review().workflowId, settlingRunId);
  expect(watchRuns.length).toBeGreaterThan(1);
  for (const run of watchRuns) expect(run.events).toBeLessThan(PARTNER_WAIT_HISTORY_EVENTS + 50);

  const state = (await review().result()) as PaymentReviewState;
  expect(state).toMatchObject({ phase: 'settled', settledAction: 'return', needsAttention: false });
  // Sent once, by the run the operator settled; every later run only asked.
  expect(env.store.returnSubmits.filter((p) => p === id)).toEqual([id]);
  expect(env.store.returns.filter((r) => r.paymentId === id).map((r) => r.status)).toEqual(['submitted', 'succeeded']);
  expect(env.store.settles.filter((s) => s.paymentId === id)).toHaveLength(1);
  expect((await review().describe()).typedSearchAttributes.get(SA.NeedsAttention)).toBe(false);
});
