import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { FakePartner } from '../../src/rail/fake-partner';
import { statementToCsv } from '../../src/rail/momo-statement';
import { openBreakTotals } from '../../src/persistence/reconcile/break-store';
import { paymentReviewWorkflowId } from '../../src/domain/payment-review';
import { ensureStatementImportSchedule, statementImportScheduleId } from '../../src/temporal/statement-import-schedule';
import type { StatementImportResult } from '../../src/domain/statement-import';
import { chargeBody, idempotencyKey, type Harness, type TestMerchant, PAYMENT_QUEUES } from '../support/harness';
import { startPartnerHarness, type PartnerHarness } from '../support/partner-harness';
import { execCli, cliEnv } from '../support/run-cli';

/**
 * Issue 29, "Reconciliation against the partner's statement": live charges through the fake partner,
 * whose statement of the day carries each kind of break (0010 listed twice, 0011 one minor unit more,
 * an amended currency and status, a line left out, a line for a reference we never sent); `reconcile
 * run` imports it through the CLI, `reconcile breaks` lists the breaks, each break's payment is
 * flagged for review, `reconcile resolve` resolves one through the audited path, and a second import
 * of the same statement changes nothing. `reconcile import FILE` takes the CSV download.
 */

let partner: PartnerHarness;
let fake: FakePartner;
let h: Harness;
let m: TestMerchant;
let SECRET: string;

beforeAll(async () => {
  partner = await startPartnerHarness({ queues: PAYMENT_QUEUES, fake: { approveAfterMs: 200 } });
  ({ h, fake, callbackSecret: SECRET } = partner);
  m = await h.merchant({ verified: true });
});
afterAll(async () => {
  await h?.temporal.client.schedule.getHandle(statementImportScheduleId(h.taskQueue)).delete().catch(() => undefined);
  await partner?.close();
});

const today = () => new Date().toISOString().slice(0, 10);

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
      PARTNER_CALLBACK_SECRET: SECRET,
    }),
  );
}

