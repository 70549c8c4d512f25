/**
 * Issue 31, findings 1 and 7, walked through the CLI as an operator runs it (child processes against
 * the suite's PostgreSQL and Temporal dev server, with a worker and the API's listeners): a bulk
 * action applies to exactly the set its dry run showed.
 * - The dry run prints the count by environment and merchant, the first rows and a token; payouts
 *   held after it are never touched by `--yes --token`, and one that left the set meanwhile is
 *   refused (`no longer matches the dry run's query`); `--yes` without a token is refused; the token
 *   serves its command once.
 * - `--save-ids`/`--ids-file`: only with the dry run's token (issue 43), the ids of the file, each of
 *   the token's set (another id, command or query refused), each re-checked.
 * - Live payouts (the fake partner's rail) need `--expect N`, N the live payments in the set.
 * - `--merchant` cannot be escaped with `A) OR (B`.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { SA } from '../../src/domain/search-attributes';
import { updateMerchantSettings } from '../../src/persistence/merchants/merchant-settings-store';
import { startFakePartner, type FakePartner } from '../../src/rail/fake-partner';
import { MomoPartnerRail } from '../../src/rail/momo-adapter';
import type { PartnerRail } from '../../src/rail/partner-rail';
import { fundMerchant } from '../support/fund-merchant';
import { idempotencyKey, MTN_GH, startHarness, type Harness, type TestMerchant, PAYMENT_QUEUES } from '../support/harness';
import { runCli, type CliResult } from '../support/run-cli';

const SECRET = randomBytes(32).toString('base64url');
const THRESHOLD = 50_000;
const HELD = "PaymentStatus = 'held_for_review'";

let fake: FakePartner;
let h: Harness;
let adapter: MomoPartnerRail;
let dir: string;

beforeAll(async () => {
  fake = await startFakePartner({ approveAfterMs: 100 });
  const rail: PartnerRail = { submit: (p, r) => adapter.submit(p, r), status: (p, ref) => adapter.status(p, ref) };
  h = await startHarness({ queues: PAYMENT_QUEUES, rail, partnerCallbacks: { callbackSecret: SECRET } });
  adapter = new MomoPartnerRail(fake.partnerConfig({ callbackBaseUrl: h.urls.live, callbackSecret: SECRET, timeoutMs: 500 }));
  dir = mkdtempSync(path.join(tmpdir(), 'bulk-ids-'));
});
afterAll(async () => {
  await h?.close();
  await adapter?.close();
  await fake?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const cli = (...args: string[]): Promise<CliResult> => runCli(h.taskQueue, ...args);

async function cliJson(...args: string[]): Promise<any> {
  const r = await cli(...args);
  expect({ args, code: r.code, stderr: r.stderr }).toEqual({ args, code: 0, stderr: '' });
  return JSON.parse(r.stdout);
}

async function cliFails(...args: string[]): Promise<string> {
  const r = await cli(...args);
  expect({ args, code: r.code, stdout: r.stdout }).toEqual({ args, code: 1, stdout: '' });
  return r.stderr;
}

/** A merchant whose payouts of THRESHOLD or more are held for review, funded in both environments. */
async function reviewedMerchant(): Promise<TestMerchant> {
  const m = await h.merchant({ verified: true });
  await updateMerchantSettings(h.orm, m.id, { payoutReviewThreshold: THRESHOLD });
  await fundMerchant(h, m.id, 2_000_000);
  await fundMerchant(h, m.id, 2_000_000, 'GHS', 'live');
  return m;
}

