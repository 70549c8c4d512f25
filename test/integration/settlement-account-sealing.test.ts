/**
 * Settlement account numbers sealed at rest (migration 20261125000005): `merchants set` writes the
 * number sealed with SECRETS_KEY and masked, never in plain text; a batch's sweep copies the sealed
 * value as it is; a merchant row from before the migration (plain number) is sealed by the sweep that
 * meets it. Read back raw from PostgreSQL, no row, API answer, event, CLI output or workflow history
 * (decoded with the suite's codec) holds the number. Against the suite's PostgreSQL and Temporal, with
 * the payments worker of this file; the sealing at worker start and by `secrets reseal` is in
 * secrets-reseal.test.ts (a database of its own).
 */
import type { Payload } from '@temporalio/common';
import { AUDIT_FLAGS, ok } from '../support/cli-results';
import { closeWithLedgerCheck } from '../support/close-with-ledger-check';
import { balanceRows, fundMerchant } from '../support/fund-merchant';
import { startHarness, type Harness, type TestMerchant, SANDBOX_QUEUES } from '../support/harness';
import { testPayloadCodec } from '../support/payload-codec';
import { runCli, type CliResult } from '../support/run-cli';
import { batchResults } from '../support/settlement-runs';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ queues: SANDBOX_QUEUES });
});
afterAll(() => closeWithLedgerCheck(h));

const cli = (...args: string[]): Promise<CliResult> => runCli(h.taskQueue, ...args);
const sql = <T>(query: string, params: unknown[] = []) => h.orm.em.getConnection().execute<T[]>(query, params);

const merchantRow = async (id: string) => (await sql<Record<string, unknown>>(`select * from merchants where id = ?`, [id]))[0];
const batchRow = async (id: string) => (await sql<Record<string, unknown>>(`select * from settlements where id = ?`, [id]))[0];

/** Every payload of a workflow's history decoded with the suite's codec, and the rest of the history (ids, failures, search attributes) as it is. */
async function historyText(workflowId: string): Promise<string> {
  const history = await h.temporal.client.workflow.getHandle(workflowId).fetchHistory();
  const payloads: Payload[] = [];
  const walk = (value: unknown): void => {
    if (value === null || typeof value !== 'object' || value instanceof Uint8Array) return;
    const record = value as Record<string, unknown>;
    if (record.data instanceof Uint8Array && 'metadata' in record) {
      payloads.push(record as Payload);
      return;
    }
    Object.values(record).forEach(walk);
  };
  walk(history);
  const decoded = await testPayloadCodec().decode(payloads);
  expect(decoded.length).toBeGreaterThan(0);
  return [...decoded.map((p) => Buffer.from(p.data ?? new Uint8Array()).toString('utf8')), JSON.stringify(history)].join('\n');
}

/** The number nowhere in `text`, whole or as its digits in groups (the masked tail aside). */
function expectNoNumber(text: string, number: string): void {
  expect(text).not.toContain(number);
  expect(text).not.toContain(number.slice(0, -4));
}

async function settleSandbox(merchant: TestMerchant): Promise<{ runId: string; batchId: string }> {
  const run = ok(await cli('settlements', 'run', '--merchant', merchant.id, '--env', 'test', ...AUDIT_FLAGS));
  expect(run).toMatchObject({ started: 1, skipped: 0 });
  const batchId = run.batches[0].id as string;
  expect(await batchResults(h, [batchId])).toMatchObject([{ kind: 'batch', status: 'paid' }]);
  return { runId: run.id, batchId };
}

