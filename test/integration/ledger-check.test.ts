/**
 * `ledger check` (INTERFACE "Admin command line, continued"): on a database of its own, a balanced
 * ledger passes; an unbalanced transfer, a transfer spanning two currencies, a drifted balance row, a
 * row without entries and entries without a row are each reported; the command prints one JSON object
 * and exits 1 with the offending rows. (Every integration file also runs it over the suite database
 * when its harness closes: test/support/harness.ts.)
 */
import { addToBalances } from '../../src/persistence/ledger/account-balances';
import { postTransfer } from '../../src/persistence/ledger/ledger';
import { migrate, openOrm, type Orm } from '../../src/persistence/orm';
import { ledgerCheck } from '../../src/services/ledger-check';
import { randomBase62 } from '../../src/support/new-id';
import type { Transfer } from '../../src/domain/ledger';
import { execCli } from '../support/run-cli';

let orm: Orm;
let admin: Orm;
let name: string;
let url: string;

beforeAll(async () => {
  admin = await openOrm(process.env.TEST_DATABASE_URL!, 2);
  name = `ledger_check_${randomBase62(8).toLowerCase()}`;
  await admin.em.getConnection().execute(`create database ${name}`);
  const u = new URL(process.env.TEST_DATABASE_URL!);
  u.pathname = `/${name}`;
  url = u.toString();
  orm = await openOrm(url, 2);
  await migrate(orm);
});
afterAll(async () => {
  await orm?.close();
  await admin?.em.getConnection().execute(`drop database if exists ${name}`);
  await admin?.close();
});

const sql = (query: string, params: unknown[] = []) => orm.em.getConnection().execute(query, params);
const scope = { merchantId: 'mer_ledgercheck', environment: 'sandbox' as const, currency: 'GHS' };

/** Posts a transfer the way every state change does: entries, then the balance rows, in one transaction. */
async function post(transfer: Transfer): Promise<void> {
  await orm.em.fork().transactional(async (em) => {
    postTransfer(em, { ...scope, resourceId: 'txn_x' }, transfer, new Date());
    await em.flush();
    await addToBalances(em, scope, [transfer]);
  });
}

const cli = (...args: string[]) => execCli(args, { ...process.env, DATABASE_URL: url });
/** The same as its own process: the exit code a script or a cron job sees. */
const cliProcess = (...args: string[]) => execCli(args, { ...process.env, DATABASE_URL: url }, { process: true });

test('a balanced ledger passes: one JSON object with the counts, exit 0', async () => {
  expect(await ledgerCheck(orm)).toEqual({ ok: true, transfers: 0, balances: 0 });
  await post({ id: 't1:hold', kind: 'hold', postings: [{ account: 'customer_clearing', amount: -900 }, { account: 'merchant_pending', amount: 900 }] });
  await post({ id: 't1:capture', kind: 'capture', postings: [{ account: 'customer_clearing', amount: -1000 }, { account: 'merchant_available', amount: 900 }, { account: 'platform_fee', amount: 100 }] });
  await post({ id: 'po1:reserve', kind: 'payout_reserve', postings: [{ account: 'merchant_available', amount: -500 }, { account: 'merchant_reserved', amount: 500 }] });
  await post({ id: 'po1:release', kind: 'payout_release', postings: [{ account: 'merchant_reserved', amount: -500 }, { account: 'merchant_available', amount: 500 }] });
  expect(await ledgerCheck(orm)).toEqual({ ok: true, transfers: 4, balances: 5 });

  const result = await cli('ledger', 'check');
  expect(result).toEqual({ code: 0, stdout: '{"ok":true,"transfers":4,"balances":5}\n', stderr: '' });
});

