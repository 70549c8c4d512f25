/**
 * Records the workflow histories the replay tests (test/replay/*.test.ts) replay against
 * the current workflow code. Runs each scenario on the time-skipping test server with the in-memory
 * activities of the workflow tests, and writes test/replay/histories/<workflowType>-<scenario>.json
 * (the JSON format of `temporal workflow show --output json`).
 *
 *   npx tsx scripts/record-histories.ts [scenario ...]
 *
 * When to run it: see test/replay/histories/README.md. Never to make a failing replay pass.
 */
import path from 'node:path';
import { Worker } from '@temporalio/worker';
import type { DraftOptions } from '../test/workflows/support/charge-env';
import { startChargeTestEnv, type ChargeTestEnv } from '../test/workflows/support/charge-env';
import { deliveryInput, failed, FakeWebhookReceiver, succeeded, type Script } from '../test/workflows/support/fake-webhook-activities';
import { newId, randomBase62 } from '../src/support/new-id';
import { startDeliveryWorkflow } from '../src/temporal/delivery-start';
import { webhookTaskQueueFor } from '../src/temporal/task-queues';
import { workflowBundle } from '../workers/workflow-bundle';
import type { WebhookDeliveryInput, webhookDeliveryWorkflow } from '../workflows/webhook-delivery';
import { ApplicationFailure } from '@temporalio/common';
import { advanceSignal, chargeAttentionQuery, checkoutDecisionSignal, nextTimerQuery, resolveChargeUpdate, retryStepUpdate } from '../workflows/messages';
import { chargeQueriedBeforeItsWorker } from '../test/workflows/support/query-before-worker';
import { shortThenCorrected } from '../test/workflows/support/fake-rail-activities';
import { recordScenarios, runRecorder, type History } from './support/record-histories';

const OUT_DIR = path.resolve(__dirname, '../test/replay/histories');

type Recorded = { workflowType: string; history: History };

async function charge(h: ChargeTestEnv, options: DraftOptions): Promise<Recorded & { chargeId: string }> {
  const draft = await h.draft(options);
  await h.accept(draft);
  await h.settle(draft.id);
  const handle = h.env.client.workflow.getHandle(draft.id);
  return { workflowType: 'chargeWorkflow', history: await handle.fetchHistory(), chargeId: draft.id };
}

/** A charge as POST /v1/charges makes it now: written first, then its workflow started with `{ chargeId }`. */
async function begun(h: ChargeTestEnv, options: DraftOptions): Promise<Recorded> {
  const draft = await h.draft(options);
  const handle = await h.start(draft);
  await handle.result();
  return { workflowType: 'chargeWorkflow', history: await handle.fetchHistory() };
}

/**
 * Issue 43: a live charge's resolution asks the partner: refused while it says PENDING (nothing
 * written), then, after its SUCCESSFUL, agreed (the charge succeeds, the audit row is written).
 */
async function liveResolveRefusedThenAgreed(h: ChargeTestEnv): Promise<Recorded> {
  let paid = false;
  h.rail.partner({ kind: 'accepted' }, []).statusBy(() => (paid ? { status: 'succeeded', financialTransactionId: 'ft-recorded' } : { status: 'pending' }));
  const draft = await h.draft({ environment: 'live' });
  const handle = await h.start(draft);
  await h.env.sleep(2 * 60_000);
  const request = { as: 'succeeded' as const, reason: 'partner statement line', operator: 'ops:recorder', evidence: 'line 7: ft-recorded' };
  const refused = await handle.executeUpdate(resolveChargeUpdate, { args: [request] }).then(
    () => false,
    () => true,
  );
  if (!refused) throw new Error('the resolution was not refused while the partner said PENDING');
  paid = true;
  await handle.executeUpdate(resolveChargeUpdate, { args: [request] });
  await handle.result();
  return { workflowType: 'chargeWorkflow', history: await handle.fetchHistory() };
}

/**
 * An indeterminate charge flagged NeedsAttention at once (patch 'indeterminate-attention'), then
 * resolved by an operator's `resolveCharge` update (its audit row written by the workflow).
 */
