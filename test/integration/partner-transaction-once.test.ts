import { randomUUID } from 'node:crypto';
import { passGate, PaymentGateRefusedError } from '../../src/persistence/payment-gate';
import { recordRailAnswer } from '../../src/persistence/partner/rail-answer-store';
import { chargeBody, idempotencyKey, type Harness, type TestMerchant, PAYMENT_QUEUES } from '../support/harness';
import { startPartnerHarness, type PartnerHarness } from '../support/partner-harness';

/**
 * Issue 43 (Low: "financialTransactionId is not unique across payments: two charges resolved with the
 * same evidence are both credited"): one partner transaction pays one payment. Two real live charges
 * that reached the fake partner (0004, PENDING; their runs terminated so nothing else moves them);
 * the partner's SUCCESSFUL for each is recorded with the same financialTransactionId. The first ends
 * succeeded through the gate; the second is refused with the id and the payment it already paid, and
 * stays where it was. With its own id it passes. Everything runs in one transaction rolled back at the
 * end, so the charges keep no end without their postings.
 */

let partner: PartnerHarness;
let h: Harness;
let m: TestMerchant;

beforeAll(async () => {
  partner = await startPartnerHarness({ queues: PAYMENT_QUEUES });
  h = partner.h;
  m = await h.merchant({ verified: true });
});
afterAll(async () => {
  await partner?.close();
});

const sql = <T = Record<string, unknown>>(text: string, params: unknown[] = []) => h.orm.em.fork().getConnection().execute<T[]>(text, params);

/** A live charge the partner acknowledged (PENDING), its run terminated: its id and status. */
async function acknowledgedCharge(): Promise<{ id: string; status: string }> {
  const res = await h.request('live', 'POST', '/v1/charges', {
    key: m.liveKey,
    body: chargeBody({ customer: { identifier: '233240000004', name: 'Ama Mensah' }, reference: `ft-once-${idempotencyKey()}` }),
    headers: { 'Idempotency-Key': idempotencyKey() },
  });
  expect(res.status).toBe(200);
  const id = res.json.id as string;
  const until = Date.now() + 20_000;
  while ((await sql(`select 1 from rail_answers where payment_id = ? and outcome = 'acknowledged'`, [id])).length === 0) {
    if (Date.now() > until) throw new Error(`charge ${id}: the partner never acknowledged it`);
    await new Promise((r) => setTimeout(r, 100));
  }
  await h.temporal.client.workflow.getHandle(id).terminate('test: the gate is driven by hand');
  const [row] = await sql<{ status: string }>('select status from charges where id = ?', [id]);
  return { id, status: row.status };
}

class Rollback extends Error {}

test('the partner transaction id that paid one live charge does not end a second one succeeded', async () => {
  const a = await acknowledgedCharge();
  const b = await acknowledgedCharge();
  const ft = `FT-${randomUUID()}`;
  const outcome = await h.orm.em
    .fork()
    .transactional(async (em) => {
      const succeeded = (paymentId: string, id: string) => recordRailAnswer(em, { paymentId, source: 'status', outcome: 'succeeded', partnerStatus: 'SUCCESSFUL', amount: 15_000, currency: 'GHS', partnerTransactionId: id });
      await succeeded(a.id, ft);
      expect((await passGate(em, { kind: 'charge', id: a.id, from: a.status, to: 'succeeded' })).railAnswerId).toEqual(expect.any(String));

      await succeeded(b.id, ft);
      const refused = await passGate(em, { kind: 'charge', id: b.id, from: b.status, to: 'succeeded' }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(PaymentGateRefusedError);
      expect((refused as Error).message).toBe(
        `payment gate: live charge ${b.id} ${b.status} -> succeeded refused: the partner's transaction id ${ft} already paid ${a.id} (succeeded); ` +
          `one partner transaction pays one payment: ask the partner which reference it paid (its statement), the payment stays ${b.status}`,
      );
      const [still] = await em.execute<Array<{ status: string }>>('select status from charges where id = ?', [b.id]);
      expect(still.status).toBe(b.status);

      // The same charge with the partner's own, different transaction id (a callback's) still ends on it.
      await em.execute(`delete from rail_answers where payment_id = ? and outcome = 'succeeded'`, [b.id]);
      await recordRailAnswer(em, { paymentId: b.id, source: 'callback', outcome: 'succeeded', partnerStatus: 'SUCCESSFUL', amount: 15_000, currency: 'GHS', partnerTransactionId: `FT-${randomUUID()}` });
      await passGate(em, { kind: 'charge', id: b.id, from: b.status, to: 'succeeded' });
      throw new Rollback('checked');
    })
    .catch((e: unknown) => e);
  expect(outcome).toBeInstanceOf(Rollback);
  // Compared as sets: PostgreSQL's `order by` and JavaScript's localeCompare order mixed-case ids differently.
  const byId = (rows: Array<{ id: string; status: string }>) => [...rows].sort((x, y) => (x.id < y.id ? -1 : 1));
  expect(byId(await sql<{ id: string; status: string }>(`select id, status from charges where id in (?, ?)`, [a.id, b.id]))).toEqual(byId([a, b].map((c) => ({ id: c.id, status: c.status }))));
});