async function json(args: string[]) {
  const result = await cli(...args);
  if (result.code !== 0) throw new Error(`cli ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

async function liveCharge(suffix: string): Promise<{ id: string; reference: string }> {
  const res = await h.request('live', 'POST', '/v1/charges', {
    key: m.liveKey,
    body: chargeBody({ customer: { identifier: `23324000${suffix}`, name: 'Ama Mensah' }, reference: `recon-${suffix}-${idempotencyKey()}` }),
    headers: { 'Idempotency-Key': idempotencyKey() },
  });
  expect(res.status).toBe(200);
  expect(await h.settled(res.json.id)).toMatchObject({ status: 'succeeded' });
  const rows = await h.orm.em.getConnection().execute<Array<{ reference_id: string }>>(`select reference_id::text from rail_references where payment_id = ?`, [res.json.id]);
  return { id: res.json.id, reference: rows[0].reference_id };
}

test('a day of live charges reconciled against the statement: every kind of break found, listed, flagged, resolved through the audit, re-import idempotent', async () => {
  const clean = await liveCharge('4567');
  const twice = await liveCharge('0010');
  const plusOne = await liveCharge('0011');
  const otherCurrency = await liveCharge('4568');
  const omitted = await liveCharge('4569');
  const failedThere = await liveCharge('4570');
  fake.amendStatement('collection', otherCurrency.reference, { currency: 'NGN' });
  fake.amendStatement('collection', omitted.reference, { omit: true });
  fake.amendStatement('collection', failedThere.reference, { status: 'FAILED' });
  const stranger = randomUUID();
  const now = new Date().toISOString();
  fake.addStatementLine('collection', { referenceId: stranger, financialTransactionId: '987654321', externalId: 'txn_unknown', amount: '12.00', currency: 'GHS', status: 'SUCCESSFUL', reason: null, party: '****1111', time: now, completedAt: now });

  // Today's statement so far (issue 43: only with --partial, which does not lock the day).
  const summary = await json(['reconcile', 'run', '--partial', '--product', 'collection']);
  expect(summary).toMatchObject({ date: today(), product: 'collection', partial: true });
  // Other files of this jest worker may have sent live charges today (missing here at this fake): at least ours.
  expect(summary.breaks).toMatchObject({ missing_here: 1, amount_mismatch: 1, currency_mismatch: 1, status_mismatch: 1, duplicate: 1 });
  expect(summary.breaks.missing_there).toBeGreaterThanOrEqual(1);
  expect(summary.lines).toBe(7);
  expect(summary.matched).toBe(2); // clean, and the first line of 0010
  const stored = await h.orm.em.getConnection().execute<Array<{ reference_id: string; payment_id: string | null; amount_minor: string | null }>>(
    `select l.reference_id, l.payment_id, l.amount_minor::text from partner_statement_lines l join partner_statements s on s.id = l.statement_id where s.partner = 'momo' and s.product = 'collection' and s.statement_date = ?::date order by l.line_no`,
    [today()],
  );
  expect(stored).toHaveLength(7);
  expect(stored.find((l) => l.reference_id === plusOne.reference)).toEqual({ reference_id: plusOne.reference, payment_id: plusOne.id, amount_minor: '15001' });
  expect(stored.find((l) => l.reference_id === stranger)?.payment_id).toBeNull();

  const listed = await json(['reconcile', 'breaks', '--limit', '1000']);
  const byPayment = (id: string | null, kind: string) => listed.data.filter((b: { payment_id: string | null; kind: string }) => b.payment_id === id && b.kind === kind);
  expect(byPayment(twice.id, 'duplicate')).toEqual([expect.objectContaining({ id: expect.stringMatching(/^brk_/), reference: twice.reference, amount: 15000, currency: 'GHS', status: 'open' })]);
  expect(byPayment(plusOne.id, 'amount_mismatch')).toHaveLength(1);
  expect(byPayment(otherCurrency.id, 'currency_mismatch')).toHaveLength(1);
  expect(byPayment(omitted.id, 'missing_there')).toHaveLength(1);
  expect(byPayment(failedThere.id, 'status_mismatch')).toHaveLength(1);
  expect(byPayment(null, 'missing_here')).toEqual([expect.objectContaining({ reference: stranger, payment_id: null, amount: 1200, currency: 'GHS' })]);
  expect(listed.data.filter((b: { payment_id: string }) => b.payment_id === clean.id)).toEqual([]);
  const onlyDuplicates = await json(['reconcile', 'breaks', '--kind', 'duplicate']);
  expect(onlyDuplicates.data.every((b: { kind: string }) => b.kind === 'duplicate')).toBe(true);
  const badKind = await cli('reconcile', 'breaks', '--kind', 'nonsense');
  expect(badKind.code).toBe(1);
  expect(badKind.stderr).toContain('--kind must be one of');

  // The partner's transaction id is kept on the matched payment.
  const [kept] = await h.orm.em.getConnection().execute<Array<{ partner_transaction_id: string | null }>>(`select partner_transaction_id from rail_references where payment_id = ?`, [clean.id]);
  expect(kept.partner_transaction_id).toBe(fake.transaction('collection', clean.reference)?.state.financialTransactionId);

  // Each break with a payment flags it for review (NeedsAttention, workflow review-<id>).
  for (const payment of [twice, plusOne, otherCurrency, omitted, failedThere]) {
    const described = await h.temporal.client.workflow.getHandle(paymentReviewWorkflowId(payment.id)).describe();
    expect(described.workflowId).toBe(paymentReviewWorkflowId(payment.id));
  }
  // (A `pending_at_partner` break is not flagged: the payment's own wait is watching it. Other files
  // sharing this database may leave some.)
  const flagged = await h.orm.em
    .getConnection()
    .execute<Array<{ n: number }>>(`select count(*)::int as n from reconciliation_breaks where payment_id is not null and flagged_at is null and kind <> 'pending_at_partner'`);
  expect(flagged[0].n).toBe(0);

  // Resolved through the audited path: who, why, before and after.
  const duplicate = byPayment(twice.id, 'duplicate')[0];
  const resolved = await json(['reconcile', 'resolve', duplicate.id, '--checked', 'partner support ticket 4411: one debit', '--reason', 'partner confirmed one debit only', '--operator', 'alice']);
  expect(resolved).toMatchObject({ id: duplicate.id, status: 'resolved', resolved_by: 'alice', resolved_reason: 'partner confirmed one debit only', resolved_checked: 'partner support ticket 4411: one debit', review_released: true });
  // Its payment had no other break: the review was told (reviewFlag resolved) and ends.
  const review = h.temporal.client.workflow.getHandle(paymentReviewWorkflowId(twice.id));
  let status = (await review.describe()).status.name;
  for (let i = 0; i < 100 && status === 'RUNNING'; i++) {
    await new Promise((r) => setTimeout(r, 200));
    status = (await review.describe()).status.name;
  }
  expect(status).toBe('COMPLETED');
  const again = await cli('reconcile', 'resolve', duplicate.id, '--checked', 'again', '--reason', 'twice', '--operator', 'alice');
  expect(again.code).toBe(1);
  expect(again.stderr).toContain('already resolved by alice');
  const audit = await json(['audit', 'list', '--payment', duplicate.id, '--action', 'reconciliation_break.resolve']);
  expect(audit.data).toEqual([
    expect.objectContaining({ action: 'reconciliation_break.resolve', operator: 'alice', reason: 'partner confirmed one debit only', state_before: expect.objectContaining({ status: 'open', payment_id: twice.id }), state_after: expect.objectContaining({ status: 'resolved' }) }),
  ]);

  // The same statement again: fetched again (a partial day is never locked), the same breaks, none added, the resolved one left resolved.
  const count = async () => (await h.orm.em.getConnection().execute<Array<{ n: number }>>(`select count(*)::int as n from reconciliation_breaks`))[0].n;
  const before = await count();
  const rerun = await json(['reconcile', 'run', '--partial', '--product', 'collection']);
  expect(rerun).toMatchObject({ date: today(), lines: 7, matched: 2, breaks: summary.breaks, partial: true, refetched: true });
  expect(await count()).toBe(before);
  expect((await json(['reconcile', 'breaks', '--limit', '1000'])).data.find((b: { id: string }) => b.id === duplicate.id)).toMatchObject({ status: 'resolved', resolved_by: 'alice' });

  // The report and the gauges' source.
  // The day's report counts every statement imported today into this database: other files of the
  // same jest worker (reconcile-keeps-looking, payment-gate) may have imported theirs first, so it
  // holds at least this statement's lines and breaks.
  const report = await json(['reconcile', 'report']);
  expect(report.date).toBe(today());
  expect(report.lines).toBeGreaterThanOrEqual(7);
  expect(report.matched).toBeGreaterThanOrEqual(2);
  for (const [kind, n] of Object.entries(summary.breaks as Record<string, number>)) expect({ kind, n: report.breaks[kind] >= n }).toEqual({ kind, n: true });
  expect(report.money_in_breaks.GHS).toBeGreaterThanOrEqual(5 * 15000 + 1200);
  const totals = await openBreakTotals(h.orm);
  expect(totals.byKind.duplicate).toBe(0);
  expect(totals.byKind.missing_here).toBeGreaterThanOrEqual(1);
});

test('reconcile import FILE: the CSV download of another day, idempotent', async () => {
  const day = '2026-01-15';
  const stranger = randomUUID();
  fake.addStatementLine('disbursement', { referenceId: stranger, financialTransactionId: '111222333', externalId: 'po_unknown', amount: '7.50', currency: 'GHS', status: 'SUCCESSFUL', reason: null, party: '****2222', time: `${day}T09:00:00.000Z`, completedAt: `${day}T09:00:05.000Z` });
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'statement-')), `statement-disbursement-${day}.csv`);
  fs.writeFileSync(file, statementToCsv(fake.statement('disbursement', day)));
  const imported = await json(['reconcile', 'import', file]);
  expect(imported).toMatchObject({ date: day, product: 'disbursement', lines: 1, matched: 0, breaks: { missing_here: 1, missing_there: 0 }, already_imported: false });
  expect(await json(['reconcile', 'import', file])).toMatchObject({ lines: 1, breaks: { missing_here: 1 }, already_imported: true });
  const empty = path.join(path.dirname(file), 'empty.csv');
  fs.writeFileSync(empty, 'product,statement_date,reference_id\n');
  const refused = await cli('reconcile', 'import', empty);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain('--product');
});

test("the daily Schedule: ensured idempotently, and a triggered run imports yesterday's statements of both products through the worker's PARTNER_* settings", async () => {
  // The worker's activity reads PARTNER_* when it is first called (jest gives this file its own process.env).
  Object.assign(process.env, { PARTNER_BASE_URL: fake.url, PARTNER_API_USER: fake.config.apiUser, PARTNER_API_KEY: fake.config.apiKey, PARTNER_SUBSCRIPTION_KEY: fake.config.subscriptionKey, PARTNER_CALLBACK_BASE_URL: h.urls.live, PARTNER_CALLBACK_SECRET: SECRET });
  const client = h.temporal.client;
  expect(await ensureStatementImportSchedule(client, { taskQueue: h.taskQueue })).toEqual({ scheduleId: statementImportScheduleId(h.taskQueue), created: true });
  expect(await ensureStatementImportSchedule(client, { taskQueue: h.taskQueue, cron: '30 4 * * *' })).toMatchObject({ created: false });
  await expect(ensureStatementImportSchedule(client, { taskQueue: h.taskQueue, cron: 'not a cron' })).rejects.toThrow(/STATEMENT_IMPORT_SCHEDULE/);
  const handle = client.schedule.getHandle(statementImportScheduleId(h.taskQueue));
  const described = await handle.describe();
  expect(described.spec.calendars?.map((c) => ({ hour: c.hour, minute: c.minute }))).toEqual([{ hour: [{ start: 4, end: 4, step: 1 }], minute: [{ start: 30, end: 30, step: 1 }] }]);
  await handle.trigger();
  let runs = (await handle.describe()).info.recentActions;
  for (let i = 0; i < 100 && runs.length === 0; i++) {
    await new Promise((r) => setTimeout(r, 100));
    runs = (await handle.describe()).info.recentActions;
  }
  const run = runs[0].action;
  const result = (await client.workflow.getHandle(run.workflow.workflowId, run.workflow.firstExecutionRunId).result()) as StatementImportResult;
  const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
  expect(result.date).toBe(yesterday);
  expect(result.imports.map((i) => [i.product, i.date])).toEqual([
    ['collection', yesterday],
    ['disbursement', yesterday],
  ]);
});


test('reconcile run without PARTNER_* settings of its own: the worker fetches and imports with its own (after the test above set them)', async () => {
  const day = '2026-02-02';
  const now = `${day}T08:00:00.000Z`;
  fake.addStatementLine('disbursement', { referenceId: randomUUID(), financialTransactionId: '444555666', externalId: 'po_unknown', amount: '3.00', currency: 'GHS', status: 'SUCCESSFUL', reason: null, party: '****3333', time: now, completedAt: now });
  const env = Object.fromEntries(Object.entries(cliEnv(h.taskQueue)).filter(([name]) => !name.startsWith('PARTNER_')));
  const result = await execCli(['reconcile', 'run', '--date', day, '--product', 'disbursement'], env);
  expect(result.stderr).toBe('');
  expect(JSON.parse(result.stdout)).toMatchObject({ date: day, product: 'disbursement', lines: 1, matched: 0, breaks: { missing_here: 1 }, already_imported: false });
  // It ran as a statement import workflow on the worker.
  const runs = [];
  for await (const w of h.temporal.client.workflow.list({ query: `WorkflowType = 'statementImportWorkflow' AND TaskQueue = '${h.taskQueue}-live'` })) runs.push(w.workflowId);
  expect(runs.filter((id) => !id.startsWith('statement-import-' + h.taskQueue)).length).toBeGreaterThanOrEqual(1);
});
