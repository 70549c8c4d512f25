/**
 * `merchants set ID --payout-review-threshold N` (INTERFACE "Admin command line, continued"), run as a
 * child process against the suite's PostgreSQL: one JSON object on stdout; bad input exits 1 with a
 * message on stderr and changes nothing. The new threshold applies to the next payout.
 */
import { fundMerchant } from '../support/fund-merchant';
import { idempotencyKey, MTN_GH, startHarness, type Harness } from '../support/harness';
import { runCli, type CliResult } from '../support/run-cli';
import { AUDIT_FLAGS } from '../support/cli-results';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ worker: false });
});
afterAll(() => h?.close());

const cli = (...args: string[]): Promise<CliResult> => runCli(h.taskQueue, ...args);

const threshold = async (id: string) =>
  (await h.orm.em.getConnection().execute<{ t: string }[]>(`select payout_review_threshold::text as t from merchants where id = ?`, [id]))[0].t;

test('merchants set --payout-review-threshold: one JSON object, stored, and the next payout at that amount is held for review', async () => {
  const m = await h.merchant();
  expect(await threshold(m.id)).toBe('5000000');
  const result = await cli('merchants', 'set', m.id, '--payout-review-threshold', '20000', ...AUDIT_FLAGS);
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
  expect(JSON.parse(result.stdout)).toEqual({ id: m.id, object: 'merchant', payout_review_threshold: 20000, changed: ['payout_review_threshold'], audit_id: expect.stringMatching(/^aud_/) });
  expect(await threshold(m.id)).toBe('20000');

  await fundMerchant(h, m.id, 100_000);
  const body = { amount: 20_000, currency: 'GHS', channel: 'mobile_money', momo_network_id: MTN_GH, recipient: { identifier: '233241234567', name: 'Kofi' }, reference: 'r' };
  const res = await h.request('sandbox', 'POST', '/v1/payouts', { key: m.testKey, body, headers: { 'Idempotency-Key': idempotencyKey() } });
  expect(res.json.status).toBe('held_for_review');
});

test.each([
  [['merchants', 'set', '--payout-review-threshold', '10']],
  [['merchants', 'set', 'MERCHANT']],
  [['merchants', 'set', 'MERCHANT', '--payout-review-threshold', '0']],
  [['merchants', 'set', 'MERCHANT', '--payout-review-threshold', '-5']],
  [['merchants', 'set', 'MERCHANT', '--payout-review-threshold', '1.5']],
  [['merchants', 'set', 'MERCHANT', '--payout-review-threshold', '99999999999999999999']],
  [['merchants', 'set', 'mer_unknown', '--payout-review-threshold', '10']],
  [['merchants', 'set', 'MERCHANT', '--live-max-amount', 'GHS:0']],
  [['merchants', 'set', 'MERCHANT', '--live-daily-limit', 'GHS:lots']],
  [['merchants', 'set', 'MERCHANT', '--live-max-amount', 'GHS:100', '--live-daily-limit', 'GHS:-1']],
  // A bare N names no currency: refused, since limits are kept per currency.
  [['merchants', 'set', 'MERCHANT', '--live-max-amount', '500000']],
  [['merchants', 'set', 'MERCHANT', '--live-daily-limit', 'GHS:100,GHS:200']],
  [['merchants', 'set', 'MERCHANT', '--live-daily-limit', 'XYZ:100']],
  [['merchants', 'set', 'MERCHANT', '--live-max-amount', 'GHS:100', '--live-daily-limit', 'XYZ:100']],
])('%j: exit 1, stderr, nothing changed', async (args) => {
  const m = await h.merchant();
  const result = await cli(...args.map((a) => (a === 'MERCHANT' ? m.id : a)), ...AUDIT_FLAGS);
  expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 1, stdout: '' });
  expect(result.stderr).toMatch(/^error: /);
  expect(await threshold(m.id)).toBe('5000000');
  expect(await limits(m.id)).toEqual([]);
});

const limits = async (id: string) =>
  h.orm.em
    .getConnection()
    .execute<{ currency: string; max: string | null; daily: string | null }[]>(`select currency, max_amount::text as max, daily_limit::text as daily from live_limits where merchant_id = ? order by currency`, [id]);