/** A payout over the threshold: held for review until an operator decides. */
async function heldPayout(m: TestMerchant, env: 'sandbox' | 'live' = 'sandbox'): Promise<string> {
  const res = await h.request(env, 'POST', '/v1/payouts', {
    key: env === 'live' ? m.liveKey : m.testKey,
    headers: { 'Idempotency-Key': idempotencyKey() },
    body: { amount: THRESHOLD + 10_000, currency: 'GHS', channel: 'mobile_money', momo_network_id: MTN_GH, recipient: { identifier: '233240004567', name: 'Kofi Boateng' }, reference: 'bulk' },
  });
  expect(res.status).toBe(200);
  expect(res.json.status).toBe('held_for_review');
  return res.json.id;
}

/** Waits until the list query (the dry run's, as visibility sees it) matches exactly `ids`. */
async function visible(query: string, ids: string[]): Promise<void> {
  const want = [...ids].sort().join(',');
  let seen = '';
  for (let i = 0; i < 400; i++) {
    const found: string[] = [];
    for await (const wf of h.temporal.client.workflow.list({ query })) found.push(wf.workflowId);
    seen = found.sort().join(',');
    if (seen === want) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`visibility never showed exactly ${want} for ${query} (last: ${seen})`);
}

const heldQuery = (m: TestMerchant) => `ExecutionStatus = 'Running' AND MerchantId = '${m.id}' AND (${HELD})`;

async function stillHeld(id: string): Promise<void> {
  const d = await h.temporal.client.workflow.getHandle(id).describe();
  expect({ id, status: d.status.name, payment: d.typedSearchAttributes.get(SA.PaymentStatus) }).toEqual({ id, status: 'RUNNING', payment: 'held_for_review' });
  const [{ n }] = await h.orm.em.getConnection().execute<Array<{ n: number }>>(`select count(*)::int as n from operator_audit where payment_id = ?`, [id]);
  expect({ id, audit_rows: n }).toEqual({ id, audit_rows: 0 });
}

const result = (id: string) => h.temporal.client.workflow.getHandle(id).result() as Promise<{ status: string }>;

