/**
 * Issue 43, finding 6: settings that move money are audited. `merchants set|verify`, `settlements run`
 * (with a required --env) and `users create` refuse without --reason and --operator, changing
 * nothing; with them, the change and its operator_audit row commit together (the fields changed, old
 * and new, an account number masked only); a change that changes nothing writes no row and says so.
 * A replaced settlement account emails the merchant's notification address (the existing
 * notification path: a `settlement_account_changed` notification, sent by the worker) and holds its
 * next live settlement (SETTLEMENT_ACCOUNT_HOLD): the run skips the live balance with the hold's
 * reason, settles the sandbox one, `payments stuck` lists the hold, and once it is over the run pays.
 * Against the suite's PostgreSQL and Temporal, the fake partner for the live rail, the CLI in process.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { settlementAccountHoldSkip } from '../../src/domain/settlement-run';
import { ok } from '../support/cli-results';
import { fundMerchant } from '../support/fund-merchant';
import type { Harness } from '../support/harness';
import { startPartnerHarness, type PartnerHarness } from '../support/partner-harness';
import { cliEnv, execCli, type CliResult } from '../support/run-cli';
import { batchResults, batchRows, giveSettlementAccount } from '../support/settlement-runs';
import { until } from '../support/webhook-fixtures';

let partner: PartnerHarness;
let h: Harness;
let dataDir: string;

beforeAll(async () => {
  // The worker's notifications go to files under DATA_DIR/outbox (no SMTP_URL): a directory of this file's own.
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'merchant-settings-audit-'));
  const before = process.env.DATA_DIR;
  process.env.DATA_DIR = dataDir;
  try {
    partner = await startPartnerHarness();
  } finally {
    if (before === undefined) delete process.env.DATA_DIR;
    else process.env.DATA_DIR = before;
  }
  h = partner.h;
});
afterAll(async () => {
  await partner?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const cli = (...args: string[]): Promise<CliResult> => execCli(args, cliEnv(h.taskQueue));
/**
 * `payments stuck --env live` unscoped, as an operator runs it: settlement holds come from the database
 * and only without a --query. It also asks every flagged live run on the dev server for its reason,
 * other files' runs included, whose workers may be gone: a 1 s deadline bounds each of those waits
 * (10 s by default: the file took 51.7 s in a .ci/run, near the fast tier's 60 s).
 */
const stuckLive = (): Promise<CliResult> => execCli(['payments', 'stuck', '--env', 'live'], cliEnv(h.taskQueue, { TEMPORAL_REQUEST_DEADLINE_MS: '1000' }));
const sql = <T = Record<string, any>>(query: string, params: unknown[] = []) => h.orm.em.getConnection().execute<T[]>(query, params);
const who = ['--reason', 'ticket OPS-43', '--operator', 'ama@ops'];
const auditRows = (merchantId: string) =>
  sql(`select payment_id, action, operator, reason, state_before, state_after, environment from operator_audit where merchant_id = ? order by created_at, id`, [merchantId]);
const merchantRow = async (id: string) =>
  (await sql(`select payout_review_threshold::text as threshold, verified_at, settlement_bank_code, settlement_account_masked, settlement_held_until from merchants where id = ?`, [id]))[0];

test('without --reason or --operator each command exits 1 with a clear message and changes nothing; settlements run also needs --env', async () => {
  const m = await h.merchant();
  await fundMerchant(h, m.id, 10_000, 'GHS', 'sandbox');
  await giveSettlementAccount(h, m.id);
  const rowsBefore = await auditRows(m.id);
  const merchantBefore = await merchantRow(m.id);
  const refusals: Array<[string[], RegExp]> = [
    [['merchants', 'set', m.id, '--payout-review-threshold', '20000', '--operator', 'ama@ops'], /--reason is required/],
    [['merchants', 'set', m.id, '--payout-review-threshold', '20000', '--reason', 'ticket OPS-43'], /--operator is required/],
    [['merchants', 'set', m.id, '--settlement-bank', 'GCB', '--settlement-account', '0012345670001', '--reason', 'x'], /--operator is required/],
    [['merchants', 'set', m.id, '--payout-review-threshold', '0', ...who], /--payout-review-threshold must be a positive integer/],
    [['merchants', 'set', m.id, '--settlement-bank', 'GCB', '--settlement-account', '0012345670001', '--notification-email', 'a@b.example', ...who], /in two commands/],
    [['merchants', 'verify', m.id, '--operator', 'ama@ops'], /--reason is required/],
    [['merchants', 'verify', m.id, '--reason', 'KYC done'], /--operator is required/],
    [['settlements', 'run', '--merchant', m.id, '--env', 'test', '--operator', 'ama@ops'], /--reason is required/],
    [['settlements', 'run', '--merchant', m.id, '--env', 'test', '--reason', 'by hand'], /--operator is required/],
    [['settlements', 'run', '--merchant', m.id, ...who], /--env is required/],
    [['users', 'create', '--merchant', m.id, '--email', `u-${m.id.slice(4, 12).toLowerCase()}@shop.example`, '--reason', 'new staff'], /--operator is required/],
    [['users', 'create', '--merchant', m.id, '--email', `u-${m.id.slice(4, 12).toLowerCase()}@shop.example`, '--operator', 'ama@ops'], /--reason is required/],
  ];
  for (const [args, message] of refusals) {
    const result = await cli(...args);
    expect({ args, code: result.code, stdout: result.stdout }).toEqual({ args, code: 1, stdout: '' });
    expect(result.stderr).toMatch(/^error: /);
    expect(result.stderr).toMatch(message);
  }
  expect(await auditRows(m.id)).toEqual(rowsBefore);
  expect(await merchantRow(m.id)).toEqual(merchantBefore);
  expect(await sql(`select id from portal_users where merchant_id = ?`, [m.id])).toEqual([]);
  expect(await sql(`select id from settlements where merchant_id = ?`, [m.id])).toEqual([]);
});

