/**
 * `merchants set ID --settlement-bank CODE --settlement-account NUMBER`, `settlements run` and
 * `settlements skipped` (INTERFACE "Admin command line, continued"), run as child processes against
 * the suite's PostgreSQL and Temporal, with the payments worker of this file on the CLI's task queue:
 * one JSON object on stdout; bad input exits 1 with a message on stderr and changes nothing. The
 * account number never appears whole in any output, and is stored sealed (SECRETS_KEY) and masked
 * only. Live balances are skipped while no live rail exists.
 */
import { AUDIT_FLAGS, ok } from '../support/cli-results';
import { closeWithLedgerCheck } from '../support/close-with-ledger-check';
import { balanceRows, fundMerchant } from '../support/fund-merchant';
import { startHarness, type Harness, PAYMENT_QUEUES } from '../support/harness';
import { runCli, type CliResult } from '../support/run-cli';
import { batchResults, batchRows, giveSettlementAccount, skipRow } from '../support/settlement-runs';
import { LIVE_RAIL_UNAVAILABLE } from '../../src/domain/settlement-run';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ queues: PAYMENT_QUEUES });
});
afterAll(() => closeWithLedgerCheck(h));

const cli = (...args: string[]): Promise<CliResult> => runCli(h.taskQueue, ...args);

/** The stored account: bank, the plain column (always null now), the masked form, and the sealed value opened with the suite's key. */
const account = async (id: string) => {
  const [row] = await h.orm.em
    .getConnection()
    .execute<{ bank: string | null; plain: string | null; sealed: string | null; masked: string | null }[]>(
      `select settlement_bank_code as bank, settlement_account_number as plain, settlement_account_sealed as sealed, settlement_account_masked as masked from merchants where id = ?`,
      [id],
    );
  return { bank: row.bank, plain: row.plain, masked: row.masked, opened: row.sealed === null ? null : h.deps.secretBox.open(row.sealed) };
};

describe('merchants set --settlement-bank --settlement-account', () => {
  test('stored (digits only), answered masked; the full number is in no output', async () => {
    const m = await h.merchant();
    const result = await cli('merchants', 'set', m.id, '--settlement-bank', 'gcb', '--settlement-account', '0012 3456 7890', ...AUDIT_FLAGS);
    expect(ok(result)).toEqual({ id: m.id, object: 'merchant', payout_review_threshold: 5_000_000, settlement_account: { bank_code: 'GCB', account_masked: '********7890' }, changed: ['settlement_account'], audit_id: expect.stringMatching(/^aud_/) });
    expect(result.stdout).not.toContain('001234567890');
    expect(await account(m.id)).toEqual({ bank: 'GCB', plain: null, masked: '********7890', opened: '001234567890' });

    // With the threshold in the same command, and again later (a second set replaces the account: its live settlements are held, issue 43).
    const both = ok(await cli('merchants', 'set', m.id, '--payout-review-threshold', '20000', '--settlement-bank', 'ECOGH', '--settlement-account', '9988776655', ...AUDIT_FLAGS));
    expect(both).toEqual({
      id: m.id,
      object: 'merchant',
      payout_review_threshold: 20_000,
      settlement_account: { bank_code: 'ECOGH', account_masked: '******6655' },
      changed: ['payout_review_threshold', 'settlement_account'],
      audit_id: expect.stringMatching(/^aud_/),
      settlement_held_until: expect.any(String),
      notification: { id: expect.stringMatching(/^ntf_/), status: 'skipped' },
    });
    expect(ok(await cli('merchants', 'set', m.id, '--payout-review-threshold', '30000', ...AUDIT_FLAGS)).settlement_account).toEqual({ bank_code: 'ECOGH', account_masked: '******6655' });
    expect(await account(m.id)).toEqual({ bank: 'ECOGH', plain: null, masked: '******6655', opened: '9988776655' });
  });

  test.each([
    [['--settlement-bank', 'GCB'], /go together/],
    [['--settlement-account', '0012345678901'], /go together/],
    [['--settlement-bank', 'NOPE', '--settlement-account', '0012345678901'], /unknown settlement bank "NOPE"/],
    [['--settlement-bank', 'G C B', '--settlement-account', '0012345678901'], /bank code/],
    [['--settlement-bank', 'GCB', '--settlement-account', '00123456789O1'], /6 to 20 digits/],
    [['--settlement-bank', 'GCB', '--settlement-account', '12345'], /6 to 20 digits/],
    [['--settlement-bank', 'GCB', '--settlement-account', '001234567890123456789'], /6 to 20 digits/],
  ])('%j: exit 1, a message without the number, nothing stored', async (args, message) => {
    const m = await h.merchant();
    const result = await cli('merchants', 'set', m.id, ...args, ...AUDIT_FLAGS);
    expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 1, stdout: '' });
    expect(result.stderr).toMatch(/^error: /);
    expect(result.stderr).toMatch(message);
    for (const a of args) if (/^[0-9O]{5,}$/.test(a)) expect(result.stderr).not.toContain(a);
    expect(await account(m.id)).toEqual({ bank: null, plain: null, masked: null, opened: null });
  });

  test('an unknown merchant: exit 1, nothing stored anywhere', async () => {
    const result = await cli('merchants', 'set', 'mer_unknown', '--settlement-bank', 'GCB', '--settlement-account', '0012345678901', ...AUDIT_FLAGS);
    expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 1, stdout: '' });
    expect(result.stderr).toMatch(/^error: merchant mer_unknown does not exist/);
    expect(result.stderr).not.toContain('0012345678901');
  });
});

