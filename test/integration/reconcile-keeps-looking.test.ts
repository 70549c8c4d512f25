import { paymentReviewWorkflowId } from '../../src/domain/payment-review';
import type { FakePartner } from '../../src/rail/fake-partner';
import type { StatementLine } from '../../src/rail/momo-statement';
import { chargeBody, idempotencyKey, type Harness, type TestMerchant, PAYMENT_QUEUES } from '../support/harness';
import { startPartnerHarness, type PartnerHarness } from '../support/partner-harness';
import { execCli, cliEnv } from '../support/run-cli';
import { until } from '../support/webhook-fixtures';

/**
 * Issue 43, "Reconciliation that keeps looking", on the real stack (PostgreSQL, Temporal, the worker,
 * the fake partner over HTTP, the CLI in process): `reconcile run` imports yesterday by default and
 * today only with --partial, which never locks the day; a line the partner lists PENDING is not
 * matched but a `pending_at_partner` break, and the day is fetched again (by `reconcile run` of that
 * day, and by the next day's import) until the line is final, which closes the break (and opens one
 * when the final line differs); `reconcile resolve` records what was checked, refuses what the
 * engine cannot verify, and refuses a status_mismatch while the payment's late money is unsettled.
 */

let partner: PartnerHarness;
let fake: FakePartner;
let h: Harness;
let m: TestMerchant;

beforeAll(async () => {
  partner = await startPartnerHarness({ queues: PAYMENT_QUEUES, fake: { approveAfterMs: 200 } });
  ({ h, fake } = partner);
  m = await h.merchant({ verified: true });
});
afterAll(async () => {
  await partner?.close();
});

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

function cli(...args: string[]) {
  return execCli(
    args,
    cliEnv(h.taskQueue, {
      PARTNER_BASE_URL: fake.url,
      PARTNER_API_USER: fake.config.apiUser,
      PARTNER_API_KEY: fake.config.apiKey,
      PARTNER_SUBSCRIPTION_KEY: fake.config.subscriptionKey,
      PARTNER_TARGET_ENVIRONMENT: fake.config.targetEnvironment,
      PARTNER_CALLBACK_BASE_URL: h.urls.live,
      PARTNER_CALLBACK_SECRET: partner.callbackSecret,
    }),
  );
}

