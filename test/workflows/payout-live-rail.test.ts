import { LIVE_PAYOUT_DEADLINE_MS, PARTNER_NO_ANSWER_ATTENTION_MS } from '../../src/domain/live-rail';
import { SA } from '../../src/domain/search-attributes';
import { startPayoutTestEnv, type PayoutTestEnv } from './support/payout-env';

// A live payout on the partner rail (workflows/payout-rail.ts followLivePayout), on the time-skipping
// server with the rail's activities scripted (test/workflows/support/fake-rail-activities.ts).

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
  expect(h.rail.submits.filter((s) => s.paymentId === r.record.id)).toEqual([{ paymentId: r.record.id, product: 'disbursement' }]);
});

test('PAYEE_NOT_ALLOWED_TO_RECEIVE: failed with invalid_recipient', async () => {
  h.rail.partner({ kind: 'accepted' }, [{ status: 'failed', reason: 'PAYEE_NOT_ALLOWED_TO_RECEIVE', failureClass: 'invalid_recipient' }]);
  const r = await runLive();
  expect(r.transitions).toEqual([{ to: 'failed', failureClass: 'invalid_recipient' }]);
});

test('the partner never answers: NeedsAttention after ten minutes, failed with timeout after 24 hours', async () => {
  h.rail.partner({ kind: 'accepted' }, [{ status: 'pending' }]);
  const record = await h.payout({ environment: 'live' });
  const handle = await h.start(record);
  await h.env.sleep(PARTNER_NO_ANSWER_ATTENTION_MS + 2 * 60_000);
  expect((await h.searchAttributes(record.id)).get(SA.NeedsAttention)).toBe(true);
  expect(h.store.transitionsOf(record.id)).toEqual([]);
  const started = await h.env.currentTimeMs();
  const result = await handle.result();
  expect(result).toMatchObject({ status: 'failed', failureClass: 'timeout' });
  expect((await h.env.currentTimeMs()) - started).toBeGreaterThanOrEqual(LIVE_PAYOUT_DEADLINE_MS - PARTNER_NO_ANSWER_ATTENTION_MS - 3 * 60_000);
});