describe('settlements run', () => {
  test('--merchant --env test: one sandbox batch of exactly the sandbox money, started, waited for, printed; live untouched', async () => {
    const m = await h.merchant();
    await giveSettlementAccount(h, m.id);
    await fundMerchant(h, m.id, 50_000, 'GHS', 'sandbox');
    await fundMerchant(h, m.id, 30_000, 'GHS', 'live');

    const run = ok(await cli('settlements', 'run', '--merchant', m.id, '--env', 'test', ...AUDIT_FLAGS));
    expect(run).toMatchObject({ object: 'settlement_run', merchant_id: m.id, environment: 'sandbox', outcome: null, started: 1, skipped: 0, pages: 1, skips: [], listed_up_to: 100 });
    expect(run.id).toMatch(/^settlement-run-[0-9A-Za-z]{16}$/);
    expect(run.batches).toEqual([{ id: expect.stringMatching(/^stl_[0-9A-Za-z]{24}$/), merchant_id: m.id, environment: 'sandbox', currency: 'GHS' }]);

    expect(await batchResults(h, [run.batches[0].id])).toMatchObject([{ kind: 'batch', status: 'paid', amount: 50_000 }]);
    expect(await batchRows(h, m.id)).toEqual([{ id: run.batches[0].id, environment: 'sandbox', currency: 'GHS', status: 'paid', amount: 50_000, run_id: run.id }]);
    expect(await balanceRows(h, m.id, 'GHS', 'sandbox')).toMatchObject({ merchant_available: 0, merchant_reserved: 0, settlement_clearing: 50_000 });
    expect((await balanceRows(h, m.id, 'GHS', 'live')).merchant_available).toBe(30_000);

    // Nothing left to settle in the sandbox: a repeated run starts nothing.
    expect(ok(await cli('settlements', 'run', '--merchant', m.id, '--env', 'test', ...AUDIT_FLAGS))).toMatchObject({ started: 0, skipped: 0, batches: [] });
  });

  test('--outcome failed: the run is limited to the sandbox, the batch fails and the money comes back to available', async () => {
    const m = await h.merchant();
    await giveSettlementAccount(h, m.id);
    await fundMerchant(h, m.id, 12_000, 'GHS', 'sandbox');
    await fundMerchant(h, m.id, 7_000, 'GHS', 'live');

    const run = ok(await cli('settlements', 'run', '--merchant', m.id, '--env', 'test', '--outcome', 'failed', ...AUDIT_FLAGS));
    expect(run).toMatchObject({ environment: 'sandbox', outcome: 'failed', started: 1 });
    expect(await batchResults(h, [run.batches[0].id])).toMatchObject([{ status: 'failed', failureClass: 'declined', amount: 12_000 }]);
    expect(await balanceRows(h, m.id, 'GHS', 'sandbox')).toMatchObject({ merchant_available: 12_000, merchant_reserved: 0 });
    expect(await batchRows(h, m.id)).toHaveLength(1);
  });

  test('--env live: no live rail, so the live balance is skipped (reason printed and kept), no batch started, the money stays available', async () => {
    const m = await h.merchant({ verified: true });
    await giveSettlementAccount(h, m.id);
    await fundMerchant(h, m.id, 8_000, 'GHS', 'live');
    await fundMerchant(h, m.id, 3_000, 'GHS', 'sandbox');

    const run = ok(await cli('settlements', 'run', '--merchant', m.id, '--env', 'live', ...AUDIT_FLAGS));
    expect(run).toMatchObject({ environment: 'live', started: 0, skipped: 1, batches: [] });
    expect(run.skips).toEqual([{ merchant_id: m.id, environment: 'live', currency: 'GHS', reason: LIVE_RAIL_UNAVAILABLE }]);
    expect(await skipRow(h, m.id, 'live')).toEqual({ reason: LIVE_RAIL_UNAVAILABLE, run_id: run.id });
    expect(ok(await cli('settlements', 'skipped', '--merchant', m.id, '--env', 'live')).data).toEqual([
      { merchant_id: m.id, environment: 'live', currency: 'GHS', reason: LIVE_RAIL_UNAVAILABLE, run_id: run.id, skipped_at: expect.any(String) },
    ]);
    expect(await batchRows(h, m.id)).toEqual([]);
    expect(await balanceRows(h, m.id, 'GHS', 'live')).toMatchObject({ merchant_available: 8_000, merchant_reserved: 0 });

    // A run by hand names its environment (issue 43: without --env it paid live balances too); the sandbox one is settled.
    const sandbox = ok(await cli('settlements', 'run', '--merchant', m.id, '--env', 'test', ...AUDIT_FLAGS));
    expect(sandbox).toMatchObject({ started: 1, skipped: 0, skips: [] });
    expect(sandbox.batches).toEqual([expect.objectContaining({ environment: 'sandbox' })]);
    await batchResults(h, [sandbox.batches[0].id]);
    expect((await batchRows(h, m.id)).map((r) => [r.environment, r.status])).toEqual([['sandbox', 'paid']]);
    expect(await skipRow(h, m.id, 'live')).toEqual({ reason: LIVE_RAIL_UNAVAILABLE, run_id: run.id });
  });

  test('a merchant without a settlement account is skipped, with the reason printed and kept (settlements skipped), until it has one', async () => {
    const m = await h.merchant();
    await fundMerchant(h, m.id, 9_000, 'GHS', 'sandbox');
    await fundMerchant(h, m.id, 4_000, 'NGN', 'live');

    const live = ok(await cli('settlements', 'run', '--merchant', m.id, '--env', 'live', ...AUDIT_FLAGS));
    expect(live).toMatchObject({ environment: 'live', started: 0, skipped: 1, batches: [] });
    expect(live.skips).toEqual([{ merchant_id: m.id, environment: 'live', currency: 'NGN', reason: 'no settlement account' }]);
    const run = ok(await cli('settlements', 'run', '--merchant', m.id, '--env', 'test', ...AUDIT_FLAGS));
    expect(run).toMatchObject({ environment: 'sandbox', started: 0, skipped: 1, batches: [] });
    expect(run.skips).toEqual([{ merchant_id: m.id, environment: 'sandbox', currency: 'GHS', reason: 'no settlement account' }]);
    const skipped = ok(await cli('settlements', 'skipped', '--merchant', m.id, '--env', 'test'));
    expect(skipped).toEqual({
      object: 'list',
      data: [{ merchant_id: m.id, environment: 'sandbox', currency: 'GHS', reason: 'no settlement account', run_id: run.id, skipped_at: expect.any(String) }],
      has_more: false,
    });
    expect(ok(await cli('settlements', 'skipped', '--merchant', m.id)).data).toHaveLength(2);

    // Once it has an account, the next run settles it and forgets the skip.
    await giveSettlementAccount(h, m.id);
    const next = ok(await cli('settlements', 'run', '--merchant', m.id, '--env', 'test', ...AUDIT_FLAGS));
    expect(next).toMatchObject({ started: 1, skipped: 0 });
    await batchResults(h, next.batches.map((b: { id: string }) => b.id));
    expect(await skipRow(h, m.id, 'sandbox')).toBeUndefined();
    expect(await skipRow(h, m.id, 'live', 'NGN')).toMatchObject({ reason: 'no settlement account', run_id: live.id });
  });

  test.each([
    [['--env', 'live', '--outcome', 'failed'], /--outcome is a sandbox control/],
    [[], /--env is required: test or live/],
    [['--merchant', 'mer_000000000000000000000000'], /--env is required/],
    [['--env', 'test', '--outcome', 'paid'], /--outcome must be failed/],
    [['--env', 'staging'], /--env must be test or live/],
    [['--merchant', 'not-a-merchant'], /--merchant must be a merchant id/],
    [['--merchant', 'mer_000000000000000000000000', '--env', 'test'], /merchant mer_000000000000000000000000 does not exist/],
  ])('%j: exit 1, nothing started', async (args, message) => {
    const result = await cli('settlements', 'run', ...args, ...AUDIT_FLAGS);
    expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 1, stdout: '' });
    expect(result.stderr).toMatch(/^error: /);
    expect(result.stderr).toMatch(message);
  });

  test('settlements skipped --limit: bad values refused', async () => {
    for (const limit of ['0', '-1', 'ten', '10001']) {
      const result = await cli('settlements', 'skipped', `--limit=${limit}`);
      expect([result.code, result.stdout]).toEqual([1, '']);
      expect(result.stderr).toMatch(/--limit must be an integer from 1 to 10000/);
    }
  });
});