test('with them: the change and its audit row land together (fields changed, old and new); nothing changed writes no row and says so', async () => {
  const m = await h.merchant();
  const set = ok(await cli('merchants', 'set', m.id, '--payout-review-threshold', '20000', '--live-max-amount', 'GHS:500000', ...who));
  expect(set).toMatchObject({ id: m.id, payout_review_threshold: 20_000, live_max_amount: { GHS: 500_000 }, changed: ['payout_review_threshold', 'live_max_amount'] });
  expect(set.audit_id).toMatch(/^aud_/);
  const rows = await auditRows(m.id);
  expect(rows.filter((r) => r.action === 'merchant.settings_update')).toEqual([
    {
      payment_id: m.id,
      action: 'merchant.settings_update',
      operator: 'ama@ops',
      reason: 'ticket OPS-43',
      state_before: { payout_review_threshold: 5_000_000, live_max_amount: { GHS: null } },
      state_after: { payout_review_threshold: 20_000, live_max_amount: { GHS: 500_000 } },
      environment: null,
    },
  ]);
  // The same values again: nothing changed, no row, and the answer says so.
  const again = ok(await cli('merchants', 'set', m.id, '--payout-review-threshold', '20000', '--live-max-amount', 'GHS:500000', ...who));
  expect(again).toMatchObject({ changed: [], audit_id: null, note: expect.stringMatching(/^nothing changed: .*no audit row written$/) });
  expect(await auditRows(m.id)).toHaveLength(rows.length);

  // merchants verify: verified and audited once; verifying again changes nothing.
  const verified = ok(await cli('merchants', 'verify', m.id, '--reason', 'KYC documents checked', '--operator', 'kofi@ops'));
  expect(verified).toMatchObject({ id: m.id, changed: true });
  const verifyRows = (await auditRows(m.id)).filter((r) => r.action === 'merchant.verify');
  expect(verifyRows).toEqual([
    { payment_id: m.id, action: 'merchant.verify', operator: 'kofi@ops', reason: 'KYC documents checked', state_before: { verified_at: null }, state_after: { verified_at: verified.verified_at }, environment: 'live' },
  ]);
  expect(ok(await cli('merchants', 'verify', m.id, ...who))).toMatchObject({ verified_at: verified.verified_at, changed: false, note: expect.stringMatching(/already verified/) });
  expect((await auditRows(m.id)).filter((r) => r.action === 'merchant.verify')).toHaveLength(1);

  // users create: the user and its row (the email, never the password).
  const email = `staff-${m.id.slice(4, 12).toLowerCase()}@shop.example`;
  const user = ok(await cli('users', 'create', '--merchant', m.id, '--email', email, '--reason', 'new staff', '--operator', 'ama@ops'));
  const userRows = (await auditRows(m.id)).filter((r) => r.action === 'portal_user.create');
  expect(userRows).toEqual([{ payment_id: user.id, action: 'portal_user.create', operator: 'ama@ops', reason: 'new staff', state_before: null, state_after: { email, role: 'owner', status: 'active' }, environment: null }]);
  expect(JSON.stringify(userRows)).not.toContain(user.password);

  // users revoke-sessions of a user with no session: nothing changed, no row, and it says so.
  const revoked = ok(await cli('users', 'revoke-sessions', user.id, ...who));
  expect(revoked).toMatchObject({ sessions_revoked: 0, note: expect.stringMatching(/no session to end/) });
  expect((await auditRows(m.id)).filter((r) => r.action === 'portal_user.revoke_sessions')).toEqual([]);
});