async function indeterminateResolved(h: ChargeTestEnv): Promise<Recorded> {
  const draft = await h.draft({ metadata: { sandbox_outcome: 'indeterminate' } });
  const handle = await h.start(draft);
  for (let i = 0; !(await handle.query(chargeAttentionQuery)).needsAttention; i++) {
    if (i > 200) throw new Error('the indeterminate charge was never flagged');
    await new Promise((r) => setTimeout(r, 25));
  }
  await handle.executeUpdate(resolveChargeUpdate, { args: [{ as: 'succeeded', reason: 'partner confirmed by phone', operator: 'ops:recorder' }] });
  await handle.result();
  return { workflowType: 'chargeWorkflow', history: await handle.fetchHistory() };
}

/** A workflow started for a charge that was never written: it refuses to run (ChargeNotFoundError). */
/** A sandbox card charge on hosted checkout, approved once it waits (the web route's signal). */
async function checkoutApproved(h: ChargeTestEnv): Promise<Recorded> {
  const draft = await h.draft({ channel: 'card' });
  const handle = await h.start(draft);
  for (let i = 0; !(await handle.query(nextTimerQuery).catch(() => null)); i++) {
    if (i > 200) throw new Error('the checkout charge never waited');
    await new Promise((r) => setTimeout(r, 25));
  }
  await handle.signal(checkoutDecisionSignal, { decision: 'approved' });
  await handle.result();
  return { workflowType: 'chargeWorkflow', history: await handle.fetchHistory() };
}

/**
 * Issue 32 (patch 'rail-patches-at-start'): a sandbox `pending` charge that expires in a minute, queried
 * while `beginCharge` runs, so the first workflow task ends with the begin marker and the rail starts
 * in the next one (test/workflows/support/query-before-worker.ts); then advanced: it expires.
 */
async function queriedDuringBegin(h: ChargeTestEnv): Promise<Recorded> {
  const draft = await h.draft({ metadata: { sandbox_outcome: 'pending' }, lifetimeMs: 60_000 });
  const { handle, worker, firstAnswer } = await chargeQueriedBeforeItsWorker(h, draft);
  return worker.runUntil(async () => {
    await firstAnswer;
    for (let i = 0; !(await handle.query(nextTimerQuery).catch(() => null)); i++) {
      if (i > 200) throw new Error('the charge never waited on its expiry');
      await new Promise((r) => setTimeout(r, 25));
    }
    await handle.signal(advanceSignal);
    await h.settle(draft.id);
    return { workflowType: 'chargeWorkflow', history: await handle.fetchHistory() };
  });
}

async function begunNotFound(h: ChargeTestEnv): Promise<Recorded> {
  const handle = await h.start(await h.draft(), { write: false });
  await handle.result().catch(() => undefined);
  return { workflowType: 'chargeWorkflow', history: await handle.fetchHistory() };
}

/**
 * A charge whose transition keeps failing (retryable errors) until its bounded retries give up; it
 * waits with NeedsAttention, the store heals, an operator's retryStep finishes it.
 */
async function transitionGivesUp(h: ChargeTestEnv): Promise<Recorded> {
  const draft = await h.draft();
  h.store.breakStep(draft.id, 'applyChargeTransition');
  await h.accept(draft);
  const handle = h.env.client.workflow.getHandle(draft.id);
  for (let minute = 0; !(await handle.query(chargeAttentionQuery)).needsAttention; minute++) {
    if (minute > 240) throw new Error('the transition did not give up within 4 hours of workflow time');
    await h.env.sleep('1 minute');
  }
  h.store.heal(draft.id);
  await handle.executeUpdate(retryStepUpdate, { args: [{ reason: 'database restored' }] });
  await h.settle(draft.id);
  return { workflowType: 'chargeWorkflow', history: await handle.fetchHistory() };
}

