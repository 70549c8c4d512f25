import { chargeBody, idempotencyKey, type Harness, type TestMerchant, PAYMENT_QUEUES } from '../support/harness';
import { startPartnerHarness, type PartnerHarness } from '../support/partner-harness';
import { runCli } from '../support/run-cli';

/**
 * Issue 43, finding 3: `charges resolve` of a live charge is decided by the partner, on the real
 * stack (PostgreSQL with the status gate, the Temporal dev server, the fake partner over HTTP). The
 * partner keeps the request PENDING (behaviour `0004`) until the test settles it at the fake.
 * - PENDING: the resolution is refused, nothing changes (status, balance, audit), the charge stays
 *   awaiting_action and NeedsAttention;
 * - then SUCCESSFUL, evidence carrying its transaction id: the charge succeeds, `agreed: true`;
 * - FAILED while the operator says succeeded: the charge fails as the partner says, nothing is
 *   credited, and the answer and the audit row say the partner disagreed.
 * A refused resolution wakes the wait and asks at once; the next poll is a full delay later (at least
 * 3 s), so the fake's settle (no callback) is seen by the next resolution, not by a poll before it.
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

async function cli(...args: string[]) {
  return runCli(h.taskQueue, ...args);
}

/** A live charge the partner keeps PENDING, once its request-to-pay reached the partner: its id and reference. */
async function pendingCharge(): Promise<{ id: string; reference: string }> {
  const res = await h.request('live', 'POST', '/v1/charges', {
    key: m.liveKey,
    body: chargeBody({ customer: { identifier: '233240000004', name: 'Ama Mensah' }, reference: `resolve-${idempotencyKey()}` }),
    headers: { 'Idempotency-Key': idempotencyKey() },
  });
  expect(res.status).toBe(200);
  const id = res.json.id as string;
  const stop = Date.now() + 30_000;
  for (;;) {
    const [row] = await h.orm.em.fork().getConnection().execute<Array<{ reference_id: string }>>('select reference_id from rail_references where payment_id = ?', [id]);
    if (row && partner.fake.transaction('collection', row.reference_id)) return { id, reference: row.reference_id };
    if (Date.now() > stop) throw new Error(`charge ${id}: its request-to-pay never reached the partner`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function chargeRow(id: string) {
  const [row] = await h.orm.em.fork().getConnection().execute<Array<{ status: string; failure_class: string | null }>>('select status, failure_class from charges where id = ?', [id]);
  return row;
}

async function auditOf(id: string) {
  const r = await cli('audit', 'list', '--payment', id);
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout).data as Array<{ action: string; operator: string; state_after: Record<string, unknown> }>;
}

test("refused while the partner says PENDING (nothing changes); after its SUCCESSFUL, evidence with its transaction id resolves it: succeeded, agreed", async () => {
  const { id, reference } = await pendingCharge();
  const refused = await cli('charges', 'resolve', id, '--as', 'succeeded', '--evidence', 'ft-from-phone', '--reason', 'customer says paid', '--operator', 'ops:ama');
  expect(refused.code).toBe(1);
  expect(refused.stderr).toMatch(/the partner, asked at .*, says PENDING: only its final answer ends a live charge, so the resolution as succeeded was refused and nothing changed/);
  expect(await chargeRow(id)).toMatchObject({ status: 'awaiting_action' });
  expect(await auditOf(id)).toEqual([]);
  const described = await h.temporal.client.workflow.getHandle(id).describe();
  expect(described.status.name).toBe('RUNNING');

  expect(partner.fake.settle('collection', reference, { status: 'SUCCESSFUL' }, { callback: false })).toBe(true);
  const ft = partner.fake.transaction('collection', reference)!.state.financialTransactionId!;
  expect(ft).toEqual(expect.any(String));
  const resolved = await cli('charges', 'resolve', id, '--as', 'succeeded', '--evidence', `statement line 3: ${ft}`, '--reason', 'partner statement', '--operator', 'ops:ama');
  expect({ code: resolved.code, stderr: resolved.stderr }).toEqual({ code: 0, stderr: '' });
  expect(JSON.parse(resolved.stdout)).toMatchObject({ id, status: 'succeeded', resolution: { agreed: true, partner: `SUCCESSFUL (financialTransactionId ${ft})` } });
  expect(await chargeRow(id)).toMatchObject({ status: 'succeeded' });
  expect(await auditOf(id)).toEqual([
    expect.objectContaining({ action: 'charge.resolve', operator: 'ops:ama', state_after: expect.objectContaining({ status: 'succeeded', requested: 'succeeded', agreed: true }) }),
  ]);
});

test('resolved as succeeded while the partner says FAILED: the charge fails as the partner says, nothing is credited, and the operator is told', async () => {
  const { id, reference } = await pendingCharge();
  const before = await h.request('live', 'GET', '/v1/balance', { key: m.liveKey });
  // Asked at once: PENDING, refused (this also puts the next poll a full delay away).
  expect((await cli('charges', 'resolve', id, '--as', 'succeeded', '--evidence', 'ft-screenshot', '--reason', 'screenshot', '--operator', 'ops:kofi')).code).toBe(1);
  expect(partner.fake.settle('collection', reference, { status: 'FAILED', reason: 'NOT_ENOUGH_FUNDS' }, { callback: false })).toBe(true);
  const told = await cli('charges', 'resolve', id, '--as', 'succeeded', '--evidence', 'ft-screenshot', '--reason', 'screenshot', '--operator', 'ops:kofi');
  expect({ code: told.code, stderr: told.stderr }).toEqual({ code: 0, stderr: '' });
  expect(JSON.parse(told.stdout)).toMatchObject({
    id,
    status: 'failed',
    failure_class: 'insufficient_funds',
    resolution: { agreed: false, partner: 'FAILED (NOT_ENOUGH_FUNDS)', message: expect.stringMatching(/not succeeded: the charge is failed .* nothing is credited/) },
  });
  expect(await chargeRow(id)).toMatchObject({ status: 'failed', failure_class: 'insufficient_funds' });
  const after = await h.request('live', 'GET', '/v1/balance', { key: m.liveKey });
  expect(after.json.available).toEqual(before.json.available);
  expect(await auditOf(id)).toEqual([expect.objectContaining({ action: 'charge.resolve', state_after: expect.objectContaining({ status: 'failed', requested: 'succeeded', agreed: false, partner: 'FAILED (NOT_ENOUGH_FUNDS)' }) })]);
});