async function json(...args: string[]) {
  const result = await cli(...args);
  if (result.code !== 0) throw new Error(`cli ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

async function refused(args: string[], text: string) {
  const result = await cli(...args);
  expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 1, stdout: '' });
  expect(result.stderr).toContain(text);
  return result.stderr;
}

/** A live charge on the rail (its reference made); `final`: waits for it to end. */
async function liveCharge(suffix: string): Promise<{ id: string; reference: string }> {
  const res = await h.request('live', 'POST', '/v1/charges', {
    key: m.liveKey,
    body: chargeBody({ customer: { identifier: `23324000${suffix}`, name: 'Ama Mensah' }, reference: `keep-${suffix}-${idempotencyKey()}` }),
    headers: { 'Idempotency-Key': idempotencyKey() },
  });
  expect(res.status).toBe(200);
  const id: string = res.json.id;
  const reference = await until(`the rail reference of ${id}`, async () => {
    const rows = await h.orm.em.getConnection().execute<Array<{ reference_id: string }>>(`select reference_id::text from rail_references where payment_id = ?`, [id]);
    return rows[0]?.reference_id;
  });
  // The partner holds it (accepted) before a statement can list it.
  await until(`the partner's transaction of ${id}`, async () => fake.transaction('collection', reference) !== undefined);
  return { id, reference };
}

type Break = { id: string; kind: string; payment_id: string | null; status: string; resolved_by: string | null; statement_date: string; resolved_checked: string | null };
const breaksOf = async (paymentId: string): Promise<Break[]> => (await json('reconcile', 'breaks', '--limit', '10000')).data.filter((b: Break) => b.payment_id === paymentId);
const statementRow = async (date: string) =>
  (await h.orm.em.getConnection().execute<Array<{ partial: boolean; pending_lines: number; fetch_count: number }>>(`select partial, pending_lines, fetch_count from partner_statements where partner = 'momo' and product = 'collection' and statement_date = ?::date`, [date]))[0];

test('reconcile run: yesterday by default; today only with --partial; no day to come', async () => {
  await refused(['reconcile', 'run', '--date', day(0), '--product', 'disbursement'], '--partial');
  await refused(['reconcile', 'run', '--date', day(1), '--product', 'disbursement'], 'a day to come');
  await refused(['reconcile', 'run', '--partial', '--date', day(-2), '--product', 'disbursement'], 'run without --partial');
  const yesterday = await json('reconcile', 'run', '--product', 'disbursement');
  expect(yesterday).toMatchObject({ date: day(-1), product: 'disbursement' });
  expect((await json('reconcile', 'run', '--product', 'disbursement', '--partial')).date).toBe(day(0));
});

test('--partial never locks the day; a PENDING line is a pending_at_partner break, closed when a later fetch lists it final; an omitted line is not resolved by hand', async () => {
  const pending = await liveCharge('0004'); // the partner answers nothing by itself: PENDING
  const omitted = await liveCharge('4567');
  expect(await h.settled(omitted.id)).toMatchObject({ status: 'succeeded' });
  fake.amendStatement('collection', omitted.reference, { omit: true });

  const first = await json('reconcile', 'run', '--partial', '--product', 'collection');
  expect(first).toMatchObject({ date: day(0), partial: true, already_imported: false });
  expect(first.breaks.pending_at_partner).toBeGreaterThanOrEqual(1);
  expect(await breaksOf(pending.id)).toEqual([expect.objectContaining({ kind: 'pending_at_partner', status: 'open' })]);
  const [missing] = await breaksOf(omitted.id);
  expect(missing).toMatchObject({ kind: 'missing_there', status: 'open' });
  expect(await statementRow(day(0))).toMatchObject({ partial: true });

  // Neither is closed by hand: the engine has nothing of the partner's to check them against.
  await refused(['reconcile', 'resolve', (await breaksOf(pending.id))[0].id, '--checked', 'called the partner', '--reason', 'r', '--operator', 'ops:ama'], 'fetched again');
  await refused(['reconcile', 'resolve', missing.id, '--checked', 'called the partner', '--reason', 'r', '--operator', 'ops:ama'], 'cannot verify');

  // The partner approves; it lists the omitted line after all. The partial day is fetched again.
  expect(fake.settle('collection', pending.reference, { status: 'SUCCESSFUL' })).toBe(true);
  expect(await h.settled(pending.id)).toMatchObject({ status: 'succeeded' });
  fake.amendStatement('collection', omitted.reference, { omit: false });
  const again = await json('reconcile', 'run', '--partial', '--product', 'collection');
  expect(again).toMatchObject({ partial: true, already_imported: false, refetched: true });
  expect(again.closed_breaks).toBeGreaterThanOrEqual(2);
  for (const id of [pending.id, omitted.id]) {
    expect((await breaksOf(id)).map((b) => [b.status, b.resolved_by])).toEqual([['resolved', 'reconciliation']]);
  }
  // The omitted charge's review (flagged by its break) is told its reconciliation reasons are closed, and ends.
  const review = h.temporal.client.workflow.getHandle(paymentReviewWorkflowId(omitted.id));
  await until('the review to end', async () => (await review.describe()).status.name === 'COMPLETED');
  const [line] = await h.orm.em.getConnection().execute<Array<{ status: string }>>(
    `select l.status from partner_statement_lines l join partner_statements s on s.id = l.statement_id where s.product = 'collection' and s.statement_date = ?::date and l.payment_id = ?`,
    [day(0), pending.id],
  );
  expect(line.status).toBe('SUCCESSFUL');
  expect((await statementRow(day(0))).fetch_count).toBeGreaterThanOrEqual(2);
});

test("a past day with a PENDING line is fetched again by the next day's import until final; a final line that differs opens its break; then the day is locked", async () => {
  const charge = await liveCharge('0004');
  const past = day(-3);
  const line: StatementLine = { referenceId: charge.reference, financialTransactionId: null, externalId: charge.id, amount: '150.00', currency: 'GHS', status: 'PENDING', reason: null, party: '****0004', time: `${past}T10:00:00.000Z`, completedAt: null };
  fake.addStatementLine('collection', line);

  expect(await json('reconcile', 'run', '--date', past, '--product', 'collection')).toMatchObject({ date: past, pending_lines: 1, already_imported: false, breaks: { pending_at_partner: 1 } });
  // Still PENDING: the day is not locked; `reconcile run` of that day fetches it again.
  expect(await json('reconcile', 'run', '--date', past, '--product', 'collection')).toMatchObject({ pending_lines: 1, already_imported: false, refetched: true, closed_breaks: 0 });

  // The partner approves, and its statement of that day now lists the line SUCCESSFUL, one cedi more.
  expect(fake.settle('collection', charge.reference, { status: 'SUCCESSFUL' })).toBe(true);
  expect(await h.settled(charge.id)).toMatchObject({ status: 'succeeded' });
  Object.assign(line, { status: 'SUCCESSFUL', amount: '151.00', financialTransactionId: '5550001', completedAt: `${past}T10:05:00.000Z` });

  // The daily import (yesterday, by default) fetches the unfinished day again.
  const daily = await json('reconcile', 'run', '--product', 'collection');
  expect(daily.date).toBe(day(-1));
  expect(daily.earlier_days).toEqual(expect.arrayContaining([{ date: past, pending_lines: 0, closed_breaks: 1 }]));
  const breaks = (await breaksOf(charge.id)).filter((b) => b.statement_date === past);
  expect(breaks.map((b) => [b.kind, b.status, b.resolved_by]).sort()).toEqual([
    ['amount_mismatch', 'open', null],
    ['pending_at_partner', 'resolved', 'reconciliation'],
  ]);
  expect(await statementRow(past)).toMatchObject({ partial: false, pending_lines: 0 });
  // Every line final: the day is locked.
  expect(await json('reconcile', 'run', '--date', past, '--product', 'collection')).toMatchObject({ already_imported: true });
});

test("reconcile resolve of a status_mismatch is refused while the payment's late money is unsettled, then records what was checked", async () => {
  const charge = await liveCharge('0001'); // the partner refuses it after accepting it
  expect(await h.settled(charge.id)).toMatchObject({ status: 'failed' });
  expect(fake.settle('collection', charge.reference, { status: 'SUCCESSFUL' })).toBe(true); // then pays it: late money
  await until('the late money recorded', async () => {
    const rows = await h.orm.em.getConnection().execute<Array<{ n: number }>>(`select count(*)::int as n from late_answers where payment_id = ? and settled_action is null`, [charge.id]);
    return rows[0].n === 1;
  });
  await json('reconcile', 'run', '--partial', '--product', 'collection');
  const [mismatch] = (await breaksOf(charge.id)).filter((b) => b.kind === 'status_mismatch' && b.status === 'open');
  expect(mismatch).toBeDefined();

  await refused(['reconcile', 'resolve', mismatch.id, '--reason', 'checked', '--operator', 'ops:ama'], '--checked is required');
  const why = await refused(['reconcile', 'resolve', mismatch.id, '--checked', 'partner txn on its portal', '--reason', 'checked', '--operator', 'ops:ama'], 'late money is not settled');
  expect(why).toContain(`payments settle-late ${charge.id}`);
  expect((await breaksOf(charge.id)).find((b) => b.id === mismatch.id)).toMatchObject({ status: 'open' });

  await json('payments', 'settle-late', charge.id, '--action', 'credit', '--reason', 'the partner paid it late', '--operator', 'ops:ama');
  const resolved = await json('reconcile', 'resolve', mismatch.id, '--checked', 'partner portal: SUCCESSFUL, credited late', '--reason', 'late money credited', '--operator', 'ops:ama');
  expect(resolved).toMatchObject({ id: mismatch.id, status: 'resolved', resolved_by: 'ops:ama', resolved_checked: 'partner portal: SUCCESSFUL, credited late' });
  const audit = await json('audit', 'list', '--payment', mismatch.id, '--action', 'reconciliation_break.resolve');
  expect(audit.data).toEqual([expect.objectContaining({ operator: 'ops:ama', state_after: expect.objectContaining({ status: 'resolved', checked: 'partner portal: SUCCESSFUL, credited late' }) })]);
});
