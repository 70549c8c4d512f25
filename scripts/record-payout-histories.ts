/**
 * Records the payoutWorkflow histories that test/replay/payout-replay.test.ts replays against the
 * current workflow code, as test/replay/histories/payoutWorkflow/<scenario>.json, on the
 * time-skipping test server with the in-memory activities of test/workflows/support/payout-env.ts.
 * (A directory of their own: a payout run refuses to run under a workflow id other than its payout
 * id, so the replay gives each history the payout id of its input, not its file name.)
 *
 *   npx tsx scripts/record-payout-histories.ts [scenario ...]
 *
 * When to run it: see test/replay/histories/README.md (to add a history, never to make a failing
 * replay pass).
 */
import path from 'node:path';
import { payoutReversalOperation } from '../src/temporal/payout-reversal-start';
import { decidePayoutUpdate, reversePayoutUpdate } from '../workflows/payout-messages';
import { startPayoutTestEnv, type PayoutOptions, type PayoutTestEnv } from '../test/workflows/support/payout-env';
import { signalsAnswered, waitFor } from '../test/workflows/support/wait-for';
import { payoutStartOptions } from '../src/temporal/payout-start';
import { taskQueueFor } from '../src/temporal/task-queues';
import { payoutStateQuery } from '../workflows/payout-messages';
import { queriedBeforeItsWorker } from '../test/workflows/support/query-before-worker';
import { recordScenarios, runRecorder, type History } from './support/record-histories';
import { PARTNER_CALLBACK_SIGNAL } from '../src/domain/live-rail';

const OUT_DIR = path.resolve(__dirname, '../test/replay/histories/payoutWorkflow');

async function run(h: PayoutTestEnv, options: PayoutOptions): Promise<History> {
  const handle = await h.start(await h.payout(options));
  await handle.result().catch(() => undefined);
  return handle.fetchHistory();
}

async function reviewed(h: PayoutTestEnv, decision: 'approve' | 'reject'): Promise<History> {
  const handle = await h.start(await h.payout({ status: 'held_for_review', amount: 6_000_000 }));
  await waitFor(async () => (await handle.query('nextTimer')) !== null);
  await handle.executeUpdate(decidePayoutUpdate, { args: [{ decision, reason: 'recorded scenario', decided_by: 'cli:recorder' }] });
  await handle.result();
  return handle.fetchHistory();
}

/**
 * Issue 32 follow-up (patch 'patches-at-start'): a live payout queried while `beginPayout` runs, so
 * the first workflow task ends with the begin marker and the rail starts in the next one
 * (test/workflows/support/query-before-worker.ts); the partner pays it.
 */
async function queriedDuringBegin(h: PayoutTestEnv): Promise<History> {
  const record = await h.payout({ environment: 'live' });
  h.store.write(record);
  h.rail.partner({ kind: 'accepted' }, [{ status: 'succeeded', financialTransactionId: 'ft-recorded-split' }]);
  const { handle, worker, firstAnswer } = await queriedBeforeItsWorker({
    env: h.env,
    start: (base) => h.env.client.workflow.start('payoutWorkflow', payoutStartOptions(record, base)),
    queueOf: (base) => taskQueueFor(base, record.environment),
    query: payoutStateQuery,
    activities: { ...h.store.activities, ...h.rail.activities },
  });
  return worker.runUntil(async () => {
    await firstAnswer;
    await handle.result();
    return handle.fetchHistory();
  });
}

/**
 * Issue 43 (patch 'partner-wait-continues-as-new'): a live payout the partner keeps PENDING until its
 * wait continues as new; a callback, then SUCCESSFUL, ends the second run. The second run is recorded
 * (its input carries the wait: `resume`); the first, about PARTNER_WAIT_HISTORY_EVENTS events long,
 * is not kept (over a megabyte; test/workflows/payout-partner-wait-continues.test.ts runs it).
 */