test('a settlement account change: audited masked, emailed to the notification address, the next live settlement held (sandbox not), listed by payments stuck, paid once the hold is over', async () => {
  const m = await h.merchant({ verified: true });
  const email = `finance-${m.id.slice(4, 12).toLowerCase()}@shop.example`;
  ok(await cli('merchants', 'set', m.id, '--notification-email', email, ...who));
  // The first account: nothing to take over, so no hold and no email.
  const first = ok(await cli('merchants', 'set', m.id, '--settlement-bank', 'GCB', '--settlement-account', '0012345678901', ...who));
  expect(first).toMatchObject({ changed: ['settlement_account'], settlement_account: { bank_code: 'GCB', account_masked: '*********8901' } });
  expect(first.settlement_held_until).toBeUndefined();
  expect(first.notification).toBeUndefined();
  // The same account again is no change.
  expect(ok(await cli('merchants', 'set', m.id, '--settlement-bank', 'GCB', '--settlement-account', '0012 3456 78901', ...who))).toMatchObject({ changed: [], audit_id: null });
  await fundMerchant(h, m.id, 40_000, 'GHS', 'live');
  await fundMerchant(h, m.id, 30_000, 'GHS', 'sandbox');

  const changedAt = Date.now();
  const change = ok(await cli('merchants', 'set', m.id, '--settlement-bank', 'GCB', '--settlement-account', '0012345675555', '--reason', 'merchant letter 2026-12-01', '--operator', 'ama@ops'));
  expect(change).toMatchObject({ changed: ['settlement_account'], settlement_account: { bank_code: 'GCB', account_masked: '*********5555' }, notification: { status: 'started' } });
  const heldUntil = Date.parse(change.settlement_held_until);
  expect(heldUntil - changedAt).toBeGreaterThan(24 * 3_600_000 - 60_000);
  expect(heldUntil - changedAt).toBeLessThan(24 * 3_600_000 + 60_000);
  const [row] = await sql(`select * from operator_audit where id = ?`, [change.audit_id]);
  expect(row).toMatchObject({
    action: 'merchant.settings_update',
    payment_id: m.id,
    merchant_id: m.id,
    operator: 'ama@ops',
    reason: 'merchant letter 2026-12-01',
    state_before: { settlement_account: { bank_code: 'GCB', account_masked: '*********8901' } },
    state_after: { settlement_account: { bank_code: 'GCB', account_masked: '*********5555' }, settlement_held_until: change.settlement_held_until },
  });
  // Never a whole account number in the row or the answer.
  for (const text of [JSON.stringify(row), JSON.stringify(change)]) for (const number of ['0012345678901', '0012345675555']) expect(text).not.toContain(number);

  // The email: a notification of the change (its source the audit row), sent by the worker to the address on file.
  const notification = await until('the account change email sent', async () => (await sql(`select * from notifications where id = ? and status = 'sent'`, [change.notification.id]))[0], 30_000);
  expect(notification).toMatchObject({ kind: 'settlement_account_changed', recipient: 'merchant', merchant_id: m.id, environment: 'live', source_id: change.audit_id, channel: 'email' });
  const [attempt] = await sql(`select outcome, provider_message_id from notification_attempts where notification_id = ?`, [notification.id]);
  expect(attempt.outcome).toBe('sent');
  const mail = fs.readFileSync(path.join(dataDir, 'outbox', String(attempt.provider_message_id).slice('file:'.length)), 'utf8');
  expect(mail).toContain(`To: ${email}`);
  expect(mail).toMatch(/^Subject: Your settlement account was changed$/m);
  expect(mail).toMatch(/New account: +GCB \*{9}5555/);
  expect(mail).toMatch(/Previous account: +GCB \*{9}8901/);
  expect(mail).toMatch(/Changed by: +ama@ops/);
  expect(mail).toMatch(/Settlements held until: /);
  expect(mail).not.toContain('0012345675555');

  // The next live run skips the merchant with the hold's reason; a sandbox run settles it.
  const live = ok(await cli('settlements', 'run', '--merchant', m.id, '--env', 'live', ...who));
  expect(live).toMatchObject({ started: 0, skipped: 1, skips: [{ merchant_id: m.id, environment: 'live', currency: 'GHS', reason: settlementAccountHoldSkip(change.settlement_held_until) }] });
  expect((await sql(`select action, state_after from operator_audit where payment_id = ?`, [live.id]))[0]).toEqual({
    action: 'settlement_run.start',
    state_after: { run_id: live.id, environment: 'live', merchant_id: m.id, outcome: null },
  });
  const sandbox = ok(await cli('settlements', 'run', '--merchant', m.id, '--env', 'test', ...who));
  expect(sandbox).toMatchObject({ started: 1, skipped: 0 });

  // payments stuck lists the hold, with what to do.
  const stuck = ok(await stuckLive());
  expect(stuck.data.filter((e: { id: string }) => e.id === m.id)).toEqual([
    expect.objectContaining({ id: m.id, environment: 'live', status: 'settlement_held', workflow: 'settlement_hold', reason: expect.stringContaining(`held until ${change.settlement_held_until}`) }),
  ]);
  expect(stuck.data.find((e: { id: string }) => e.id === m.id).reason).toMatch(/by ama@ops \(now GCB \*{9}5555\).*confirm the change with the merchant/);

  // The cooling period over (moved into the past here): the run pays the live balance to the new account.
  await sql(`update merchants set settlement_held_until = now() - interval '1 second' where id = ?`, [m.id]);
  const paid = ok(await cli('settlements', 'run', '--merchant', m.id, '--env', 'live', ...who));
  expect(paid).toMatchObject({ started: 1, skipped: 0 });
  await h.temporal.client.workflow.getHandle(paid.batches[0].id).result();
  expect((await sql(`select status, amount::int as amount from settlements where id = ?`, [paid.batches[0].id]))[0]).toMatchObject({ status: 'paid', amount: 40_000 });
  expect((ok(await stuckLive()).data as Array<{ id: string }>).filter((e) => e.id === m.id)).toEqual([]);
}, 60_000);

