import { temporal } from '@temporalio/proto';
import { paymentReviewWorkflowId, REVIEW_FLAG_SIGNAL } from '../../src/domain/payment-review';
import { PARTNER_CALLBACK_SIGNAL } from '../../src/domain/live-rail';
import { applyChargeTransition } from '../../src/persistence/charges/charge-store';
import { recordRailAnswer } from '../../src/persistence/partner/rail-answer-store';
import { paymentReviewQuery } from '../../workflows/payment-review-messages';
import { CALLBACK_DEBOUNCE_MS } from '../../src/persistence/partner/callback-signal-store';
import type { FakePartner } from '../../src/rail/fake-partner';
import { callbackToken } from '../../src/rail/momo-callback';
import { balanceRows } from '../support/fund-merchant';
import { chargeBody, idempotencyKey, type Harness, type TestMerchant, PAYMENT_QUEUES } from '../support/harness';
import { startPartnerHarness, type PartnerHarness } from '../support/partner-harness';
import { until } from '../support/webhook-fixtures';

/**
 * Issue 30, "Partner callbacks": a callback URL never expires, so a leaked one can be replayed at will.
 * On the real stack (PostgreSQL, the Temporal dev server, the payments worker, the live listener's
 * callback route, the fake partner over HTTP): one genuine callback replayed 1,000 times against a
 * pending live charge is answered 200 every time, signals the workflow only once per debounce
 * window (its history stays bounded), never past the cap, and changes nothing; a closed payment's
 * callback replayed does not flag review after review.
 */

const T = temporal.api.enums.v1.EventType;
let partner: PartnerHarness;
let fake: FakePartner;
let h: Harness;
let m: TestMerchant;

beforeAll(async () => {
  partner = await startPartnerHarness({ queues: PAYMENT_QUEUES, timeoutMs: 500 });
  ({ h, fake } = partner);
  m = await h.merchant({ verified: true });
});
afterAll(async () => {
  await partner?.close(); // runs `ledger check` over the whole database first
});
afterEach(() => {
  jest.restoreAllMocks();
  delete h.deps.partnerCallbacks!.debounceMs;
  delete h.deps.partnerCallbacks!.signalCap;
});


const sql = <R>(text: string, params: unknown[] = []) => h.orm.em.getConnection().execute<R[]>(text, params);

/** A live request-to-pay the partner keeps PENDING forever (0004: no answer, no callback by itself), with its reference at the partner. */
async function pendingLiveCharge(): Promise<{ id: string; ref: string }> {
  const res = await h.request('live', 'POST', '/v1/charges', {
    key: m.liveKey,
    body: chargeBody({ customer: { identifier: '233240000004', name: 'Kofi Boateng' }, reference: `replay-${idempotencyKey()}` }),
    headers: { 'Idempotency-Key': idempotencyKey() },
  });
  expect(res.status).toBe(200);
  const id: string = res.json.id;
  const ref = await until('the charge submitted to the partner', async () => {
    const rows = await sql<{ reference_id: string }>(`select reference_id::text from rail_references where payment_id = ?`, [id]);
    return rows[0] && fake.transaction('collection', rows[0].reference_id) ? rows[0].reference_id : undefined;
  });
  return { id, ref };
}

/** The partner's callback for `ref` as it would send it: its URL (token included) and the transaction's status body. */
function replay(ref: string, body: unknown): () => Promise<Response> {
  const url = `${h.urls.live}/partner/momo/callbacks/collection/${ref}?token=${callbackToken(partner.callbackSecret, 'collection', ref)}`;
  const text = JSON.stringify(body);
  return () => fetch(url, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: text });
}

/** Sends `times` replays, `concurrency` at a time; every answer must be the partner's 200 with an empty body. */
async function replayMany(send: () => Promise<Response>, times: number, concurrency = 25): Promise<void> {
  let left = times;
  const statuses = new Map<string, number>();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (left > 0) {
        left -= 1;
        const answer = await send();
        const key = `${answer.status} ${JSON.stringify(await answer.text())}`;
        statuses.set(key, (statuses.get(key) ?? 0) + 1);
      }
    }),
  );
  expect(Object.fromEntries(statuses)).toEqual({ '200 ""': times });
}