async function resumedWait(h: PayoutTestEnv): Promise<History> {
  const record = await h.payout({ environment: 'live' });
  let paid = false;
  h.rail.partner({ kind: 'accepted' }, []).statusBy(() => (paid ? { status: 'succeeded', financialTransactionId: 'ft-recorded-resumed' } : { status: 'pending' }));
  const handle = await h.start(record);
  // Skipped time, an hour at a time, until the first run has continued as new (about 13 h).
  for (let hour = 0; (await h.handle(record.id).describe()).runId === handle.firstExecutionRunId; hour++) {
    if (hour > 72) throw new Error('the wait never continued as new');
    await h.env.sleep(3600_000);
  }
  const second = (await h.handle(record.id).describe()).runId;
  paid = true;
  await h.handle(record.id).signal(PARTNER_CALLBACK_SIGNAL);
  await h.handle(record.id).result();
  return h.env.client.workflow.getHandle(record.id, second).fetchHistory();
}

const SCENARIOS: Record<string, (h: PayoutTestEnv) => Promise<History>> = {
  // Issue 32 follow-up (patch 'patches-at-start'): a query splits the first task after beginPayout's marker.
  'live-begin-query-splits-first-task': queriedDuringBegin,
  succeed: (h) => run(h, {}),
  // Issue 48 (patch 'payout-patches-as-one'): one marker for every patch of the run.
  'as-one-succeed': (h) => run(h, {}),
  'as-one-review-approved': (h) => reviewed(h, 'approve'),
  'as-one-live-word-succeed': (h) => {
    h.rail.partner({ kind: 'accepted' }, [{ status: 'pending' }, { status: 'succeeded', financialTransactionId: 'ft-recorded' }]);
    return run(h, { environment: 'live' });
  },
  'as-one-live-begin-query-splits-first-task': queriedDuringBegin,
  'immediate-failure': (h) => run(h, { sandboxOutcome: 'insufficient_funds' }),
  'pending-timeout': (h) => run(h, { sandboxOutcome: 'pending' }),
  'sandbox-reverse': (h) => run(h, { sandboxOutcome: 'reverse' }),
  'review-approved': (h) => reviewed(h, 'approve'),
  // Issue 29 (patch 'partner-word-only'): live on the partner rail, ended by its word only.
  'live-word-succeed': (h) => {
    h.rail.partner({ kind: 'accepted' }, [{ status: 'pending' }, { status: 'succeeded', financialTransactionId: 'ft-recorded' }]);
    return run(h, { environment: 'live' });
  },
  'live-word-unknown-resubmitted-failed': (h) => {
    h.rail.partner({ kind: 'accepted' }, [{ status: 'unknown' }, { status: 'failed', reason: 'PAYEE_NOT_FOUND', failureClass: 'invalid_recipient' }]);
    return run(h, { environment: 'live' });
  },
  // Issue 43 (patch 'partner-wait-continues-as-new'): the wait's second run, resumed, ended by a callback and SUCCESSFUL.
  'live-wait-resumed-succeed': resumedWait,
  // Issue 43 (same patch): `unknown` after a PENDING is not final: flagged, asked on, then SUCCESSFUL.
  'live-wait-acknowledged-unknown-succeed': (h) => {
    h.rail.partner({ kind: 'accepted' }, [{ status: 'pending' }, { status: 'unknown' }, { status: 'unknown' }, { status: 'succeeded', financialTransactionId: 'ft-recorded-ack' }]);
    return run(h, { environment: 'live' });
  },
  // Issue 43 (patch 'success-must-match'): a SUCCESSFUL for another amount is held (flagged, the money
  // reserved), asked on; the partner's corrected SUCCESSFUL pays it.
  'live-amount-differs-then-corrected': async (h) => {
    const record = await h.payout({ environment: 'live' });
    const odd = { status: 'succeeded' as const, financialTransactionId: 'ft-recorded-odd', amount: record.amount - 1, currency: record.currency, mismatch: `the partner's SUCCESSFUL says amount ${record.amount - 1} minor units, ours ${record.amount}` };
    h.rail.partner({ kind: 'accepted' }, [odd, odd, { status: 'succeeded', financialTransactionId: 'ft-recorded-odd', amount: record.amount, currency: record.currency }]);
    const handle = await h.start(record);
    await handle.result();
    return handle.fetchHistory();
  },
  // Issue 46 (patch 'rail-failover'): the transfer never reached the first partner; the gate moved it to the next, which paid it.
  'live-failover-not-reached-succeed': (h) => {
    h.rail
      .partner({ kind: 'not_reached', reason: 'POST /disbursement/v1_0/transfer: ECONNREFUSED' }, [])
      .thenFailover({ moved: true, partner: 'aggregator', from: 'momo', attempt: 2, cause: 'not_reached' }, { kind: 'accepted' }, [{ status: 'pending' }, { status: 'succeeded', financialTransactionId: 'ft-recorded-failover' }]);
    return run(h, { environment: 'live' });
  },
  // Issue 46 (same patch): refused with a retry-elsewhere reason, and the gate said no (no other partner admits it): failed as refused.
  'live-failover-refused-no-partner-failed': (h) => {
    h.rail.partner({ kind: 'refused', reason: 'COULD_NOT_PERFORM_TRANSACTION', failureClass: 'partner_unavailable', retryElsewhere: true }, []);
    return run(h, { environment: 'live' });
  },
  // Sandbox `indeterminate` as live: pending and flagged until the partner's late answer (paid).
  'indeterminate-late-answer': (h) => run(h, { sandboxOutcome: 'indeterminate' }),
  'review-rejected': (h) => reviewed(h, 'reject'),
  'review-timeout': (h) => run(h, { status: 'held_for_review', amount: 6_000_000 }),
  'not-found': async (h) => {
    const handle = await h.start(await h.payout(), { write: false });
    await handle.result().catch(() => undefined);
    return handle.fetchHistory();
  },
  'pending-advanced': async (h) => {
    const handle = await h.start(await h.payout({ sandboxOutcome: 'pending' }));
    await waitFor(async () => (await handle.query('nextTimer')) !== null);
    await handle.signal('advance');
    await handle.result();
    return handle.fetchHistory();
  },
  // `payouts reverse` after the run closed: the second run under the payout id (update-with-start).
  'operator-reversal': async (h) => {
    const record = await h.payout();
    await (await h.start(record)).result();
    await h.env.client.workflow.executeUpdateWithStart(reversePayoutUpdate, {
      args: [{ reason: 'recorded scenario', requested_by: 'cli:recorder' }],
      startWorkflowOperation: payoutReversalOperation(h.store.payouts.get(record.id)!, h.taskQueue),
    });
    const second = h.handle(record.id);
    await second.result();
    return second.fetchHistory();
  },
  // Issue 31 (patch 'audit-with-change'): the decision's and the reversal's audit rows go with their transition.
  'review-approved-audit-with-change': (h) => reviewed(h, 'approve'),
  'operator-reversal-audit-with-change': async (h) => {
    const record = await h.payout();
    await (await h.start(record)).result();
    await h.env.client.workflow.executeUpdateWithStart(reversePayoutUpdate, {
      args: [{ reason: 'recorded scenario', operator: 'cli:recorder' }],
      startWorkflowOperation: payoutReversalOperation(h.store.payouts.get(record.id)!, h.taskQueue),
    });
    const second = h.handle(record.id);
    await second.result();
    return second.fetchHistory();
  },
  // A reversal sent again to a reversed payout: answered as it is, nothing written.
  'repeated-reversal': async (h) => {
    const record = await h.payout({ sandboxOutcome: 'reverse' });
    await (await h.start(record)).result();
    await h.env.client.workflow.executeUpdateWithStart(reversePayoutUpdate, {
      args: [{ reason: 'recorded scenario', operator: 'cli:recorder' }],
      startWorkflowOperation: payoutReversalOperation(h.store.payouts.get(record.id)!, h.taskQueue),
    });
    const second = h.handle(record.id);
    await second.result();
    return second.fetchHistory();
  },
  // Issue 31 (patch 'live-advance-ignored'): a hand-sent advance on a live payout held for review is ignored; the operator rejects it.
  'live-review-advance-ignored': async (h) => {
    const handle = await h.start(await h.payout({ status: 'held_for_review', amount: 6_000_000, environment: 'live' }));
    await waitFor(async () => (await handle.query('nextTimer')) !== null);
    await handle.signal('advance');
    await signalsAnswered(handle);
    await handle.executeUpdate(decidePayoutUpdate, { args: [{ decision: 'reject', reason: 'recorded scenario', operator: 'cli:recorder' }] });
    await handle.result();
    return handle.fetchHistory();
  },
};

runRecorder(() => recordScenarios({ outDir: OUT_DIR, scenarios: SCENARIOS, startEnv: startPayoutTestEnv }));
