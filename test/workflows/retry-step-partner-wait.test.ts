import { PARTNER_CALLBACK_SIGNAL, PARTNER_NO_ANSWER_ATTENTION_MS } from '../../src/domain/live-rail';
import { SA } from '../../src/domain/search-attributes';
import { retryStepUpdate } from '../../workflows/messages';
import { auditLog } from './support/fake-audit';
import { startPayoutTestEnv, type PayoutTestEnv } from './support/payout-env';

// Issue 43 (Medium): `retryStep` on a payment waiting for the partner was accepted, retried nothing
// and wrote an audit row. A live payout on the partner rail is flagged NeedsAttention ("waiting:
// partner rail") without a database step of its own giving up: the update's validator reads that
// reason and refuses, saying what the payout waits for; nothing is written, no audit row.

let h: PayoutTestEnv;
beforeAll(async () => {
  h = await startPayoutTestEnv();
});
afterAll(async () => {
  await h?.close();
});

test('a live payout waiting for the partner: retryStep is refused (what it waits for), nothing written, no audit row; it ends on the partner word', async () => {
  const record = await h.payout({ environment: 'live' });
  let paid = false;
  h.rail.partner({ kind: 'accepted' }, []).statusBy(() => (paid ? { status: 'succeeded', financialTransactionId: 'ft-retry' } : { status: 'pending' }));
  await h.start(record);
  await h.env.sleep(PARTNER_NO_ANSWER_ATTENTION_MS + 60_000);
  const attributes = await h.searchAttributes(record.id);
  expect(attributes.get(SA.NeedsAttention)).toBe(true);
  expect(attributes.get(SA.NeedsAttentionReason)).toBe('waiting: partner rail');

  const refusal = await h
    .handle(record.id)
    .executeUpdate(retryStepUpdate, { args: [{ operator: 'ops@example.com', reason: 'database back' }] })
    .then(
      () => 'accepted',
      (error: unknown) => (error as { cause?: { message?: string } }).cause?.message ?? String(error),
    );
  expect(refusal).toBe(
    `${record.id} waits for the partner's word ("waiting: partner rail"), not for a database step that gave up: nothing to retry, nothing was written; ` +
      'the engine keeps asking the partner and the payment follows its word by itself (ask the partner about the reference; payments stuck shows the wait)',
  );
  expect(auditLog.of(record.id)).toEqual([]);
  expect(h.store.transitionsOf(record.id)).toEqual([]);

  paid = true;
  await h.handle(record.id).signal(PARTNER_CALLBACK_SIGNAL);
  await h.handle(record.id).result();
  expect(h.store.transitionsOf(record.id).map((t) => t.to)).toEqual(['succeeded']);
  expect(auditLog.of(record.id)).toEqual([]);
});