test('the walk: a dry run, new matching payouts appear, then --yes --token approves the dry run\'s set only', async () => {
  const [m, other] = [await reviewedMerchant(), await reviewedMerchant()];
  const shown = [await heldPayout(m), await heldPayout(m), await heldPayout(m)];
  const theirs = await heldPayout(other);
  await visible(heldQuery(m), shown);
  const base = ['payouts', 'approve', '--query', HELD, '--merchant', m.id, '--reason', 'supplier list checked', '--operator', 'ops:ama'];

  const dry = await cliJson(...base);
  expect(dry).toMatchObject({
    dry_run: true,
    action: 'payouts approve',
    query: heldQuery(m),
    count: 3,
    live: 0,
    by_environment: { sandbox: 3 },
    by_merchant: { [m.id]: 3 },
    token: expect.stringMatching(/^opsel_[0-9A-Za-z]{24}$/),
    token_expires_at: expect.any(String),
  });
  expect(dry.first.map((r: { id: string }) => r.id)).toEqual(shown);
  expect(Date.parse(dry.token_expires_at) - Date.now()).toBeGreaterThan(55 * 60_000);
  expect(dry.apply_with).toContain(`--yes --token ${dry.token}`);

  // Two more payouts are held after the dry run, and one of the three leaves the set (rejected by id).
  const newcomers = [await heldPayout(m), await heldPayout(m)];
  expect(await cliJson('payouts', 'reject', shown[2]!, '--reason', 'unknown recipient')).toMatchObject({ status: 'failed' });
  await visible(heldQuery(m), [shown[0]!, shown[1]!, ...newcomers]);

  // --yes with the query alone re-ran it before; now it is refused, and nothing changes.
  expect(await cliFails(...base, '--yes')).toMatch(/--yes acts only on the set a dry run showed: run the command without --yes.*--token/);
  // The token is for its command: not another one.
  expect(await cliFails('payouts', 'reject', '--yes', '--token', dry.token, '--reason', 'x')).toMatch(/was made for "payouts approve", not "payouts reject"/);
  for (const id of [shown[0]!, shown[1]!, ...newcomers]) await stillHeld(id);

  const applied = await cliJson('payouts', 'approve', '--yes', '--token', dry.token, '--reason', 'supplier list checked', '--operator', 'ops:kofi');
  expect(applied).toMatchObject({ dry_run: false, action: 'payouts approve', token: dry.token, made_by: 'ops:ama', count: 3, succeeded: 2, failed: 1, no_longer_matching: 1, batch_id: expect.stringMatching(/^opb_/) });
  expect(applied.results).toEqual([
    { id: shown[0], ok: true },
    { id: shown[1], ok: true },
    { id: shown[2], ok: false, error: expect.stringMatching(/^refused: no longer matches the dry run's query/) },
  ]);
  const audited = (await cliJson('audit', 'list', '--batch', applied.batch_id)).data as Array<{ payment_id: string; action: string; operator: string }>;
  expect(audited.map((r) => [r.payment_id, r.action, r.operator]).sort()).toEqual([shown[0], shown[1]].sort().map((id) => [id, 'payout.approve', 'ops:kofi']));
  expect(await result(shown[0]!)).toMatchObject({ status: 'succeeded' });
  expect(await result(shown[1]!)).toMatchObject({ status: 'succeeded' });
  // The newcomers match the query now, but were not in the dry run: they still wait; so does the other merchant's.
  for (const id of [...newcomers, theirs]) await stillHeld(id);

  // Used once.
  expect(await cliFails('payouts', 'approve', '--yes', '--token', dry.token, '--reason', 'again')).toMatch(/was used already .* by ops:kofi/);
  for (const id of newcomers) await stillHeld(id);
  for (const id of [...newcomers, theirs]) await cliJson('payouts', 'reject', id, '--reason', 'test cleanup');
});

test('--save-ids and --yes --token --ids-file: the ids of the file (shortened by hand) of the token\'s set only, each re-checked', async () => {
  const m = await reviewedMerchant();
  const held = [await heldPayout(m), await heldPayout(m), await heldPayout(m)];
  await visible(heldQuery(m), held);
  const file = path.join(dir, 'held.txt');
  const base = ['payouts', 'reject', '--query', HELD, '--merchant', m.id, '--reason', 'recipient list expired'];
  const dry = await cliJson(...base, '--save-ids', file);
  expect(dry).toMatchObject({ count: 3, ids_file: file });
  const written = readFileSync(file, 'utf8');
  expect(written.split('\n').filter((l) => l && !l.startsWith('#'))).toEqual(held);
  expect(written).toContain(dry.token);
  // Never overwritten.
  expect(await cliFails(...base, '--save-ids', file)).toMatch(/exists: choose a new file/);

  // The operator keeps two of the three; one of them leaves the set before --yes.
  writeFileSync(file, `# two of three\n${held[0]}\n${held[1]}\n`);
  expect(await cliJson('payouts', 'approve', held[1]!, '--reason', 'known supplier')).toMatchObject({ id: held[1] });
  const newcomer = await heldPayout(m);
  await visible(heldQuery(m), [held[0]!, held[2]!, newcomer]);

  // Issue 43: an ids file is acted on only under its dry run's token (the command, its options, the query and the ids it showed).
  expect(await cliFails(...base, '--yes', '--ids-file', file)).toMatch(/--ids-file goes with its dry run's --token opsel_/);
  const yes = [...base, '--yes', '--token', dry.token];
  const bad = path.join(dir, 'bad.txt');
  writeFileSync(bad, `${held[0]}\nDROP TABLE payouts\n`);
  expect(await cliFails(...yes, '--ids-file', bad)).toMatch(/line 2: not a payment id/);
  const stray = path.join(dir, 'stray.txt');
  writeFileSync(stray, `${held[0]}\n${newcomer}\n`);
  expect(await cliFails(...yes, '--ids-file', stray)).toContain(`names 1 payment that dry run ${dry.token} did not show (${newcomer}): an ids file may only leave ids out`);
  expect(await cliFails('payouts', 'approve', '--yes', '--token', dry.token, '--ids-file', file, '--reason', 'x')).toMatch(/was made for "payouts reject", not "payouts approve"/);
  expect(await cliFails('payouts', 'reject', '--query', "PaymentStatus = 'pending'", '--merchant', m.id, '--yes', '--token', dry.token, '--ids-file', file, '--reason', 'x')).toMatch(/was made for the query/);
  await stillHeld(held[0]!);
  await stillHeld(newcomer);

  const applied = await cliJson(...yes, '--ids-file', file);
  expect(applied).toMatchObject({ ids_file: file, token: dry.token, count: 2, succeeded: 1, failed: 1, no_longer_matching: 1 });
  expect(applied.results).toEqual([
    { id: held[0], ok: true },
    { id: held[1], ok: false, error: expect.stringMatching(/^refused: no longer matches the dry run's query/) },
  ]);
  // The token served once, ids file or not.
  expect(await cliFails(...yes, '--ids-file', file)).toMatch(/was used already/);
  expect(await result(held[0]!)).toMatchObject({ status: 'failed' });
  expect(await result(held[1]!)).toMatchObject({ status: 'succeeded' });
  for (const id of [held[2]!, newcomer]) await stillHeld(id);
  for (const id of [held[2]!, newcomer]) await cliJson('payouts', 'reject', id, '--reason', 'test cleanup');
});

test('charges retry in bulk leaves out what retryStep cannot help (a payout held for review), reported as skipped, never in the token', async () => {
  const m = await reviewedMerchant();
  const held = await heldPayout(m);
  // NeedsAttention comes with the run's first upsert, after PaymentStatus: wait until the listing shows it.
  await visible(`ExecutionStatus = 'Running' AND MerchantId = '${m.id}' AND NeedsAttention = true AND NeedsAttentionReason = 'held for review'`, [held]);
  // Issue 43: the runbook's NeedsAttention = true selected every live payment waiting for the partner; this one waits for a decision.
  const dry = await cliJson('charges', 'retry', '--query', 'NeedsAttention = true', '--merchant', m.id, '--reason', 'database back');
  expect(dry).toMatchObject({
    count: 0,
    first: [],
    skipped: { count: 1, first: [{ id: held, why: expect.stringMatching(/^NeedsAttentionReason "held for review" is not a database step that gave up: nothing to retry/) }] },
  });
  // The runbook's query (docs/operations.md, "When PostgreSQL is down") selects only steps that gave up: the server takes STARTS_WITH.
  const runbook = await cliJson('charges', 'retry', '--query', "NeedsAttention = true AND NeedsAttentionReason STARTS_WITH 'step gave up'", '--merchant', m.id, '--reason', 'database back');
  expect(runbook).toMatchObject({ count: 0, first: [] });
  expect(runbook.skipped).toBeUndefined();
  const applied = await cliJson('charges', 'retry', '--yes', '--token', dry.token, '--reason', 'database back');
  expect(applied).toMatchObject({ count: 0, succeeded: 0, failed: 0, results: [] });
  expect(await cliJson('audit', 'list', '--payment', held)).toMatchObject({ data: [] });
  await stillHeld(held);
  await cliJson('payouts', 'reject', held, '--reason', 'test cleanup');
});

test('live payouts in bulk need --expect N, N the live payouts of the set; refused before anything happens', async () => {
  const m = await reviewedMerchant();
  const live = [await heldPayout(m, 'live'), await heldPayout(m, 'live')];
  const sandbox = await heldPayout(m);
  await visible(heldQuery(m), [...live, sandbox]);
  const dry = await cliJson('payouts', 'approve', '--query', HELD, '--merchant', m.id, '--reason', 'checked with the merchant');
  expect(dry).toMatchObject({ count: 3, live: 2, by_environment: { live: 2, sandbox: 1 } });
  expect(dry.apply_with).toContain(`--yes --token ${dry.token} --expect 2`);
  const yes = ['payouts', 'approve', '--yes', '--token', dry.token, '--reason', 'checked with the merchant'];

  expect(await cliFails(...yes)).toMatch(/"payouts approve" moves live money: the set has 2 live payments \(of 3\); repeat with --expect 2/);
  expect(await cliFails(...yes, '--expect', '3')).toMatch(/--expect 3 does not match: the set has 2 live payments/);
  for (const id of [...live, sandbox]) await stillHeld(id);

  // The refusals did not use the token up.
  const applied = await cliJson(...yes, '--expect', '2');
  expect(applied).toMatchObject({ count: 3, succeeded: 3, failed: 0 });
  for (const id of live) expect(await result(id)).toMatchObject({ status: 'succeeded' });
});

test('reversals in bulk select completed runs, each workflow by its latest run: a payout reversed already is not in the set', async () => {
  const m = await reviewedMerchant();
  const paid = async () => {
    const res = await h.request('sandbox', 'POST', '/v1/payouts', {
      key: m.testKey,
      headers: { 'Idempotency-Key': idempotencyKey() },
      body: { amount: 10_000, currency: 'GHS', channel: 'mobile_money', momo_network_id: MTN_GH, recipient: { identifier: '233240004567', name: 'Kofi Boateng' }, reference: 'bulk' },
    });
    expect(res.status).toBe(200);
    expect(await result(res.json.id)).toMatchObject({ status: 'succeeded' });
    return res.json.id as string;
  };
  const [reversed, open] = [await paid(), await paid()];
  expect(await cliJson('payouts', 'reverse', reversed, '--reason', 'returned by the recipient')).toMatchObject({ status: 'reversed' });
  // Visibility still has the reversed payout's first run as succeeded: the list query matches both.
  const succeeded = "PaymentStatus = 'succeeded'";
  await visible(`ExecutionStatus = 'Completed' AND MerchantId = '${m.id}' AND (${succeeded})`, [reversed, open]);

  const dry = await cliJson('payouts', 'reverse', '--query', succeeded, '--merchant', m.id, '--reason', 'batch sent twice');
  expect(dry).toMatchObject({ count: 1, query: `ExecutionStatus = 'Completed' AND MerchantId = '${m.id}' AND (${succeeded})` });
  expect(dry.first.map((r: { id: string }) => r.id)).toEqual([open]);
  const applied = await cliJson('payouts', 'reverse', '--yes', '--token', dry.token, '--reason', 'batch sent twice');
  expect(applied).toMatchObject({ count: 1, succeeded: 1, results: [{ id: open, ok: true }] });
  const audited = (await cliJson('audit', 'list', '--batch', applied.batch_id)).data as Array<{ payment_id: string; action: string }>;
  expect(audited.map((r) => [r.payment_id, r.action])).toEqual([[open, 'payout.reverse']]);
});

test('finding 7: --merchant cannot be escaped with unbalanced parentheses; nothing is selected or changed', async () => {
  const [m, other] = [await reviewedMerchant(), await reviewedMerchant()];
  const mine = await heldPayout(m);
  const theirs = await heldPayout(other);
  await visible(heldQuery(other), [theirs]);
  const escape = `${HELD}) OR (${HELD}`;
  expect(await cliFails('payouts', 'approve', '--query', escape, '--merchant', m.id, '--reason', 'x')).toMatch(/closes a parenthesis it never opened/);
  expect(await cliFails('payouts', 'approve', '--query', `(${HELD}`, '--merchant', m.id, '--reason', 'x')).toMatch(/leaves 1 parenthesis open/);
  for (const id of [mine, theirs]) await stillHeld(id);
  for (const id of [mine, theirs]) await cliJson('payouts', 'reject', id, '--reason', 'test cleanup');
});
