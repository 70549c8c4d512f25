/**
 * Stuck charges (defect 6) against the suite's PostgreSQL and Temporal dev server: the reconciler
 * and `payments stuck` report a charge unresolved past expires_at whose workflow is closed or
 * missing; a transition the database keeps refusing marks the charge NeedsAttention with its
 * reason, the reconciler asks it to retry, and `charges retry` finishes it once the database heals.
 * Visibility and the workflow's give-up are asynchronous, so those waits are retried a bounded
 * number of times (no timing is asserted).
 */
import pino from 'pino';
import { SA } from '../../src/domain/search-attributes';
import { applyChargeTransition, insertAcceptedCharge } from '../../src/persistence/charges/charge-store';
import { rowToRecord } from '../../src/persistence/charges/charge-mapping';
import { Charge } from '../../src/persistence/entities';
import { reconcileOnce, type ReconcilerDeps } from '../../src/runtime/charge-reconciler';
import { newId } from '../../src/support/new-id';
import { chargeAttentionQuery } from '../../workflows/messages';
import { fundMerchant } from '../support/fund-merchant';
import { chargeBody, idempotencyKey, MTN_GH, startHarness, type Harness, type TestMerchant } from '../support/harness';
import { runCli } from '../support/run-cli';
import { installChargeStatusTrigger } from '../support/charge-status-trigger';

let h: Harness;
let merchant: TestMerchant;
const logged: Array<Record<string, unknown>> = [];
let deps: ReconcilerDeps;
let trigger: { remove(): Promise<void> } | undefined;

const sql = <T extends object[] = object[]>(text: string, params: unknown[] = []) => h.orm.em.getConnection().execute<T>(text, params);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function eventually<T>(look: () => Promise<T>, done: (value: T) => boolean, attempts = 100): Promise<T> {
  let value = await look();
  for (let i = 0; i < attempts && !done(value); i++) {
    await sleep(200);
    value = await look();
  }
  return value;
}

const cli = (...args: string[]) => runCli(h.taskQueue, ...args);

async function cliJson(...args: string[]): Promise<any> {
  const result = await cli(...args);
  expect({ args, code: result.code, stderr: result.stderr }).toEqual({ args, code: 0, stderr: '' });
  expect(result.stdout.indexOf('\n')).toBe(result.stdout.length - 1);
  return JSON.parse(result.stdout);
}

const stuckIds = async (...args: string[]) => ((await cliJson('payments', 'stuck', ...args)).data as Array<{ id: string }>).map((p) => p.id);

async function createCharge(body: Record<string, unknown>): Promise<string> {
  const r = await h.request('sandbox', 'POST', '/v1/charges', { key: merchant.testKey, body, headers: { 'Idempotency-Key': idempotencyKey() } });
  expect(r.status).toBe(200);
  return r.json.id;
}

const pastExpiry = (id: string) => sql(`update charges set expires_at = now() - interval '10 minutes' where id = ?`, [id]);

beforeAll(async () => {
  h = await startHarness();
  merchant = await h.merchant();
  const log = pino({ level: 'warn' }, { write: (line: string) => void logged.push(JSON.parse(line)) });
  deps = { orm: h.orm, client: h.temporal.client, taskQueue: h.taskQueue, log };
  // The database refuses status changes of the charges whose reference is listed in
  // test_refuse_charge_charges (SQLSTATE 22023: the same input fails again, so the activity does not
  // retry); every other write goes through.
  trigger = await installChargeStatusTrigger(h, 'test_refuse_charge', '22023');
});

afterAll(async () => {
  await trigger?.remove();
  await h?.close();
});

