import { restartPayment } from '../../src/services/restart-payment';
import { stuckPayments } from '../../src/services/stuck-payments';
import { chargeBody, idempotencyKey, type Harness, type TestMerchant, PAYMENT_QUEUES } from '../support/harness';
import { startPartnerHarness, type PartnerHarness } from '../support/partner-harness';

/**
 * Issue 43 (Medium, "terminate or reset strands money"): a live charge whose run is terminated while
 * the partner says PENDING keeps the customer's hold with nothing watching it. `payments stuck`
 * lists it (before its expires_at too) with "restart it", and `payments restart` starts a run that
 * resumes the wait for the partner from the database (src/services/restart-charge.ts): no new
 * request-to-pay as a first submission, the first submission's window and the partner's
 * acknowledgement kept. The partner's SUCCESSFUL then ends it succeeded, credited once.
 * `payments stuck` is scoped to this charge's workflow (the dev server is shared by every file).
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

/** Polls until `probe` gives a value (real time). */
async function waitFor<T>(probe: () => Promise<T | undefined | false>, timeoutMs: number): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const sql = <T = Record<string, unknown>>(text: string, params: unknown[] = []) => h.orm.em.fork().getConnection().execute<T[]>(text, params);

const stuckOf = (id: string) =>
  stuckPayments({ orm: h.orm, client: h.temporal.client, namespace: 'default', uiBaseUrl: 'http://ui.test', query: `WorkflowId = '${id}'`, graceMs: 0, requestDeadlineMs: 3_000 });

const submissionsOf = (reference: string) =>
  partner.fake.requests.filter((r) => r.method === 'POST' && r.path === '/collection/v1_0/requesttopay' && JSON.stringify(r.headers).includes(reference)).length;

test('a live charge terminated while PENDING (before expires_at): listed by payments stuck, restarted as a repeat, ended by the SUCCESSFUL once', async () => {
  const res = await h.request('live', 'POST', '/v1/charges', {
    key: m.liveKey,
    // 0004: accepted, PENDING until the test settles it at the fake.
    body: chargeBody({ customer: { identifier: '233240000004', name: 'Ama Mensah' }, reference: `restart-${idempotencyKey()}` }),
    headers: { 'Idempotency-Key': idempotencyKey() },
  });
  expect(res.status).toBe(200);
  const id = res.json.id as string;
  const expiresAt = res.json.expires_at as string;
  const reference = await waitFor(async () => {
    const [row] = await sql<{ reference_id: string }>('select reference_id from rail_references where payment_id = ?', [id]);
    const acknowledged = await sql(`select 1 from rail_answers where payment_id = ? and outcome = 'acknowledged'`, [id]);
    return row && acknowledged.length > 0 && partner.fake.transaction('collection', row.reference_id) ? row.reference_id : undefined;
  }, 20_000);
  expect(submissionsOf(reference)).toBe(1);

  await h.temporal.client.workflow.getHandle(id).terminate('test: the run died while the partner said PENDING');
  const [held] = await sql<{ status: string }>('select status from charges where id = ?', [id]);
  expect(['pending', 'awaiting_action']).toContain(held.status);
  expect(Date.now()).toBeLessThan(Date.parse(expiresAt)); // listed before its expiry, not only by the overdue check

  const listed = await waitFor(async () => (await stuckOf(id)).data.find((e) => e.id === id), 10_000);
  expect(listed).toMatchObject({ id, type: 'charge', environment: 'live', partner: 'momo', status: held.status, workflow: 'closed' });
  expect(listed.reason).toMatch(new RegExp(`its workflow is closed \\(TERMINATED\\): nothing will finish it; restart it: payments restart ${id} --reason TEXT`));

  const restarted = await restartPayment(h.orm, h.temporal, h.taskQueue, id, { operator: 'ops:test', reason: 'run terminated while pending' });
  expect(restarted).toMatchObject({ id, type: 'charge', status: held.status, previous_workflow: 'TERMINATED', restarted: true });
  // Refused while its new run is running.
  await expect(restartPayment(h.orm, h.temporal, h.taskQueue, id, { operator: 'ops:test', reason: 'again' })).rejects.toThrow(/its workflow is running; nothing to restart/);
  const input = (await h.temporal.client.workflow.getHandle(id).fetchHistory()).events?.[0]?.workflowExecutionStartedEventAttributes?.input;
  expect(input?.payloads?.length).toBe(1);
  await waitFor(async () => (await sql(`select 1 from operator_audit where payment_id = ? and action = 'charge.restart'`, [id])).length === 1, 10_000);
  await waitFor(async () => !(await stuckOf(id)).data.some((e) => e.id === id), 10_000);

  expect(partner.fake.settle('collection', reference, { status: 'SUCCESSFUL' })).toBe(true);
  await waitFor(async () => (await sql<{ status: string }>('select status from charges where id = ?', [id]))[0].status === 'succeeded', 20_000);
  // The restarted run ends with the charge (it completes right after its transition is written).
  expect(await h.temporal.client.workflow.getHandle(id).result()).toMatchObject({ id, status: 'succeeded' });
  // The restarted run resumed the wait: the reference was never submitted again as a first submission.
  expect(submissionsOf(reference)).toBe(1);
  const events = await sql<{ type: string; n: number }>(`select type, count(*)::int as n from events where resource_id = ? group by type order by type`, [id]);
  expect(events.find((e) => e.type === 'transaction.succeeded')?.n).toBe(1);
  // Finished: nothing to restart.
  await expect(restartPayment(h.orm, h.temporal, h.taskQueue, id, { operator: 'ops:test', reason: 'again' })).rejects.toThrow(`charge ${id} is succeeded: it is finished, nothing to restart`);
  const captures = await sql<{ n: number }>(`select count(distinct transfer_id)::int as n from ledger_entries where resource_id = ? and kind = 'capture'`, [id]);
  expect(captures[0].n).toBe(1);
}, 60_000);

test('an id of no charge is refused, naming what can be restarted', async () => {
  await expect(restartPayment(h.orm, h.temporal, h.taskQueue, 'txn_doesnotexist', { operator: 'ops:test', reason: 'x' })).rejects.toThrow(/no charge, payout, refund, dispute or settlement batch has this id/);
});
