import { addSummaries } from '../../src/reconcile/import-statement';
import { configuredPartners, statementClientFor } from '../../src/reconcile/statement-source';
import { AggregatorStatementClient } from '../../src/reconcile/aggregator-statement-client';
import { StatementClient } from '../../src/reconcile/statement-client';
import { requestPartner } from '../../src/domain/statement-import';
import { zeroBreakCounts, type ImportSummary } from '../../src/domain/break-kinds';
import { startFakeAggregator, type FakeAggregator } from '../../src/rail/aggregator/fake';
import { RailMisconfigured } from '../../src/rail/rail-errors';

// Issue 45, reconciliation per partner: the pure parts, and the aggregator's statement client against its fake.

const summary = (partner: 'momo' | 'aggregator', product: 'collection' | 'disbursement', lines: number, matched: number, missingThere = 0): ImportSummary => ({
  date: '2026-12-01',
  partner,
  product,
  lines,
  matched,
  breaks: { ...zeroBreakCounts(), missing_there: missingThere },
  already_imported: false,
});

test('addSummaries: every statement added up, its partners named once each, in order', () => {
  const total = addSummaries('2026-12-01', [summary('momo', 'collection', 3, 2, 1), summary('momo', 'disbursement', 1, 1), summary('aggregator', 'collection', 2, 1, 1)]);
  expect(total).toMatchObject({ date: '2026-12-01', partners: ['momo', 'aggregator'], lines: 6, matched: 4 });
  expect(total.breaks.missing_there).toBe(2);
  expect(total.products.map((s) => [s.partner, s.product])).toEqual([
    ['momo', 'collection'],
    ['momo', 'disbursement'],
    ['aggregator', 'collection'],
  ]);
  // A summary from before partners were named counts as MoMo's.
  const { partner: _none, ...old } = summary('momo', 'collection', 1, 1);
  expect(addSummaries('2026-12-01', [old, summary('momo', 'disbursement', 1, 1)]).partners).toEqual(['momo']);
});

test("requestPartner: a request naming none (recorded before issue 45) is MoMo's", () => {
  expect(requestPartner({})).toBe('momo');
  expect(requestPartner({ partner: 'aggregator' })).toBe('aggregator');
});

const MOMO_ENV = {
  PARTNER_BASE_URL: 'http://127.0.0.1:9',
  PARTNER_API_USER: '6f8c1e9a-1f5b-4c62-9a57-3f0d5d7e8b21',
  PARTNER_API_KEY: 'k'.repeat(32),
  PARTNER_SUBSCRIPTION_KEY: 's'.repeat(32),
  PARTNER_CALLBACK_BASE_URL: 'http://127.0.0.1:8',
  PARTNER_CALLBACK_SECRET: 'c'.repeat(40),
};
const AGGREGATOR_ENV = { AGGREGATOR_BASE_URL: 'http://127.0.0.1:7', AGGREGATOR_SECRET_KEY: 'FLWSECK_TEST-' + 'a'.repeat(32), AGGREGATOR_WEBHOOK_HASH: 'h'.repeat(40) };

test('configuredPartners and statementClientFor: PARTNER_* is momo, AGGREGATOR_* the aggregator', async () => {
  expect(configuredPartners({})).toEqual([]);
  expect(configuredPartners({ ...AGGREGATOR_ENV })).toEqual(['aggregator']);
  expect(statementClientFor({ ...AGGREGATOR_ENV }, 'momo')).toBeNull();
  const aggregator = statementClientFor({ ...AGGREGATOR_ENV }, 'aggregator');
  expect(aggregator).toBeInstanceOf(AggregatorStatementClient);
  expect(aggregator).toMatchObject({ partner: 'aggregator', source: 'aggregator:http://127.0.0.1:7' });
  let momo: ReturnType<typeof statementClientFor> = null;
  try {
    expect(configuredPartners({ ...MOMO_ENV, ...AGGREGATOR_ENV })).toEqual(['momo', 'aggregator']);
    momo = statementClientFor({ ...MOMO_ENV }, 'momo');
    expect(momo).toBeInstanceOf(StatementClient);
    expect(momo).toMatchObject({ partner: 'momo', source: 'partner:http://127.0.0.1:9' });
  } finally {
    await momo?.close();
  }
});

describe("the aggregator's statement client, against the fake aggregator", () => {
  let fake: FakeAggregator;
  beforeAll(async () => {
    fake = await startFakeAggregator();
  });
  afterAll(async () => {
    await fake?.close();
  });

  test('GET /v3/statements/{product}?date= with its secret key: the statement, in the MoMo format', async () => {
    const client = new AggregatorStatementClient(fake.config());
    expect(await client.fetch('disbursement', '2026-12-01')).toEqual({ product: 'disbursement', date: '2026-12-01', lines: [] });
    expect(fake.requests.at(-1)).toMatchObject({ method: 'GET' });
    expect(JSON.stringify(fake.requests.at(-1))).toContain('/v3/statements/disbursement');
  });

  test('a refused key: RailMisconfigured, naming no secret', async () => {
    const client = new AggregatorStatementClient({ ...fake.config(), secretKey: 'FLWSECK_TEST-wrong-key-0000000000' });
    const error = await client.fetch('collection', '2026-12-01').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RailMisconfigured);
    expect(String((error as Error).message)).not.toContain('wrong-key');
  });
});