async function signalsIn(workflowId: string, signalName: string, runId?: string): Promise<{ signals: number; events: number }> {
  const events = (await h.temporal.client.workflow.getHandle(workflowId, runId).fetchHistory()).events ?? [];
  const signals = events.filter((e) => e.eventType === T.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED && e.workflowExecutionSignaledEventAttributes?.signalName === signalName).length;
  return { signals, events: events.length };
}

const outcomesOf = (spy: jest.SpyInstance, paymentId: string): string[] =>
  spy.mock.calls.map(([fields]) => fields as { paymentId?: string; outcome?: string }).filter((f) => f?.paymentId === paymentId && f.outcome).map((f) => f.outcome!);

const ledgerOf = (id: string) => sql<{ n: number }>(`select count(*)::int as n from ledger_entries where resource_id = ?`, [id]);
const eventsOf = (id: string) => sql<{ type: string }>(`select type from events where resource_id = ? order by sequence`, [id]);

test('one genuine callback replayed 1,000 times against a pending live charge: all answered 200, a bounded history, nothing changed', async () => {
  const { id, ref } = await pendingLiveCharge();
  const info = jest.spyOn(h.deps.log, 'info');
  const balancesBefore = await balanceRows(h, m.id, 'GHS', 'live');
  const ledgerBefore = await ledgerOf(id);
  const eventsBefore = await eventsOf(id);
  const { events: historyBefore } = await signalsIn(id, PARTNER_CALLBACK_SIGNAL);
  // The transaction's own status body, as the partner sends it, claiming success for good measure: a wake-up only.
  const send = replay(ref, { ...fake.transaction('collection', ref)!.state, status: 'SUCCESSFUL', financialTransactionId: 'replayed' });

  const started = Date.now();
  await replayMany(send, 1_000);
  const windows = Math.ceil((Date.now() - started) / CALLBACK_DEBOUNCE_MS) + 1;
  await new Promise((r) => setTimeout(r, 1_000)); // the last wake-up's status request

  const outcomes = outcomesOf(info, id);
  expect(outcomes).toHaveLength(1_000);
  const accepted = outcomes.filter((o) => o === 'accepted').length;
  expect(accepted).toBeGreaterThanOrEqual(1);
  expect(accepted).toBeLessThanOrEqual(windows);
  expect(outcomes.filter((o) => o === 'debounced')).toHaveLength(1_000 - accepted);
  // The workflow took one signal per accepted callback, and its history grew by a few events per wake-up, not per callback.
  const { signals, events } = await signalsIn(id, PARTNER_CALLBACK_SIGNAL);
  expect(signals).toBe(accepted);
  expect(events - historyBefore).toBeLessThan(100);
  expect(await sql(`select signals from partner_callback_signals where payment_id = ?`, [id])).toEqual([{ signals: accepted }]);
  // Nothing changed: still pending, same events, same ledger.
  expect((await h.request('live', 'GET', `/v1/charges/${id}`, { key: m.liveKey })).json.status).toBe('awaiting_action');
  expect(await eventsOf(id)).toEqual(eventsBefore);
  expect(await ledgerOf(id)).toEqual(ledgerBefore);
  expect(await balanceRows(h, m.id, 'GHS', 'live')).toEqual(balancesBefore);
});

test('past the cap, callbacks are answered 200, logged capped at warn, and no longer signal; the workflow keeps polling', async () => {
  const { id, ref } = await pendingLiveCharge();
  h.deps.partnerCallbacks!.debounceMs = 0;
  h.deps.partnerCallbacks!.signalCap = 3;
  const warn = jest.spyOn(h.deps.log, 'warn');
  const send = replay(ref, fake.transaction('collection', ref)!.state);
  for (let i = 0; i < 10; i++) expect((await send()).status).toBe(200);
  expect(outcomesOf(warn, id)).toEqual(Array(7).fill('capped'));
  expect(await sql(`select signals from partner_callback_signals where payment_id = ?`, [id])).toEqual([{ signals: 3 }]);
  expect((await signalsIn(id, PARTNER_CALLBACK_SIGNAL)).signals).toBe(3);
  // The workflow's own status polls go on.
  const polls = () => fake.requests.filter((r) => r.method === 'GET' && r.path.endsWith(ref)).length;
  const before = polls();
  await until('another status poll', async () => polls() > before, 15_000);
  expect((await h.request('live', 'GET', `/v1/charges/${id}`, { key: m.liveKey })).json.status).toBe('awaiting_action');
});