test('merchants set --live-max-amount CUR:N --live-daily-limit CUR:N: stored per currency, answered (only once set)', async () => {
  const m = await h.merchant();
  const both = await cli('merchants', 'set', m.id, '--live-max-amount', 'GHS:500000', '--live-daily-limit', 'ghs:5000000,UGX:90000000', ...AUDIT_FLAGS);
  expect({ code: both.code, stderr: both.stderr }).toEqual({ code: 0, stderr: '' });
  expect(JSON.parse(both.stdout)).toEqual({ id: m.id, object: 'merchant', payout_review_threshold: 5_000_000, live_max_amount: { GHS: 500_000 }, live_daily_limit: { GHS: 5_000_000, UGX: 90_000_000 }, changed: ['live_max_amount', 'live_daily_limit'], audit_id: expect.stringMatching(/^aud_/) });
  expect(await limits(m.id)).toEqual([
    { currency: 'GHS', max: '500000', daily: '5000000' },
    { currency: 'UGX', max: null, daily: '90000000' },
  ]);
  // A currency named changes that limit of that currency only.
  const one = await cli('merchants', 'set', m.id, '--live-daily-limit', 'GHS:700000', ...AUDIT_FLAGS);
  expect(JSON.parse(one.stdout)).toMatchObject({ live_max_amount: { GHS: 500_000 }, live_daily_limit: { GHS: 700_000, UGX: 90_000_000 } });
  const bare = await cli('merchants', 'set', m.id, '--live-max-amount', '500000', ...AUDIT_FLAGS);
  expect(bare.code).toBe(1);
  expect(bare.stderr).toContain('--live-max-amount needs a currency');
  expect(bare.stderr).toContain('--live-max-amount GHS:500000');
});

describe('issue 46: merchants set --routes (a setting that moves money: audited)', () => {
  const stored = async (id: string) => (await h.orm.em.getConnection().execute<Array<{ r: string | null }>>(`select rail_routes as r from merchants where id = ?`, [id]))[0].r;
  const audits = async (id: string) =>
    h.orm.em.getConnection().execute<Array<{ before: unknown; after: unknown }>>(`select state_before as before, state_after as after from operator_audit where payment_id = ? and action = 'merchant.settings_update' order by created_at`, [id]);

  test('set in its text form, shown, audited with before and after; "" clears it, audited too', async () => {
    const m = await h.merchant();
    const set = await cli('merchants', 'set', m.id, '--routes', ' mobile_money:GHS=aggregator:1|momo:3 , bank:*=aggregator ', ...AUDIT_FLAGS);
    expect({ code: set.code, stderr: set.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(set.stdout)).toMatchObject({ rail_routes: 'mobile_money:GHS=aggregator:1|momo:3,bank:*=aggregator', changed: ['rail_routes'], audit_id: expect.stringMatching(/^aud_/) });
    expect(await stored(m.id)).toBe('mobile_money:GHS=aggregator:1|momo:3,bank:*=aggregator');
    const cleared = await cli('merchants', 'set', m.id, '--routes', '', ...AUDIT_FLAGS);
    expect(JSON.parse(cleared.stdout)).toMatchObject({ changed: ['rail_routes'] });
    expect(JSON.parse(cleared.stdout).rail_routes).toBeUndefined();
    expect(await stored(m.id)).toBeNull();
    expect((await audits(m.id)).map((a) => [a.before, a.after])).toEqual([
      [{ rail_routes: null }, { rail_routes: 'mobile_money:GHS=aggregator:1|momo:3,bank:*=aggregator' }],
      [{ rail_routes: 'mobile_money:GHS=aggregator:1|momo:3,bank:*=aggregator' }, { rail_routes: null }],
    ]);
  });

  test.each([['mobile_money:GHS=paypal'], ['card:*=momo'], ['mobile_money:GHS=momo:1|aggregator'], ['mobile_money:GHS=momo|momo'], ['nonsense']])('--routes %s: exit 1 naming the problem, nothing changed, no audit row', async (routes) => {
    const m = await h.merchant();
    const result = await cli('merchants', 'set', m.id, '--routes', routes, ...AUDIT_FLAGS);
    expect({ code: result.code, stdout: result.stdout }).toEqual({ code: 1, stdout: '' });
    expect(result.stderr).toMatch(/^error: --routes: /);
    expect(await stored(m.id)).toBeNull();
    expect(await audits(m.id)).toEqual([]);
  });
});