test('a charge past expires_at whose workflow is closed, or missing, is reported by the reconciler and by payments stuck', async () => {
  // Closed: a pending charge whose workflow was terminated; missing: a charge written as the API
  // writes one (row, hold, event) whose workflow was confirmed started once and is gone
  // (workflow_started_at set, so the charge-start relay leaves it alone).
  const closed = await createCharge(chargeBody({ metadata: { sandbox_outcome: 'pending' } }));
  await h.temporal.client.workflow.getHandle(closed).terminate('test: workflow lost');
  const missing = newId('charge');
  await h.orm.em.fork().transactional(async (em) => {
    const source = rowToRecord(await em.findOneOrFail(Charge, { id: closed }));
    await insertAcceptedCharge(em, { ...source, id: missing, reference: `ref-${missing}` }, new Date());
  });
  const inFlight = await createCharge(chargeBody({ metadata: { sandbox_outcome: 'pending' } })); // not yet expired: not reported
  await pastExpiry(closed);
  await pastExpiry(missing);

  logged.length = 0;
  const pass = await reconcileOnce(deps);
  const byId = new Map(pass.map((c) => [c.id, c]));
  expect(byId.get(closed)).toMatchObject({ status: 'awaiting_action', workflow: { state: 'closed', executionStatus: 'TERMINATED' }, action: 'reported' });
  expect(byId.get(missing)).toMatchObject({ status: 'awaiting_action', workflow: { state: 'not_found', executionStatus: null }, action: 'reported' });
  expect(byId.get(closed)!.overdueSeconds).toBeGreaterThanOrEqual(600);
  expect(byId.has(inFlight)).toBe(false);
  const warnings = logged.filter((l) => l.msg === 'overdue charge: unresolved past expires_at');
  expect(warnings.find((w) => w.chargeId === closed)).toMatchObject({ status: 'awaiting_action', workflow: 'closed', ageSeconds: expect.any(Number), action: 'reported' });
  expect(warnings.find((w) => w.chargeId === missing)).toMatchObject({ workflow: 'not_found' });

  const stuck = await cliJson('payments', 'stuck', '--env', 'test');
  const listed = new Map((stuck.data as Array<Record<string, unknown>>).map((p) => [p.id, p]));
  expect(listed.get(closed)).toEqual({
    id: closed,
    type: 'charge',
    environment: 'sandbox',
    // Issue 46: the partner it went to (the sandbox's simulator here).
    partner: 'sandbox',
    status: 'awaiting_action',
    // Since issue 43 a charge can be restarted (src/services/restart-charge.ts): the reason says how.
    reason: `still awaiting_action past expires_at, but its workflow is closed (TERMINATED): nothing will finish it; restart it: payments restart ${closed} --reason TEXT`,
    needs_attention: false,
    workflow: 'closed',
    age_seconds: expect.any(Number),
    overdue_seconds: expect.any(Number),
    ui_url: `http://127.0.0.1:8233/namespaces/default/workflows/${closed}`,
    // No open run, so no build it is pinned to (issue 31: a run pinned to an unpolled build shows its build).
    build_id: null,
    deployment: null,
  });
  expect(listed.get(missing)).toMatchObject({ workflow: 'not_found', reason: `still awaiting_action past expires_at, and it has no workflow: nothing will finish it; restart it: payments restart ${missing} --reason TEXT` });
  expect(listed.has(inFlight)).toBe(false);
  expect(await stuckIds('--env', 'live')).not.toEqual(expect.arrayContaining([closed]));

  await h.temporal.client.workflow.getHandle(inFlight).terminate('test finished');
  // Out of later passes: expired as the workflow expires a charge, its hold voided (the ledger check
  // at the end of the file finds an ended charge with its hold still posted).
  for (const id of [closed, missing, inFlight]) await applyChargeTransition(h.orm, { chargeId: id, to: 'expired', failureClass: null, at: new Date().toISOString() });
});

