import { fundMerchant } from '../support/fund-merchant';
import { chargeBody, idempotencyKey, type Harness, type TestMerchant } from '../support/harness';
import { startPartnerHarness, type PartnerHarness } from '../support/partner-harness';
import { execCli, cliEnv } from '../support/run-cli';
import type { FakeAggregator } from '../../src/rail/aggregator/fake';
import type { FakePartner } from '../../src/rail/fake-partner';

/**
 * Issue 45, "Live on every channel": reconciliation per partner. With RAIL_ROUTES
 * `mobile_money:*=momo,bank:*=aggregator`, a day of live payments at both partners (mobile-money
 * charges at MoMo, a bank charge and a bank payout at the aggregator). `reconcile run --partner
 * aggregator` imports the aggregator's statement (`GET /v3/statements/{product}`, its secret key)
 * and matches only the aggregator's payments: MoMo's are neither missing there nor matched; a break
 * it finds (a line the test amended) names the aggregator in `reconcile breaks` and in the review's
 * reason. MoMo's statement of the same day is imported on its own (`--partner momo`): a row per
 * partner for the day. Without `--partner`, every partner configured in the CLI's environment.
 */

let p: PartnerHarness;
let h: Harness;
let agg: FakeAggregator;
let fake: FakePartner;
let m: TestMerchant;

beforeAll(async () => {
  p = await startPartnerHarness({ aggregator: { fake: { approveAfterMs: 200 }, routes: 'mobile_money:*=momo,bank:*=aggregator' } });
  ({ h, fake } = p);
  agg = p.aggregator!;
  m = await h.merchant({ verified: true });
  await fundMerchant(h, m.id, 500_000, 'GHS', 'live');
});
afterAll(async () => {
  await p?.close();
});

const today = () => new Date().toISOString().slice(0, 10);

/** The CLI with both partners' settings, or only the ones named. */
function env(which: { momo?: boolean; aggregator?: boolean } = { momo: true, aggregator: true }): NodeJS.ProcessEnv {
  const all = cliEnv(h.taskQueue, {
    ...(which.momo
      ? {
          PARTNER_BASE_URL: fake.url,
          PARTNER_API_USER: fake.config.apiUser,
          PARTNER_API_KEY: fake.config.apiKey,
          PARTNER_SUBSCRIPTION_KEY: fake.config.subscriptionKey,
          PARTNER_TARGET_ENVIRONMENT: fake.config.targetEnvironment,
          PARTNER_CALLBACK_BASE_URL: h.urls.live,
          PARTNER_CALLBACK_SECRET: p.callbackSecret,
        }
      : {}),
    ...(which.aggregator ? { AGGREGATOR_BASE_URL: agg.url, AGGREGATOR_SECRET_KEY: agg.secretKey, AGGREGATOR_WEBHOOK_HASH: agg.webhookHash } : {}),
  });
  for (const name of Object.keys(all)) {
    if (!which.momo && name.startsWith('PARTNER_')) delete all[name];
    if (!which.aggregator && name.startsWith('AGGREGATOR_')) delete all[name];
  }
  return all;
}

