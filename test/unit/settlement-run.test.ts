import { loadConfig } from '../../src/config';
import { settlementAccountHoldSkip, unansweredBatchSkip } from '../../src/domain/settlement-run';
import { retryPartnerRefusal } from '../../src/domain/settlement-retry';
import { cronProblem } from '../../src/domain/cron-expression';
import { randomBytes } from 'node:crypto';
import { maskAccountNumber, normalizeBankCode, parseSettlementAccountNumber, sealAccountNumber } from '../../src/domain/settlement-account';
import {
  addToTotals,
  batchQueueFor,
  EMPTY_TOTALS,
  LIVE_RAIL_UNAVAILABLE,
  MAX_LISTED,
  NO_SETTLEMENT_ACCOUNT,
  SETTLEMENT_CURRENCY_MISMATCH,
  settlementCurrencyMismatch,
  settlementIdFromHex,
} from '../../src/domain/settlement-run';
import { skipReason } from '../../src/persistence/settlements/settlement-balances';
import { createSecretBox } from '../../src/support/secret-box';
import { isIdOf } from '../../src/domain/ids';
import { StartupError } from '../../src/support/startup-error';
import { taskQueueFor } from '../../src/temporal/task-queues';

describe('settlement ids from workflow randomness', () => {
  const hex = (n: number) => n.toString(16).padStart(64, '0');
  test('stl_ + 24 base62, the same for the same digits, distinct for others', () => {
    const a = settlementIdFromHex('3f1c2b8e-9a4d-4c6e-9b7a-1d2e3f4a5b01' + '7c2a9e11-0b3d-4f5a-8c6e-2f1e0d9c8b7a');
    expect(isIdOf('settlement', a)).toBe(true);
    expect(settlementIdFromHex('3f1c2b8e-9a4d-4c6e-9b7a-1d2e3f4a5b01' + '7c2a9e11-0b3d-4f5a-8c6e-2f1e0d9c8b7a')).toBe(a);
    const many = new Set(Array.from({ length: 1000 }, (_, i) => settlementIdFromHex(hex(i * 7919 + 1))));
    expect(many.size).toBe(1000);
    for (const id of many) expect(isIdOf('settlement', id)).toBe(true);
  });
  test('too few digits is a programming error', () => {
    expect(() => settlementIdFromHex('abc')).toThrow(/32 hex digits/);
  });
});

test.each([['payments'], ['test-abc'], ['my-live'], ['x-sandbox-y']])('batchQueueFor names the queues as taskQueueFor does (base %s), from either environment queue', (base) => {
  for (const runOn of ['sandbox', 'live'] as const) {
    for (const environment of ['sandbox', 'live'] as const) expect(batchQueueFor(taskQueueFor(base, runOn), environment)).toBe(taskQueueFor(base, environment));
  }
});

test('addToTotals counts everything and names at most MAX_LISTED batches and skips', () => {
  const batch = (i: number) => ({ settlementId: `stl_${i}`, merchantId: `mer_${i}`, environment: 'sandbox' as const, currency: 'GHS' });
  let totals = EMPTY_TOTALS;
  for (let page = 0; page < 3; page++) totals = addToTotals(totals, Array.from({ length: 60 }, (_, i) => batch(page * 60 + i)), [{ ...batch(page), reason: 'r' }]);
  expect(totals).toMatchObject({ started: 180, skipped: 3, pages: 3 });
  expect(totals.batches).toHaveLength(MAX_LISTED);
  expect(totals.batches[99].settlementId).toBe('stl_99');
});