/** Recording the acceptance fails for good (a deterministic database error): the run fails, ChargeNotRecorded. */
async function acceptanceNotRecorded(h: ChargeTestEnv): Promise<Recorded> {
  const draft = await h.draft();
  h.store.breakStep(draft.id, 'recordAcceptedCharge', () =>
    ApplicationFailure.create({ type: 'DeterministicDatabaseError', message: 'SQLSTATE 22P05: unsupported Unicode escape sequence', nonRetryable: true }),
  );
  await h.accept(draft).catch(() => undefined);
  await h.settle(draft.id).catch(() => undefined);
  return { workflowType: 'chargeWorkflow', history: await h.env.client.workflow.getHandle(draft.id).fetchHistory() };
}

/**
 * One webhook delivery, started as the outbox relay starts it, on its own task queue with a worker
 * whose deliverWebhook answers from `script` (test/workflows/support/fake-webhook-activities.ts).
 */
async function webhookDelivery(h: ChargeTestEnv, script: Script, input: Partial<WebhookDeliveryInput> = {}): Promise<Recorded> {
  const fake = new FakeWebhookReceiver();
  const taskQueue = `webhooks-${randomBase62(8)}`;
  const worker = await Worker.create({ connection: h.env.nativeConnection, taskQueue: webhookTaskQueueFor(taskQueue, 'sandbox'), workflowBundle: await workflowBundle(), activities: fake.activities });
  const deliveryId = newId('delivery');
  fake.script(deliveryId, script);
  return worker.runUntil(async () => {
    await startDeliveryWorkflow(h.env.client, taskQueue, { ...deliveryInput(deliveryId), ...input });
    const handle = h.env.client.workflow.getHandle<typeof webhookDeliveryWorkflow>(deliveryId);
    await handle.result();
    return { workflowType: 'webhookDeliveryWorkflow', history: await handle.fetchHistory() };
  });
}

