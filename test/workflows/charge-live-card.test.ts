import { PARTNER_CALLBACK_SIGNAL, RAIL_CALL_TIMEOUT_MS } from '../../src/domain/live-rail';
import { cardSubmittedSignal } from '../../workflows/messages';
import { startChargeTestEnv, type ChargeTestEnv } from './support/charge-env';

// A live card charge (issue 45, workflows/charge-card-live.ts) on the time-skipping server: the hosted
// page sends the card itself (scripted here as the submission the page recorded) and wakes the run;
// the run never submits anything and ends only on the aggregator's word, or expires when no card came.

let h: ChargeTestEnv;
beforeAll(async () => {
  h = await startChargeTestEnv();
});
afterAll(async () => {
  await h?.close();
});

const cardDraft = () => h.draft({ environment: 'live', channel: 'card' });
const submitsOf = (id: string) => h.rail.timeline.filter((c) => c.paymentId === id && c.kind === 'submit');

test('no card by expires_at: the window is closed and the charge expires; nothing was ever sent or asked', async () => {
  const draft = await cardDraft();
  h.rail.partner({ kind: 'accepted' }, []);
  await h.start(draft);
  const result = await h.settle(draft.id);
  expect(result).toMatchObject({ status: 'expired', failureClass: null });
  expect(h.store.cards.get(draft.id)).toEqual({ state: 'closed' });
  expect(h.rail.timeline.filter((c) => c.paymentId === draft.id)).toEqual([]);
});

test('the page sent the card and the aggregator accepted it: the run follows its status (never submits) and succeeds on SUCCESSFUL', async () => {
  const draft = await cardDraft();
  h.rail.partner({ kind: 'accepted' }, [{ status: 'pending' }, { status: 'succeeded', financialTransactionId: 'card-1' }]);
  const handle = await h.start(draft);
  h.store.cards.set(draft.id, { state: 'submitted', submittedAt: new Date(await h.env.currentTimeMs()).toISOString(), outcome: 'accepted' });
  await handle.signal(cardSubmittedSignal);
  const result = await h.settle(draft.id);
  expect(result).toMatchObject({ status: 'succeeded' });
  expect(submitsOf(draft.id)).toEqual([]);
  expect(h.store.transitionsOf(draft.id).map((t) => t.to)).toEqual(['succeeded']);
});

test("the aggregator refused the card at once (an expired card): the charge fails with the aggregator's class, nothing asked", async () => {
  const draft = await cardDraft();
  h.rail.partner({ kind: 'accepted' }, []);
  const handle = await h.start(draft);
  h.store.cards.set(draft.id, { state: 'submitted', submittedAt: new Date(await h.env.currentTimeMs()).toISOString(), outcome: 'refused', reason: 'EXPIRED_CARD', failureClass: 'declined' });
  await handle.signal(cardSubmittedSignal);
  const result = await h.settle(draft.id);
  expect(result).toMatchObject({ status: 'failed', failureClass: 'declined' });
  expect(h.rail.timeline.filter((c) => c.paymentId === draft.id)).toEqual([]);
});

test('the page got no answer and the aggregator never heard of the card: asked again once no call can be in flight, then failed partner_unavailable; never resubmitted', async () => {
  const draft = await cardDraft();
  h.rail.partner({ kind: 'accepted' }, []).statusBy(() => ({ status: 'unknown' }));
  const handle = await h.start(draft);
  const sentMs = await h.env.currentTimeMs();
  h.store.cards.set(draft.id, { state: 'submitted', submittedAt: new Date(sentMs).toISOString(), outcome: 'no_answer' });
  await handle.signal(cardSubmittedSignal);
  const result = await h.settle(draft.id);
  expect(result).toMatchObject({ status: 'failed', failureClass: 'partner_unavailable' });
  expect(submitsOf(draft.id)).toEqual([]);
  const statuses = h.rail.timeline.filter((c) => c.paymentId === draft.id && c.kind === 'status');
  expect(Math.max(...statuses.map((c) => c.atMs))).toBeGreaterThanOrEqual(sentMs + RAIL_CALL_TIMEOUT_MS);
});

test('the page won the race at expiry (no wake-up came): the submission is followed; the challenge keeps it pending past expires_at; the late SUCCESSFUL succeeds it', async () => {
  const draft = await cardDraft();
  const expiresMs = Date.parse(draft.expiresAt);
  h.rail.partner({ kind: 'accepted' }, []).statusBy((now) => (now >= expiresMs + 30 * 60_000 ? { status: 'succeeded', financialTransactionId: 'card-late' } : { status: 'pending' }));
  await h.start(draft);
  // The page claimed the charge a second before expiry; its wake-up was lost.
  h.store.cards.set(draft.id, { state: 'submitted', submittedAt: new Date(expiresMs - 1_000).toISOString(), outcome: 'accepted' });
  const result = await h.settle(draft.id);
  expect(result).toMatchObject({ status: 'succeeded' });
  expect(submitsOf(draft.id)).toEqual([]);
  expect(h.store.cards.get(draft.id)).toMatchObject({ state: 'submitted' });
});

test("the page's wake-up was lost but the aggregator's webhook (a partner callback) wakes the run: the submission is read at once, not at expires_at", async () => {
  const draft = await cardDraft();
  h.rail.partner({ kind: 'accepted' }, [{ status: 'succeeded', financialTransactionId: 'card-webhook' }]);
  const handle = await h.start(draft);
  const sentMs = await h.env.currentTimeMs();
  h.store.cards.set(draft.id, { state: 'submitted', submittedAt: new Date(sentMs).toISOString(), outcome: 'accepted' });
  await handle.signal(PARTNER_CALLBACK_SIGNAL);
  const result = await h.settle(draft.id);
  expect(result).toMatchObject({ status: 'succeeded' });
  const [succeeded] = h.store.transitionsOf(draft.id);
  expect(Date.parse(succeeded.at)).toBeLessThan(Date.parse(draft.expiresAt));
});