describe('SETTLEMENT_SCHEDULE', () => {
  test.each([['0 2 * * *'], ['*/15 * * * *'], ['0 2 * * MON-FRI'], ['0 0 2 1 * ? *'], ['@daily'], ['@every 6h']])('%s has a cron shape', (cron) => {
    expect(cronProblem(cron)).toBeNull();
  });
  test.each([
    ['', /empty/],
    ['every day', /2 fields/],
    ['0 2 * *', /4 fields/],
    ['0 2 * * * * * *', /8 fields/],
    ['0 2 * * $', /field "\$"/],
    ['@sometimes', /descriptor/],
  ])('%j is refused: %s', (cron, problem) => {
    expect(cronProblem(cron)).toMatch(problem);
  });
  test('default daily at 02:00 UTC; a bad value stops start-up with the setting named', () => {
    expect(loadConfig({}).settlementSchedule).toBe('0 2 * * *');
    expect(loadConfig({ SETTLEMENT_SCHEDULE: ' 30 1 * * * ' }).settlementSchedule).toBe('30 1 * * *');
    expect(() => loadConfig({ SETTLEMENT_SCHEDULE: 'daily' })).toThrow(StartupError);
    expect(() => loadConfig({ SETTLEMENT_SCHEDULE: 'daily' })).toThrow(/^SETTLEMENT_SCHEDULE must be a cron expression in UTC/);
  });
  test('SETTLEMENT_ACCOUNT_HOLD (issue 43): default 24 h, a duration up to 30 days, 0 for none; anything else stops start-up with the setting named', () => {
    expect(loadConfig({}).settlementAccountHoldMs).toBe(24 * 3_600_000);
    expect(loadConfig({ SETTLEMENT_ACCOUNT_HOLD: '90m' }).settlementAccountHoldMs).toBe(90 * 60_000);
    expect(loadConfig({ SETTLEMENT_ACCOUNT_HOLD: '0' }).settlementAccountHoldMs).toBe(0);
    expect(loadConfig({ SETTLEMENT_ACCOUNT_HOLD: '30d' }).settlementAccountHoldMs).toBe(30 * 24 * 3_600_000);
    for (const bad of ['soon', '31d', '-1h', '24']) {
      expect(() => loadConfig({ SETTLEMENT_ACCOUNT_HOLD: bad })).toThrow(StartupError);
      expect(() => loadConfig({ SETTLEMENT_ACCOUNT_HOLD: bad })).toThrow(/^SETTLEMENT_ACCOUNT_HOLD must be a duration from 0s to 30d/);
    }
  });
});

describe('settlement account', () => {
  test.each([
    ['0012345678901', '0012345678901'],
    [' 0012 3456 7890 ', '001234567890'],
    ['1234-5678-90', '1234567890'],
    ['123456', '123456'],
  ])('%j is stored as %s', (text, digits) => {
    expect(parseSettlementAccountNumber(text)).toBe(digits);
  });
  test.each([['12345'], ['123456789012345678901'], ['12 34a56789'], ['GB29NWBK60161331926819'], ['1234--5678'], ['']])('%j is refused', (text) => {
    expect(parseSettlementAccountNumber(text)).toBeNull();
  });
  test('masked to its last four digits; bank codes upper-cased', () => {
    expect(maskAccountNumber('0012345678901')).toBe('*********8901');
    expect(normalizeBankCode(' stanbic-gh ')).toBe('STANBIC-GH');
    expect(normalizeBankCode('G C B')).toBeNull();
  });
  test('sealed with the secrets box: the sealed value opens to the digits and holds none of them; the masked form is the one shown', () => {
    const box = createSecretBox(randomBytes(32));
    const account = sealAccountNumber(box, '0012345678901');
    expect(account.masked).toBe('*********8901');
    expect(account.sealed).toMatch(/^v2\./);
    expect(account.sealed).not.toContain('8901');
    expect(box.open(account.sealed)).toBe('0012345678901');
    expect(sealAccountNumber(box, '0012345678901').sealed).not.toBe(account.sealed);
  });
});

