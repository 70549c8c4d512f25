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