test('a closed payment\'s late callback replayed: debounced and capped like any other, so not review after review', async () => {
  const { id, ref } = await pendingLiveCharge();
  // A window longer than this part of the test (the default 5 s is shorter than the review's start,
  // the terminate and 300 replays on a loaded machine): "inside the window" is then what it says.
  h.deps.partnerCallbacks!.debounceMs = 10 * 60_000;
  // The charge expired at its deadline and its workflow closed; then the customer approves and the partner calls back.
  // A live charge that reached the partner ends only on its word (issue 43, the status gate): it said
  // FAILED at the expiry (recorded as the rail activity would), and its SUCCESSFUL later contradicts it.
  await h.temporal.client.workflow.getHandle(id).terminate('test: the charge reached expires_at');
  await recordRailAnswer(h.orm.em.fork(), { paymentId: id, source: 'status', outcome: 'failed', partnerStatus: 'FAILED', reason: 'test: FAILED at the expiry' });
  await applyChargeTransition(h.orm, { chargeId: id, to: 'expired', failureClass: null, at: new Date().toISOString() });
  const warn = jest.spyOn(h.deps.log, 'warn');
  const info = jest.spyOn(h.deps.log, 'info');
  expect(fake.settle('collection', ref, { status: 'SUCCESSFUL' })).toBe(true);
  const review = h.temporal.client.workflow.getHandle(paymentReviewWorkflowId(id));
  await until('the review to hold late money', async () => (await review.query(paymentReviewQuery).catch(() => null))?.phase === 'late_money');
  expect(outcomesOf(warn, id)).toEqual(['late']);
  const sent = await until("the partner's callback", async () => fake.callbacksSent.find((c) => c.referenceId === ref));
  const send = replay(ref, sent.body);
  // The review ends (an operator closed it, say); the genuine callback is replayed again and again.
  await review.terminate('test: the review ended');
  const runs = async () => {
    const ids: string[] = [];
    for await (const run of h.temporal.client.workflow.list({ query: `WorkflowId = '${paymentReviewWorkflowId(id)}'` })) ids.push(run.runId);
    return ids.length;
  };

  // Inside the debounce window: no flag at all.
  await replayMany(send, 300);
  expect(outcomesOf(info, id).filter((o) => o !== 'debounced')).toEqual([]);
  expect(outcomesOf(warn, id)).toEqual(['late']);

  // Without the window (as over a long time), the cap still holds: two more flags, then none.
  // The review's flags are counted in their own row (a late answer is never debounced by the payment's own wake-up).
  const [{ signals }] = await sql<{ signals: number }>(`select signals from partner_callback_signals where payment_id = ?`, [paymentReviewWorkflowId(id)]);
  expect(signals).toBe(1);
  h.deps.partnerCallbacks!.debounceMs = 0;
  h.deps.partnerCallbacks!.signalCap = signals + 2;
  warn.mockClear();
  for (let i = 0; i < 50; i++) expect((await send()).status).toBe(200);
  expect(outcomesOf(warn, id)).toEqual(['late', 'late', ...Array(48).fill('capped')]);
  // One new review run at most (the first flag started it, the second joined it as one more reason).
  const latest = await review.describe();
  expect((await signalsIn(paymentReviewWorkflowId(id), REVIEW_FLAG_SIGNAL, latest.runId)).signals).toBeLessThanOrEqual(2);
  await until('a second run', async () => (await runs()) >= 2, 10_000);
  expect(await runs()).toBe(2);
});