describe('why a run skips a balance', () => {
  /** A GHS balance of a merchant whose account is at GCB (a GHS bank), unless told otherwise. */
  const balance = (over: Partial<Parameters<typeof skipReason>[0]> = {}): Parameters<typeof skipReason>[0] => ({
    environment: 'sandbox',
    currency: 'GHS',
    hasAccount: true,
    bankCode: 'GCB',
    bankCurrency: 'GHS',
    ...over,
  });
  const noAccount = { hasAccount: false, bankCode: null, bankCurrency: null };

  test('no settlement account first (what an operator can fix), then live while no live rail exists; sandbox with an account is settled', () => {
    expect(skipReason(balance())).toBeNull();
    expect(skipReason(balance(noAccount))).toBe(NO_SETTLEMENT_ACCOUNT);
    expect(skipReason(balance({ environment: 'live', ...noAccount }))).toBe(NO_SETTLEMENT_ACCOUNT);
    expect(skipReason(balance({ environment: 'live' }))).toBe(LIVE_RAIL_UNAVAILABLE);
    expect(LIVE_RAIL_UNAVAILABLE).toMatch(/^live rail unavailable: /);
  });

  test('a live balance with a batch the partner has not answered is skipped (issue 29): its money may be on its way; sandbox never is', () => {
    expect(skipReason(balance({ environment: 'live', unansweredBatch: 'stl_x' }), 'partner')).toBe(unansweredBatchSkip('stl_x'));
    expect(unansweredBatchSkip('stl_x')).toMatch(/stl_x has no final answer from the partner/);
    expect(skipReason(balance({ environment: 'live', unansweredBatch: null }), 'partner')).toBeNull();
    expect(skipReason(balance({ environment: 'sandbox', unansweredBatch: 'stl_x' }), 'partner')).toBeNull();
  });

  test('a live balance is skipped while its settlement account change is held (issue 43); sandbox never is', () => {
    const until = '2026-12-16T10:00:00.000Z';
    expect(skipReason(balance({ environment: 'live', heldUntil: until }), 'partner')).toBe(settlementAccountHoldSkip(until));
    expect(settlementAccountHoldSkip(until)).toMatch(/^settlement account changed: live settlements are held until 2026-12-16T10:00:00.000Z/);
    expect(skipReason(balance({ environment: 'live', heldUntil: null }), 'partner')).toBeNull();
    expect(skipReason(balance({ environment: 'sandbox', heldUntil: until }), 'partner')).toBeNull();
    // An account to fix comes first.
    expect(skipReason(balance({ environment: 'live', heldUntil: until, ...noAccount }), 'partner')).toBe(NO_SETTLEMENT_ACCOUNT);
  });

  test('a live batch failed without the partner\'s word is retried only once the partner says FAILED or unknown (issue 29)', () => {
    expect(retryPartnerRefusal('stl_a', 'failed')).toBeNull();
    expect(retryPartnerRefusal('stl_a', 'unknown')).toBeNull();
    expect(retryPartnerRefusal('stl_a', 'succeeded')).toMatch(/the partner says this batch was paid/);
    expect(retryPartnerRefusal('stl_a', 'pending')).toMatch(/still pending/);
    expect(retryPartnerRefusal('stl_a', undefined)).toMatch(/did not answer/);
  });

  test('a balance in another currency than the settlement bank takes: skipped, both currencies named; after no account, before the live rail', () => {
    const mismatch = 'settlement account currency mismatch: bank GCB takes GHS, balance is NGN';
    expect(skipReason(balance({ currency: 'NGN' }))).toBe(mismatch);
    expect(skipReason(balance({ currency: 'NGN' }))).toBe(settlementCurrencyMismatch('GCB', 'GHS', 'NGN'));
    expect(mismatch.startsWith(`${SETTLEMENT_CURRENCY_MISMATCH}: `)).toBe(true);
    // No account comes first, whatever the currency.
    expect(skipReason(balance({ currency: 'NGN', ...noAccount }))).toBe(NO_SETTLEMENT_ACCOUNT);
    // The mismatch comes before the live rail: an operator can fix it, nobody can fix the rail.
    expect(skipReason(balance({ environment: 'live', currency: 'NGN' }))).toBe(mismatch);
    expect(skipReason(balance({ environment: 'live', currency: 'NGN' }), 'none')).toBe(mismatch);
    // A bank of the account's currency settles that currency.
    expect(skipReason(balance({ currency: 'NGN', bankCode: 'GTB', bankCurrency: 'NGN' }))).toBeNull();
    // A bank code the banks reference does not know takes no currency: never settled into.
    expect(skipReason(balance({ bankCode: 'GONE', bankCurrency: null }))).toBe('settlement account currency mismatch: bank GONE takes no known currency, balance is GHS');
  });
});