async function json(args: string[], which?: { momo?: boolean; aggregator?: boolean }) {
  const result = await execCli(args, env(which));
  if (result.code !== 0) throw new Error(`cli ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

async function referenceOf(paymentId: string): Promise<{ reference_id: string; partner: string }> {
  const rows = await h.orm.em.getConnection().execute<Array<{ reference_id: string; partner: string }>>(`select reference_id::text, partner from rail_references where payment_id = ?`, [paymentId]);
  return rows[0];
}

async function momoCharge(suffix: string): Promise<{ id: string; reference: string }> {
  const res = await h.request('live', 'POST', '/v1/charges', {
    key: m.liveKey,
    body: chargeBody({ customer: { identifier: `23324000${suffix}`, name: 'Ama Mensah' }, reference: `pp-mm-${idempotencyKey()}` }),
    headers: { 'Idempotency-Key': idempotencyKey() },
  });
  expect(res.json).toMatchObject({ rail: 'momo' });
  expect(await h.settled(res.json.id)).toMatchObject({ status: 'succeeded' });
  return { id: res.json.id, reference: (await referenceOf(res.json.id)).reference_id };
}

async function bankCharge(account: string): Promise<{ id: string; reference: string }> {
  const res = await h.request('live', 'POST', '/v1/charges', {
    key: m.liveKey,
    body: chargeBody({ channel: 'bank', momo_network_id: undefined, amount: 15_000, customer: { identifier: account, name: 'Esi Owusu' }, reference: `pp-bank-${idempotencyKey()}` }),
    headers: { 'Idempotency-Key': idempotencyKey() },
  });
  expect(res.json).toMatchObject({ rail: 'aggregator' });
  expect(await h.settled(res.json.id)).toMatchObject({ status: 'succeeded' });
  return { id: res.json.id, reference: (await referenceOf(res.json.id)).reference_id };
}

async function bankPayout(): Promise<{ id: string; reference: string }> {
  const res = await h.request('live', 'POST', '/v1/payouts', {
    key: m.liveKey,
    body: { amount: 12_000, currency: 'GHS', channel: 'bank', bank_code: 'GCB', recipient: { identifier: '1234567890', name: 'Kofi Boateng' }, reference: `pp-po-${idempotencyKey()}`, metadata: {} },
    headers: { 'Idempotency-Key': idempotencyKey() },
  });
  expect(res.json).toMatchObject({ rail: 'aggregator' });
  expect(await h.temporal.client.workflow.getHandle(res.json.id).result()).toMatchObject({ status: 'succeeded' });
  return { id: res.json.id, reference: (await referenceOf(res.json.id)).reference_id };
}

type Break = { id: string; kind: string; reference: string; partner: string; product: string; payment_id: string | null };

test("a day at both partners: the aggregator's statement matches only the aggregator's payments, its break names it; MoMo's statement of the day is its own", async () => {
  const mm1 = await momoCharge('4567');
  const mm2 = await momoCharge('4571');
  const clean = await bankCharge('GH0012345681');
  const amended = await bankCharge('GH0012345682');
  const payout = await bankPayout();
  for (const x of [mm1, mm2]) expect((await referenceOf(x.id)).partner).toBe('momo');
  for (const x of [clean, amended, payout]) expect((await referenceOf(x.id)).partner).toBe('aggregator');
  // A break at the aggregator: its line of one bank charge carries one cedi more.
  agg.amendStatement('collection', amended.reference, { amount: '151.00' });

  // The aggregator's collection statement only (the CLI has both partners' settings).
  const collection = await json(['reconcile', 'run', '--partial', '--partner', 'aggregator', '--product', 'collection']);
  expect(collection).toMatchObject({ date: today(), partner: 'aggregator', product: 'collection', partial: true });
  expect(collection.breaks.amount_mismatch).toBe(1);
  // Its lines are this fake's: our two bank charges (other files of the jest worker may have sent aggregator payments today: missing there, not here).
  expect(collection.lines).toBe(2);
  expect(collection.matched).toBe(1);
  expect(collection.breaks.missing_here).toBe(0);

  const aggregatorBreaks: Break[] = (await json(['reconcile', 'breaks', '--partner', 'aggregator', '--limit', '1000'])).data;
  const mine = aggregatorBreaks.filter((b) => [clean, amended, payout, mm1, mm2].some((x) => x.reference === b.reference));
  expect(mine.map((b) => ({ kind: b.kind, reference: b.reference, partner: b.partner, product: b.product, payment_id: b.payment_id }))).toEqual([
    { kind: 'amount_mismatch', reference: amended.reference, partner: 'aggregator', product: 'collection', payment_id: amended.id },
  ]);
  // No break of the aggregator's statement is about a MoMo payment (neither missing there nor matched).
  expect(aggregatorBreaks.some((b) => b.reference === mm1.reference || b.reference === mm2.reference)).toBe(false);
  const lines = await h.orm.em.getConnection().execute<Array<{ reference_id: string; payment_id: string | null }>>(
    `select l.reference_id, l.payment_id from partner_statement_lines l join partner_statements s on s.id = l.statement_id
     where s.partner = 'aggregator' and s.product = 'collection' and s.statement_date = ?::date order by l.line_no`,
    [today()],
  );
  expect(lines).toEqual([
    { reference_id: clean.reference, payment_id: clean.id },
    { reference_id: amended.reference, payment_id: amended.id },
  ]);
  // The break's payment is flagged for review, its reason naming the aggregator's statement.
  const [flagged] = await h.orm.em.getConnection().execute<Array<{ flagged_at: Date | null }>>(`select flagged_at from reconciliation_breaks where id = ?`, [mine[0].id]);
  expect(flagged.flagged_at).not.toBeNull();

  // The aggregator's disbursement statement: the bank payout, matched.
  const disbursement = await json(['reconcile', 'run', '--partial', '--partner', 'aggregator', '--product', 'disbursement']);
  expect(disbursement).toMatchObject({ partner: 'aggregator', product: 'disbursement', lines: 1, matched: 1 });
  expect(disbursement.breaks.missing_here).toBe(0);

  // MoMo's collection statement of the same day: imported apart; it matches the mobile-money charges and knows nothing of the bank ones.
  const momo = await json(['reconcile', 'run', '--partial', '--partner', 'momo', '--product', 'collection']);
  expect(momo).toMatchObject({ date: today(), partner: 'momo', product: 'collection', partial: true });
  expect(momo.matched).toBeGreaterThanOrEqual(2);
  expect(momo.breaks.missing_here).toBe(0);
  const momoBreaks: Break[] = (await json(['reconcile', 'breaks', '--partner', 'momo', '--limit', '1000'])).data;
  expect(momoBreaks.filter((b) => [clean, amended, payout, mm1, mm2].some((x) => x.reference === b.reference))).toEqual([]);
  expect(momoBreaks.every((b) => b.partner === 'momo')).toBe(true);

  const statements = await h.orm.em.getConnection().execute<Array<{ partner: string; product: string }>>(
    `select partner, product from partner_statements where statement_date = ?::date order by partner, product`,
    [today()],
  );
  expect(statements).toEqual(
    expect.arrayContaining([
      { partner: 'aggregator', product: 'collection' },
      { partner: 'aggregator', product: 'disbursement' },
      { partner: 'momo', product: 'collection' },
    ]),
  );
  const report = await json(['reconcile', 'report']);
  expect(report.statements.map((s: { partner: string; product: string }) => `${s.partner}:${s.product}`)).toEqual(expect.arrayContaining(['aggregator:collection', 'momo:collection']));

  // Without --partner: every partner configured here, each statement named, added up.
  const both = await json(['reconcile', 'run', '--partial', '--product', 'collection']);
  expect(both.partners).toEqual(['momo', 'aggregator']);
  expect(both.products.map((s: { partner: string; product: string }) => [s.partner, s.product])).toEqual([
    ['momo', 'collection'],
    ['aggregator', 'collection'],
  ]);
  expect(both.lines).toBe(both.products[0].lines + both.products[1].lines);
  // Only the aggregator's settings here: only its statements.
  expect(await json(['reconcile', 'run', '--partial', '--product', 'collection'], { aggregator: true })).toMatchObject({ partner: 'aggregator', product: 'collection', refetched: true });
});

test('reconcile run --partner: refused when unknown, or not configured here', async () => {
  const unknown = await execCli(['reconcile', 'run', '--partial', '--partner', 'paystack'], env());
  expect(unknown.code).not.toBe(0);
  expect(unknown.stderr).toContain('--partner must be one of: momo, aggregator');
  const missing = await execCli(['reconcile', 'run', '--partial', '--partner', 'aggregator'], env({ momo: true }));
  expect(missing.code).not.toBe(0);
  expect(missing.stderr).toContain('not configured here');
});