test('SETTLEMENT_ACCOUNT_HOLD sets the cooling period; a merchant without a notification address gets the hold and a skipped email', async () => {
  const m = await h.merchant({ verified: true });
  await giveSettlementAccount(h, m.id);
  const at = Date.now();
  const change = ok(await execCli(['merchants', 'set', m.id, '--settlement-bank', 'GCB', '--settlement-account', '0012345676666', ...who], cliEnv(h.taskQueue, { SETTLEMENT_ACCOUNT_HOLD: '2h' })));
  expect(Math.abs(Date.parse(change.settlement_held_until) - at - 2 * 3_600_000)).toBeLessThan(60_000);
  expect(change.notification).toEqual({ id: expect.stringMatching(/^ntf_/), status: 'skipped' });
  expect((await sql(`select status, last_error from notifications where id = ?`, [change.notification.id]))[0]).toEqual({
    status: 'skipped',
    last_error: 'the merchant has no notification email (merchants set ID --notification-email EMAIL)',
  });
  const bad = await execCli(['merchants', 'set', m.id, '--payout-review-threshold', '7', ...who], cliEnv(h.taskQueue, { SETTLEMENT_ACCOUNT_HOLD: 'soon' }));
  expect(bad.code).not.toBe(0);
  expect(bad.stderr).toContain('SETTLEMENT_ACCOUNT_HOLD must be a duration');
  expect((await merchantRow(m.id)).threshold).toBe('5000000');
});

test('a failed live batch is not retried to the account just put in place while the hold lasts: refused, nothing changed', async () => {
  const m = await h.merchant({ verified: true });
  await giveSettlementAccount(h, m.id, '0012345670003'); // 0003: the partner answers FAILED
  await fundMerchant(h, m.id, 20_000, 'GHS', 'live');
  const run = ok(await cli('settlements', 'run', '--merchant', m.id, '--env', 'live', ...who));
  const [failed] = await batchResults(h, [run.batches[0].id]);
  expect(failed).toMatchObject({ status: 'failed' });
  ok(await cli('merchants', 'set', m.id, '--settlement-bank', 'GCB', '--settlement-account', '0012345677777', ...who));
  const { settlement_held_until: until } = (await sql(`select settlement_held_until from merchants where id = ?`, [m.id]))[0];
  const retry = await cli('settlements', 'retry', run.batches[0].id, ...who);
  expect({ code: retry.code, stdout: retry.stdout }).toEqual({ code: 1, stdout: '' });
  expect(retry.stderr).toContain(`is not retried: ${settlementAccountHoldSkip(new Date(until).toISOString())}. Nothing changed`);
  expect(await batchRows(h, m.id)).toEqual([expect.objectContaining({ id: run.batches[0].id, status: 'failed' })]);
}, 60_000);
