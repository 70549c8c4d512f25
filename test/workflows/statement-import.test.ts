import { WorkflowFailedError } from '@temporalio/client';
import { startStatementImportEnv, type StatementImportTestEnv } from './support/statement-import-env';
import { NO_PARTNER_CONFIGURED } from '../../src/domain/statement-import';

// statementImportWorkflow on the time-skipping test server, its import activity in memory.

let h: StatementImportTestEnv;
beforeAll(async () => {
  h = await startStatementImportEnv();
});
afterAll(async () => {
  await h?.close();
});
beforeEach(() => {
  h.imports.calls.length = 0;
  h.imports.failures = 0;
  h.imports.noPartner = false;
  h.imports.unconfigured.clear();
});

test("as the Schedule starts it ({}): yesterday's statements by the workflow's clock, collection then disbursement", async () => {
  const handle = await h.start({});
  const result = await handle.result();
  const started = (await handle.describe()).startTime;
  const yesterday = new Date(Date.UTC(started.getUTCFullYear(), started.getUTCMonth(), started.getUTCDate() - 1)).toISOString().slice(0, 10);
  expect(result.date).toBe(yesterday);
  expect(h.imports.calls).toEqual([
    { product: 'collection', date: yesterday },
    { product: 'disbursement', date: yesterday },
  ]);
  expect(result.imports.map((i) => [i.product, i.lines, i.breaks.duplicate])).toEqual([
    ['collection', 2, 1],
    ['disbursement', 2, 1],
  ]);
});

test('a partner that does not answer is asked again (backoff), then imported', async () => {
  h.imports.failures = 3;
  const result = await (await h.start({ date: '2026-11-20', products: ['collection'] })).result();
  expect(result).toMatchObject({ date: '2026-11-20', imports: [{ product: 'collection', date: '2026-11-20' }] });
  expect(h.imports.calls).toHaveLength(4);
});

test('no partner configured: the run fails at once, not retried', async () => {
  h.imports.noPartner = true;
  const error = await (await h.start({ date: '2026-11-20' })).result().catch((e: unknown) => e);
  expect(error).toBeInstanceOf(WorkflowFailedError);
  expect(((error as WorkflowFailedError).cause as { cause?: { type?: string } }).cause?.type).toBe(NO_PARTNER_CONFIGURED);
  expect(h.imports.calls).toHaveLength(1);
});

test('issue 45, per partner: the Schedule names the partners; each partner\'s products in turn, each request naming its partner', async () => {
  const result = await (await h.start({ date: '2026-11-20', partners: ['momo', 'aggregator'] })).result();
  expect(h.imports.calls).toEqual([
    { product: 'collection', date: '2026-11-20', partner: 'momo' },
    { product: 'disbursement', date: '2026-11-20', partner: 'momo' },
    { product: 'collection', date: '2026-11-20', partner: 'aggregator' },
    { product: 'disbursement', date: '2026-11-20', partner: 'aggregator' },
  ]);
  expect(result.imports.map((i) => [i.partner, i.product])).toEqual([
    ['momo', 'collection'],
    ['momo', 'disbursement'],
    ['aggregator', 'collection'],
    ['aggregator', 'disbursement'],
  ]);
});

test('without partners (every run from before): MoMo\'s, the requests naming no partner, as recorded', async () => {
  await (await h.start({ date: '2026-11-20', products: ['disbursement'] })).result();
  expect(h.imports.calls).toEqual([{ product: 'disbursement', date: '2026-11-20' }]);
});

test('configuredOnly (reconcile run delegated to the worker): a partner the worker lacks is left out; none at all fails, not retried', async () => {
  h.imports.unconfigured.add('aggregator');
  const result = await (await h.start({ date: '2026-11-20', products: ['collection'], partners: ['momo', 'aggregator'], configuredOnly: true })).result();
  expect(result.imports.map((i) => [i.partner, i.product])).toEqual([['momo', 'collection']]);
  expect(h.imports.calls).toEqual([
    { product: 'collection', date: '2026-11-20', partner: 'momo', configuredOnly: true },
    { product: 'collection', date: '2026-11-20', partner: 'aggregator', configuredOnly: true },
  ]);

  h.imports.calls.length = 0;
  h.imports.unconfigured.add('momo');
  const error = await (await h.start({ date: '2026-11-20', partners: ['momo', 'aggregator'], configuredOnly: true })).result().catch((e: unknown) => e);
  expect(error).toBeInstanceOf(WorkflowFailedError);
  expect(((error as WorkflowFailedError).cause as { type?: string }).type).toBe(NO_PARTNER_CONFIGURED);
  expect(h.imports.calls).toHaveLength(4);

  // A partner asked by name that the worker lacks: the run fails at once.
  h.imports.calls.length = 0;
  const named = await (await h.start({ date: '2026-11-20', partners: ['aggregator'] })).result().catch((e: unknown) => e);
  expect(((named as WorkflowFailedError).cause as { cause?: { type?: string } }).cause?.type).toBe(NO_PARTNER_CONFIGURED);
  expect(h.imports.calls).toHaveLength(1);
});