test('an unbalanced transfer, a transfer across currencies and drifted balances are reported, and the command exits 1 with them', async () => {
  const before = await ledgerCheck(orm);
  expect(before.ok).toBe(true);
  // An entry whose transfer does not sum to zero (written around postTransfer, which refuses it).
  await sql(`insert into ledger_entries (transfer_id, account, kind, merchant_id, environment, currency, amount, resource_id, created_at)
             values ('bad:one', 'merchant_available', 'hold', 'mer_ledgercheck', 'sandbox', 'GHS', 7, 'txn_x', now())`);
  // A transfer that sums to zero but moves money between currencies.
  await sql(`insert into ledger_entries (transfer_id, account, kind, merchant_id, environment, currency, amount, resource_id, created_at)
             values ('bad:fx', 'tax', 'hold', 'mer_other', 'sandbox', 'GHS', -3, 'txn_y', now()), ('bad:fx', 'platform_fee', 'hold', 'mer_other', 'sandbox', 'USD', 3, 'txn_y', now())`);
  // A balance row moved without its postings, and a row whose account has no entries.
  await sql(`update account_balances set amount = amount + 1 where merchant_id = 'mer_ledgercheck' and account = 'merchant_reserved'`);
  await sql(`insert into account_balances (merchant_id, environment, currency, account, amount, updated_at) values ('mer_ghost', 'live', 'KES', 'merchant_available', 0, now())`);

  const report = await ledgerCheck(orm);
  expect(report).toEqual({
    ok: false,
    transfers: 6,
    balances: 6,
    unbalanced_transfers: [
      { transfer_id: 'bad:fx', sum: '0', entries: 2, scopes: 2 },
      { transfer_id: 'bad:one', sum: '7', entries: 1, scopes: 1 },
    ],
    drifted_balances: [
      { merchant_id: 'mer_ghost', environment: 'live', currency: 'KES', account: 'merchant_available', balance: '0', postings: null },
      // merchant_available's row misses the 7 of bad:one
      { merchant_id: 'mer_ledgercheck', environment: 'sandbox', currency: 'GHS', account: 'merchant_available', balance: '900', postings: '907' },
      { merchant_id: 'mer_ledgercheck', environment: 'sandbox', currency: 'GHS', account: 'merchant_reserved', balance: '1', postings: '0' },
      { merchant_id: 'mer_other', environment: 'sandbox', currency: 'GHS', account: 'tax', balance: null, postings: '-3' },
      { merchant_id: 'mer_other', environment: 'sandbox', currency: 'USD', account: 'platform_fee', balance: null, postings: '3' },
    ],
    unfinished_resources: [],
    // Nothing is open against the reserved balance, yet it holds 1: a reservation never released.
    reserved_mismatches: [{ merchant_id: 'mer_ledgercheck', environment: 'sandbox', currency: 'GHS', reserved: '1', open: '0' }],
    // The postings no settlement swept (907) differ from the available balance (900).
    unswept_mismatches: [{ merchant_id: 'mer_ledgercheck', environment: 'sandbox', currency: 'GHS', available: '900', unswept: '907' }],
    late_money_mismatches: [],
  });

  // The one command that prints its answer and still exits 1: here as a real process.
  const result = await cliProcess('ledger', 'check');
  expect(result.code).toBe(1);
  expect(result.stdout.indexOf('\n')).toBe(result.stdout.length - 1);
  expect(JSON.parse(result.stdout)).toEqual(report);
  expect(result.stderr).toMatch(/does not balance/);
});

test('charges: an ended charge whose hold is still posted, and a succeeded or reversed one without its capture, are unfinished resources', async () => {
  await sql(`insert into merchants (id, name) values ('mer_ledgercheck', 'Ledger check') on conflict do nothing`);
  // Rows written around the charge store, which posts these transfers with every status change.
  const charge = (id: string, status: string) =>
    sql(
      `insert into charges (id, merchant_id, environment, status, reference, amount, currency, channel, fee_platform, fee_tax, fee_bearer, merchant_amount,
         customer_masked, metadata_json, created_at, expires_at, updated_at)
       values (?, 'mer_ledgercheck', 'sandbox', ?, ?, 1000, 'GHS', 'mobile_money', 100, 0, 'merchant', 900, '****4567', '{}', now(), now(), now())`,
      [id, status, `ref-${id}`],
    );
  const hold = (id: string): Transfer => ({ id: `${id}:hold`, kind: 'hold', postings: [{ account: 'customer_clearing', amount: -900 }, { account: 'merchant_pending', amount: 900 }] });
  const holdVoid = (id: string): Transfer => ({ id: `${id}:hold_void`, kind: 'hold_void', postings: [{ account: 'customer_clearing', amount: 900 }, { account: 'merchant_pending', amount: -900 }] });
  const capture = (id: string): Transfer => ({ id: `${id}:capture`, kind: 'capture', postings: [{ account: 'customer_clearing', amount: -1000 }, { account: 'merchant_available', amount: 900 }, { account: 'platform_fee', amount: 100 }] });
  const charges: Array<[string, string, Transfer[]]> = [
    ['txn_open_expired', 'expired', [hold('txn_open_expired')]],
    ['txn_open_failed', 'failed', [hold('txn_open_failed')]],
    ['txn_voided_expired', 'expired', [hold('txn_voided_expired'), holdVoid('txn_voided_expired')]],
    ['txn_awaiting', 'awaiting_action', [hold('txn_awaiting')]],
    ['txn_uncaptured', 'succeeded', [hold('txn_uncaptured'), holdVoid('txn_uncaptured')]],
    ['txn_captured', 'succeeded', [hold('txn_captured'), holdVoid('txn_captured'), capture('txn_captured')]],
    ['txn_unreversed', 'reversed', [hold('txn_unreversed'), holdVoid('txn_unreversed'), capture('txn_unreversed')]],
  ];
  for (const [id, status, transfers] of charges) {
    await charge(id, status);
    for (const transfer of transfers) await post(transfer);
  }

  const report = await ledgerCheck(orm);
  if (report.ok) throw new Error('the ledger check found nothing');
  expect(report.unfinished_resources).toEqual([
    { resource_id: 'txn_open_expired', status: 'expired', missing: ['txn_open_expired:hold_void'] },
    { resource_id: 'txn_open_failed', status: 'failed', missing: ['txn_open_failed:hold_void'] },
    { resource_id: 'txn_uncaptured', status: 'succeeded', missing: ['txn_uncaptured:capture'] },
    { resource_id: 'txn_unreversed', status: 'reversed', missing: ['txn_unreversed:capture_reversal'] },
  ]);
  const result = await cli('ledger', 'check');
  expect(result.code).toBe(1);
  expect(JSON.parse(result.stdout)).toMatchObject({ unfinished_resources: report.unfinished_resources });
});