test('a transition the database keeps refusing: NeedsAttention with the reason, listed, retried by the reconciler, finished by charges retry', async () => {
  const reference = `refused-${newId('charge')}`;
  await sql(`insert into test_refuse_charge_charges (reference) values (?)`, [reference]);
  const created = await createCharge(chargeBody({ reference }));
  const handle = h.temporal.client.workflow.getHandle(created);
  // The sandbox approves after 3 s; the transition to succeeded is refused at once (not retryable).
  const attention = await eventually(() => handle.query(chargeAttentionQuery), (a) => a.needsAttention);
  expect(attention).toMatchObject({ needsAttention: true, step: 'charge -> succeeded', giveUps: 1 });
  expect(attention.reason).toMatch(/^charge -> succeeded: gave up \(not retryable\): DeterministicDatabaseError: database refused the input \(SQLSTATE 22023\): .*test: charge txn_\w+ refused/);
  expect((await handle.describe()).typedSearchAttributes.get(SA.NeedsAttention)).toBe(true);

  const listedAs = (ids: Array<Record<string, unknown>>) => ids.find((p) => p.id === created);
  const stuck = await eventually(async () => (await cliJson('payments', 'stuck')).data, (data) => listedAs(data) !== undefined, 50);
  expect(listedAs(stuck)).toMatchObject({ id: created, needs_attention: true, workflow: 'needs_attention', status: 'awaiting_action', reason: attention.reason });

  // Overdue: the reconciler asks the workflow to retry; the database still refuses, so it gives up again.
  await pastExpiry(created);
  const pass = await reconcileOnce(deps);
  expect(pass.find((c) => c.id === created)).toMatchObject({ workflow: { state: 'needs_attention', reason: attention.reason }, action: 'retry_requested' });
  const again = await eventually(() => handle.query(chargeAttentionQuery), (a) => a.giveUps === 2 && a.needsAttention);
  expect(again).toMatchObject({ giveUps: 2, automaticRetries: 1 });
  // The reconciler names itself (issue 31): its retry is audited as system:reconciler, counted as automatic.
  const audited = await sql<Array<{ action: string; operator: string }>>(`select action, operator from operator_audit where payment_id = ?`, [created]);
  expect(audited).toEqual([{ action: 'charge.retry_step', operator: 'system:reconciler' }]);

  // The database heals; an operator retries.
  await sql(`delete from test_refuse_charge_charges where reference = ?`, [reference]);
  const refused = await cli('charges', 'retry', created);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toMatch(/--reason/);
  expect(await cliJson('charges', 'retry', created, '--reason', 'database fixed')).toEqual({ id: created, step: 'charge -> succeeded', retried_by: 'operator', reason: 'database fixed' });
  expect((await h.settled(created)).status).toBe('succeeded');
  expect((await handle.describe()).typedSearchAttributes.get(SA.NeedsAttention)).toBe(false);
  const row = await sql<Array<{ status: string }>>(`select status from charges where id = ?`, [created]);
  expect(row[0].status).toBe('succeeded');

  // Nothing to retry any more.
  const late = await cli('charges', 'retry', created, '--reason', 'again');
  expect(late.code).toBe(1);
  expect(late.stderr).toContain(`charge ${created}: its workflow is closed (COMPLETED); nothing to retry`);
});

test('payments stuck lists every payment type marked NeedsAttention: a payout held for review, with its reason, age and UI link', async () => {
  await fundMerchant(h, merchant.id, 1_000_000);
  const res = await h.request('sandbox', 'POST', '/v1/payouts', {
    key: merchant.testKey,
    headers: { 'Idempotency-Key': idempotencyKey() },
    body: { amount: 25_000, currency: 'GHS', channel: 'mobile_money', momo_network_id: MTN_GH, recipient: { identifier: '233241234567', name: 'Kofi Boateng' }, reference: 'stuck', metadata: { sandbox_outcome: 'held_for_review' } },
  });
  expect([res.status, res.json.status]).toEqual([200, 'held_for_review']);
  const payout: string = res.json.id;
  const handle = h.temporal.client.workflow.getHandle(payout);
  // The workflow raises NeedsAttention once it waits for the decision (visibility follows a moment later).
  await eventually(async () => (await handle.describe()).typedSearchAttributes.get(SA.NeedsAttention), (v) => v === true);

  const listedAs = (data: Array<Record<string, unknown>>) => data.find((p) => p.id === payout);
  const stuck = await eventually(async () => (await cliJson('payments', 'stuck', '--env', 'test')).data, (data) => listedAs(data) !== undefined, 50);
  expect(listedAs(stuck)).toEqual({
    id: payout,
    type: 'payout',
    environment: 'sandbox',
    partner: 'sandbox',
    status: 'held_for_review',
    reason: expect.stringMatching(/^held for review: waiting for decidePayout \(approve\|reject with a reason\) until \S+, then declined$/),
    needs_attention: true,
    workflow: 'needs_attention',
    age_seconds: expect.any(Number),
    overdue_seconds: null,
    ui_url: `http://127.0.0.1:8233/namespaces/default/workflows/${payout}`,
    // The suite's worker runs unversioned: the run is pinned to no build.
    build_id: null,
    deployment: null,
  });
  expect(listedAs(stuck)!.age_seconds).toBeGreaterThanOrEqual(0);
  expect(await stuckIds('--env', 'live')).not.toContain(payout);

  // Decided: no longer marked, no longer listed.
  await cliJson('payouts', 'reject', payout, '--reason', 'test finished');
  expect(await handle.result()).toMatchObject({ status: 'failed', failureClass: 'declined' });
  const after = await eventually(() => stuckIds('--env', 'test'), (ids) => !ids.includes(payout), 50);
  expect(after).not.toContain(payout);
});