test('merchants set writes the number sealed and masked only; the sweep copies the sealed value; no row, answer, event, output or history holds the number', async () => {
  const number = '7012345678905';
  const m = await h.merchant();
  const set = await cli('merchants', 'set', m.id, '--settlement-bank', 'GCB', '--settlement-account', '7012-3456-78905', ...AUDIT_FLAGS);
  expect(ok(set).settlement_account).toEqual({ bank_code: 'GCB', account_masked: '*********8905' });
  expectNoNumber(set.stdout, number);

  // The merchant row: no plain number anywhere in it; the sealed value opens (with SECRETS_KEY) to the digits.
  const merchant = await merchantRow(m.id);
  expect(merchant).toMatchObject({ settlement_bank_code: 'GCB', settlement_account_number: null, settlement_account_masked: '*********8905' });
  expect(merchant.settlement_account_sealed).toMatch(/^v2\./);
  expectNoNumber(JSON.stringify(merchant), number);
  expect(h.deps.secretBox.open(merchant.settlement_account_sealed as string)).toBe(number);

  await fundMerchant(h, m.id, 21_000);
  const { runId, batchId } = await settleSandbox(m);

  // The batch row: the merchant's sealed value, copied as it is (never opened and sealed again), and no plain number.
  const batch = await batchRow(batchId);
  expect(batch).toMatchObject({
    destination_bank_code: 'GCB',
    destination_account_number: null,
    destination_account_sealed: merchant.settlement_account_sealed,
    destination_account_masked: '*********8905',
  });
  expectNoNumber(JSON.stringify(batch), number);
  expect((await merchantRow(m.id)).settlement_account_sealed).toBe(merchant.settlement_account_sealed);

  // The API (object, list) and the events show the masked form only.
  const one = await h.request('sandbox', 'GET', `/v1/settlements/${batchId}`, { key: m.testKey });
  expect(one.json).toMatchObject({ id: batchId, status: 'paid', destination: { bank_code: 'GCB', account_masked: '*********8905' } });
  const list = await h.request('sandbox', 'GET', '/v1/settlements', { key: m.testKey });
  const events = await h.request('sandbox', 'GET', '/v1/events?after_sequence=0&limit=100', { key: m.testKey });
  expect((events.json.data as Array<{ type: string }>).filter((e) => e.type.startsWith('settlement.')).map((e) => e.type)).toEqual(['settlement.created', 'settlement.paid']);
  for (const text of [one.text, list.text, events.text]) {
    expectNoNumber(text, number);
    expect(text).not.toContain(merchant.settlement_account_sealed as string);
  }

  // Neither the run's nor the batch's history (inputs, results, queries: decoded) holds it, sealed or not.
  for (const id of [runId, batchId]) {
    const text = await historyText(id);
    expectNoNumber(text, number);
    expect(text).not.toContain(merchant.settlement_account_sealed as string);
  }
});

test('a merchant row from before the migration (plain number): it counts as an account; the sweep seals it on the row and copies the sealed value', async () => {
  const number = '0024681357900';
  const m = await h.merchant();
  await sql(`update merchants set settlement_bank_code = 'GCB', settlement_account_number = ? where id = ?`, [number, m.id]);
  // Shown masked from the plain number until it is sealed.
  expect(ok(await cli('merchants', 'set', m.id, '--payout-review-threshold', '40000', ...AUDIT_FLAGS)).settlement_account).toEqual({ bank_code: 'GCB', account_masked: '*********7900' });

  await fundMerchant(h, m.id, 13_000);
  const { batchId } = await settleSandbox(m);
  const merchant = await merchantRow(m.id);
  expect(merchant).toMatchObject({ settlement_account_number: null, settlement_account_masked: '*********7900' });
  expect(h.deps.secretBox.open(merchant.settlement_account_sealed as string)).toBe(number);
  expect(await batchRow(batchId)).toMatchObject({ destination_account_number: null, destination_account_sealed: merchant.settlement_account_sealed, destination_account_masked: '*********7900' });
  expect((await h.request('sandbox', 'GET', `/v1/settlements/${batchId}`, { key: m.testKey })).json.destination).toEqual({ bank_code: 'GCB', account_masked: '*********7900' });
  expect(await balanceRows(h, m.id)).toMatchObject({ merchant_available: 0, merchant_reserved: 0, settlement_clearing: 13_000 });
  expectNoNumber((await historyText(batchId)) + JSON.stringify(await batchRow(batchId)), number);
});

test('the constraints: bank and number together, one form of the number, the sealed and masked forms together', async () => {
  const m = await h.merchant();
  const refusedUpdate = (sets: string, params: unknown[]) => expect(sql(`update merchants set ${sets} where id = ?`, [...params, m.id])).rejects.toThrow(/merchants_settlement_account/);
  await refusedUpdate(`settlement_bank_code = 'GCB'`, []);
  await refusedUpdate(`settlement_account_sealed = 'v2.x.y.z.t', settlement_account_masked = '****1234'`, []);
  await refusedUpdate(`settlement_bank_code = 'GCB', settlement_account_sealed = 'v2.x.y.z.t'`, []);
  await refusedUpdate(`settlement_bank_code = 'GCB', settlement_account_number = '001234567890', settlement_account_sealed = 'v2.x.y.z.t', settlement_account_masked = '****7890'`, []);
  expect(await merchantRow(m.id)).toMatchObject({ settlement_bank_code: null, settlement_account_number: null, settlement_account_sealed: null, settlement_account_masked: null });
});