const SCENARIOS: Record<string, (h: ChargeTestEnv) => Promise<Recorded>> = {
  succeed: (h) => charge(h, {}),
  'pending-timeout': (h) => charge(h, { metadata: { sandbox_outcome: 'pending' } }),
  'indeterminate-expiry': (h) => charge(h, { metadata: { sandbox_outcome: 'indeterminate' } }),
  'immediate-failure': (h) => charge(h, { metadata: { sandbox_outcome: 'declined' } }),
  'early-expiry': (h) => charge(h, { lifetimeMs: 1_000 }),
  reversal: async (h) => {
    const { chargeId } = await charge(h, {});
    const handle = await h.startReversal(chargeId, new Date(await h.env.currentTimeMs()).toISOString());
    await handle.result();
    return { workflowType: 'chargeReversalWorkflow', history: await handle.fetchHistory() };
  },
  // Issue 31 (patch 'audit-with-change'): the run is checked to be under its charge's id, and the
  // audit row goes with the transition (no separate audit activity).
  'reversal-audit-with-change': async (h) => {
    const draft = await h.draft({});
    await (await h.start(draft)).result();
    const handle = await h.startReversal(draft.id, new Date(await h.env.currentTimeMs()).toISOString());
    await handle.result();
    return { workflowType: 'chargeReversalWorkflow', history: await handle.fetchHistory() };
  },
  // Bounded database retries (patch 'bounded-db-retries'): give up, NeedsAttention, retryStep.
  'transition-gives-up-then-retried': transitionGivesUp,
  'acceptance-not-recorded': acceptanceNotRecorded,
  // Write first, then start (input `{ chargeId }`, first step beginCharge).
  'begin-succeed': (h) => begun(h, {}),
  'begin-pending-timeout': (h) => begun(h, { metadata: { sandbox_outcome: 'pending' } }),
  'begin-indeterminate-expiry': (h) => begun(h, { metadata: { sandbox_outcome: 'indeterminate' } }),
  'begin-immediate-failure': (h) => begun(h, { metadata: { sandbox_outcome: 'declined' } }),
  'begin-not-found': begunNotFound,
  // The same as begin-succeed, recorded after the trust-only-the-database patch: its marker makes the
  // replay check the workflow id, so charge-replay.test.ts takes the id from the history's input.
  'begin-succeed-id-checked': (h) => begun(h, {}),
  // Recorded after the indeterminate-attention patch: flagged at once, then resolved, or expired.
  'begin-indeterminate-resolved': indeterminateResolved,
  'begin-indeterminate-flagged-expiry': (h) => begun(h, { metadata: { sandbox_outcome: 'indeterminate' } }),
  // Issue 34 (patch 'rail-timers-from-create'): the rail's delays count from the charge's creation.
  // A pending charge whose run starts six minutes late times out four minutes into the run; a
  // succeed one whose run starts a minute late succeeds at once.
  'begin-pending-late-start': (h) => begun(h, { metadata: { sandbox_outcome: 'pending' }, createdAgoMs: 6 * 60_000 }),
  'begin-succeed-late-start': (h) => begun(h, { createdAgoMs: 60_000 }),
  // Live on the partner rail (patch 'live-partner-rail'): accepted, pending, then succeeded; and a
  // partner that never answers (NeedsAttention after ten minutes, expired at expires_at).
  'live-partner-succeed': (h) => {
    h.rail.partner({ kind: 'accepted' }, [{ status: 'pending' }, { status: 'succeeded', financialTransactionId: 'ft-recorded' }]);
    return begun(h, { environment: 'live' });
  },
  'live-partner-no-answer-expiry': (h) => {
    h.rail.partner({ kind: 'accepted' }, [{ status: 'pending' }]);
    return begun(h, { environment: 'live' });
  },
  // Issue 29 (patch 'partner-word-only'): only the partner's word ends it. Accepted, pending, then
  // SUCCESSFUL; and pending at expires_at: asked once more, expired, a payment review started.
  'live-word-succeed': (h) => {
    h.rail.partner({ kind: 'accepted' }, [{ status: 'pending' }, { status: 'succeeded', financialTransactionId: 'ft-recorded' }]);
    return begun(h, { environment: 'live' });
  },
  'live-word-expiry-review': (h) => {
    h.rail.partner({ kind: 'accepted' }, [{ status: 'pending' }]);
    return begun(h, { environment: 'live' });
  },
  // Issue 43 (patch 'partner-decides-live-charge'): only the partner's final answer ends a live
  // charge. Pending past expires_at (flagged, asked on), then SUCCESSFUL an hour later; and an
  // operator's resolution refused while the partner says PENDING, then agreed after its SUCCESSFUL.
  'live-decides-expiry-then-succeed': async (h) => {
    const draft = await h.draft({ environment: 'live' });
    const paidMs = Date.parse(draft.expiresAt) + 3600_000;
    h.rail.partner({ kind: 'accepted' }, []).statusBy((now) => (now >= paidMs ? { status: 'succeeded', financialTransactionId: 'ft-recorded' } : { status: 'pending' }));
    const handle = await h.start(draft);
    await handle.result();
    return { workflowType: 'chargeWorkflow', history: await handle.fetchHistory() };
  },
  'live-decides-resolve-refused-then-agreed': liveResolveRefusedThenAgreed,
  // Issue 43 (patch 'success-must-match'): a SUCCESSFUL for another amount than the charge's is held
  // (flagged; a resolution refused saying so), then the partner's corrected SUCCESSFUL succeeds it.
  'live-amount-differs-then-corrected': async (h) => {
    const draft = await h.draft({ environment: 'live' });
    let corrected = false;
    h.rail.partner({ kind: 'accepted' }, []).statusBy(shortThenCorrected(draft, 'ft-recorded-short', () => corrected));
    const handle = await h.start(draft);
    await h.env.sleep(2 * 60_000);
    const request = { as: 'succeeded' as const, reason: 'recorded scenario', operator: 'ops:recorder', evidence: 'ft-recorded-short' };
    const refused = await handle.executeUpdate(resolveChargeUpdate, { args: [request] }).then(
      () => false,
      () => true,
    );
    if (!refused) throw new Error('the resolution was not refused while the partner said SUCCESSFUL for another amount');
    corrected = true;
    await handle.result();
    return { workflowType: 'chargeWorkflow', history: await handle.fetchHistory() };
  },
  // Issue 43 (patch 'charge-wait-continues-as-new'): a live charge PENDING past expires_at until its
  // wait continues as new; the second run (its input's `resume`) is recorded: a resolution refused
  // while PENDING, then agreed after SUCCESSFUL. The first run (about 2,000 events) is not kept.
  'live-wait-resumed-resolve-agreed': async (h) => {
    let paid = false;
    h.rail.partner({ kind: 'accepted' }, []).statusBy(() => (paid ? { status: 'succeeded', financialTransactionId: 'ft-recorded-resumed' } : { status: 'pending' }));
    const draft = await h.draft({ environment: 'live' });
    await h.start(draft);
    const latest = h.env.client.workflow.getHandle(draft.id);
    const first = (await latest.describe()).runId;
    for (let hour = 0; (await latest.describe()).runId === first; hour++) {
      if (hour > 72) throw new Error('the wait never continued as new');
      await h.env.sleep(3600_000);
    }
    const second = (await latest.describe()).runId;
    await latest.executeUpdate(resolveChargeUpdate, { args: [{ as: 'succeeded', operator: 'cli:recorder', reason: 'recorded scenario', evidence: 'ft-recorded-resumed' }] }).catch(() => undefined);
    paid = true;
    await latest.executeUpdate(resolveChargeUpdate, { args: [{ as: 'succeeded', operator: 'cli:recorder', reason: 'recorded scenario', evidence: 'line 1: ft-recorded-resumed' }] });
    await latest.result();
    return { workflowType: 'chargeWorkflow', history: await h.env.client.workflow.getHandle(draft.id, second).fetchHistory() };
  },
  // Hosted checkout (patch 'hosted-checkout'): a sandbox card charge approved on its page (the
  // `checkoutDecision` signal), and a bank charge left undecided until it expires.
  'checkout-card-approved': checkoutApproved,
  'checkout-bank-expiry': (h) => begun(h, { channel: 'bank' }),
  // Issue 32 (patch 'rail-patches-at-start'): a query splits the first task after beginCharge's marker.
  'begin-query-splits-first-task': queriedDuringBegin,
  // Issue 48 (patch 'charge-patches-as-one'): one marker stands for every patch of the run. A sandbox
  // success, a live charge on the partner's word, and the query that splits the first task.
  'as-one-succeed': (h) => begun(h, {}),
  'as-one-live-word-succeed': (h) => {
    h.rail.partner({ kind: 'accepted' }, [{ status: 'pending' }, { status: 'succeeded', financialTransactionId: 'ft-recorded' }]);
    return begun(h, { environment: 'live' });
  },
  'as-one-query-splits-first-task': queriedDuringBegin,
  'as-one-indeterminate-resolved': indeterminateResolved,
  // A 500, then a 503 whose Retry-After (4 × the delay) is held to 2 × the delay, then a 2xx.
  'retry-then-success': (h) => webhookDelivery(h, [failed(500), failed(503, (delay) => 4 * delay), succeeded()]),
  // Issue 19 (patch 'webhook-local-first-attempt'): attempt 1 as a local activity, answered 2xx.
  'local-first-attempt': (h) => webhookDelivery(h, [succeeded()], { localFirstAttempt: true }),
  // Attempt 1 local, failed (a 500); attempt 2 after the wait as a regular activity.
  'local-first-attempt-then-retry': (h) => webhookDelivery(h, [failed(500), succeeded()], { localFirstAttempt: true }),
  // Issue 48: the input alone decides (`firstAttemptLocal`, set by every start): no patch marker.
  'first-attempt-local-by-input': (h) => webhookDelivery(h, [succeeded()], { localFirstAttempt: true }),
  'first-attempt-local-by-input-then-retry': (h) => webhookDelivery(h, [failed(500), succeeded()], { localFirstAttempt: true }),
};

runRecorder(() =>
  recordScenarios({
    outDir: OUT_DIR,
    scenarios: SCENARIOS,
    startEnv: startChargeTestEnv,
    recording: (name, { workflowType, history }) => ({ fileName: `${workflowType}-${name}.json`, history }),
  }),
);
