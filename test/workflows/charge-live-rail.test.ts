import type { ChargeAttention } from '../../src/domain/charge-attention';
import { PARTNER_NO_ANSWER_ATTENTION_MS } from '../../src/domain/live-rail';
import { chargeAttentionQuery } from '../../workflows/messages';
import { startChargeTestEnv, type ChargeTestEnv } from './support/charge-env';

// A live charge on the partner rail (workflows/partner-follow.ts), on the time-skipping server with
// the rail's activities scripted (test/workflows/support/fake-rail-activities.ts): the submission's
// answer and the statuses the partner gives in turn. Nothing depends on wall time.

let h: ChargeTestEnv;
beforeAll(async () => {
  h = await startChargeTestEnv();
});
afterAll(async () => {
  await h?.close();
});

async function runLive(metadata: Record<string, unknown> = {}) {
  const draft = await h.draft({ environment: 'live', metadata });
  await h.start(draft);
  const result = await h.settle(draft.id);
  return { draft, result, transitions: h.store.transitionsOf(draft.id) };
}

test('accepted, pending, then succeeded: the charge succeeds; one submission, statuses polled; sandbox_outcome has no effect', async () => {
  h.rail.partner({ kind: 'accepted' }, [{ status: 'pending' }, { status: 'pending' }, { status: 'succeeded', financialTransactionId: 'ft-1' }]);
  const r = await runLive({ sandbox_outcome: 'insufficient_funds' });
  expect(r.transitions).toEqual([{ chargeId: r.draft.id, to: 'succeeded', failureClass: null, at: expect.any(String) }]);
  expect(h.rail.submits.filter((s) => s.paymentId === r.draft.id)).toEqual([{ paymentId: r.draft.id, product: 'collection' }]);
  expect(h.rail.statusCalls.filter((s) => s.paymentId === r.draft.id)).toHaveLength(3);
});

test('a retried submission the partner already has (duplicate) is followed like an accepted one', async () => {
  h.rail.partner({ kind: 'duplicate' }, [{ status: 'succeeded', financialTransactionId: 'ft-2' }]);
  const r = await runLive();
  expect(r.result).toMatchObject({ status: 'succeeded' });
});

test.each([
  ['refused at once', { kind: 'refused', reason: 'PAYER_NOT_FOUND', failureClass: 'invalid_recipient' } as const, [] as never[], 'invalid_recipient'],
  ['failed after acceptance', { kind: 'accepted' } as const, [{ status: 'failed', reason: 'NOT_ENOUGH_FUNDS', failureClass: 'insufficient_funds' }] as const, 'insufficient_funds'],
])('%s: failed with the mapped failure_class', async (_name, submit, statuses, failureClass) => {
  h.rail.partner(submit, [...statuses]);
  const r = await runLive();
  expect(r.transitions).toEqual([{ chargeId: r.draft.id, to: 'failed', failureClass, at: expect.any(String) }]);
});

test('the partner never answers: NeedsAttention with the reason after ten minutes, unresolved until expires_at, then expired', async () => {
  h.rail.partner({ kind: 'accepted' }, [{ status: 'pending' }]);
  const draft = await h.draft({ environment: 'live' });
  const handle = await h.start(draft);
  await h.env.sleep(PARTNER_NO_ANSWER_ATTENTION_MS + 2 * 60_000);
  const attention: ChargeAttention = await handle.query(chargeAttentionQuery);
  expect(attention).toMatchObject({ needsAttention: true, step: 'partner rail' });
  expect(attention.reason).toMatch(/partner has not given a final answer for request-to-pay/);
  expect(h.store.transitionsOf(draft.id)).toEqual([]);
  const result = await h.settle(draft.id);
  expect(result).toMatchObject({ status: 'expired', failureClass: 'timeout' });
  const [expired] = h.store.transitionsOf(draft.id);
  expect(Date.parse(expired.at)).toBeGreaterThanOrEqual(Date.parse(draft.expiresAt));
});

test('the partner does not know the reference: the same request is submitted again', async () => {
  h.rail.partner({ kind: 'accepted' }, [{ status: 'unknown' }, { status: 'succeeded', financialTransactionId: 'ft-3' }]);
  const r = await runLive();
  expect(r.result).toMatchObject({ status: 'succeeded' });
  expect(h.rail.submits.filter((s) => s.paymentId === r.draft.id)).toHaveLength(2);
});
