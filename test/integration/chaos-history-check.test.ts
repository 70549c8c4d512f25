/**
 * The chaos run's history check (src/chaos/checks/history.ts, issue 44) against real creates on a real
 * API and PostgreSQL: a clean history passes; an acknowledgement of a resource the database does not
 * hold is `acknowledged_lost`; an acknowledgement for another amount than the row's is an
 * `amount_mismatches`; one key acknowledged as two resources, and two charges holding one create's
 * reference, are `duplicates_by_key`; a create refused with a 4xx whose reference a charge holds is
 * a violation. The whole run's use of it is test/system/chaos-short.test.ts.
 */
import { checkHistory } from '../../src/chaos/checks/history';
import type { CheckContext } from '../../src/chaos/checks/check';
import { createAnswer, createRecord, type CreateRecord } from '../../src/chaos/create-history';
import { ChaosDb } from '../../src/chaos/db';
import { chargeBody, idempotencyKey, startHarness, type Harness, type TestMerchant } from '../support/harness';

let h: Harness;
let db: ChaosDb;
let merchant: TestMerchant;

beforeAll(async () => {
  h = await startHarness({ worker: false });
  db = new ChaosDb(process.env.TEST_DATABASE_URL!);
  merchant = await h.merchant();
});

afterAll(async () => {
  await db?.close();
  await h?.close();
});

/** One charge created through the API, recorded as the chaos load records it. */
async function charge(reference: string, amount: number): Promise<CreateRecord> {
  const key = idempotencyKey();
  const body = chargeBody({ amount, reference });
  const record = createRecord('sandbox_charge', 'sandbox', merchant.id, '/v1/charges', body, key);
  const answer = await h.request('sandbox', 'POST', '/v1/charges', { key: merchant.testKey, body, headers: { 'idempotency-key': key } });
  record.answers.push(createAnswer({ status: answer.status, body: answer.json, headers: answer.headers }));
  expect(answer.status).toBeLessThan(300);
  return record;
}

const check = (history: CreateRecord[]) => checkHistory({ db, history } as unknown as CheckContext & { history: CreateRecord[] });

test('a clean history passes; a lost acknowledgement, another amount and one key or reference making two resources are each counted', async () => {
  const a = await charge(`hist-a-${idempotencyKey()}`, 12_000);
  const b = await charge(`hist-b-${idempotencyKey()}`, 13_000);
  const clean = await check([a, b]);
  expect({ counts: clean.counts, violations: clean.violations }).toEqual({ counts: { acknowledged_lost: 0, duplicates_by_key: 0, amount_mismatches: 0 }, violations: [] });

  // Acknowledged as a charge nobody holds.
  const lost: CreateRecord = { ...a, idempotencyKey: idempotencyKey(), reference: null, answers: [{ status: 201, id: 'txn_NoSuchChargeAtAll000000', amount: 12_000, currency: 'GHS' }] };
  // Acknowledged for another amount than the row holds (and than was asked).
  const otherAmount: CreateRecord = { ...b, answers: [{ ...b.answers[0]!, amount: 13_100 }] };
  // One key, two acknowledgements naming different charges.
  const twoIds: CreateRecord = { ...a, answers: [...a.answers, ...b.answers] };
  // A second charge under a new key with a's reference.
  await charge(a.reference!, 12_000);
  // Refused (a 4xx) while a charge holds its reference: something was made of a refused create.
  const refusedYetMade: CreateRecord = { ...b, idempotencyKey: idempotencyKey(), answers: [{ status: 422, id: null, amount: null, currency: null }] };
  const found = await check([lost, otherAmount, twoIds, refusedYetMade]);
  expect(found.counts.acknowledged_lost).toBe(1);
  // otherAmount; and twoIds' second charge, which holds 13000 where its key asked for 12000.
  expect(found.counts.amount_mismatches).toBe(2);
  // twoIds: its two ids; and a's reference held by two charges.
  expect(found.counts.duplicates_by_key).toBe(2);
  expect(found.violations.join('\n')).toMatch(/txn_NoSuchChargeAtAll000000, which charges does not hold/);
  expect(found.violations.join('\n')).toMatch(/holds 13000 GHS; asked 13000 GHS, acknowledged 13100 GHS/);
  expect(found.violations.join('\n')).toMatch(/2 charges hold its reference hist-a-/);
  expect(found.violations.join('\n')).toMatch(/refused with 422, yet charges holds its reference hist-b-/);
  expect(found.notes.join('\n')).toMatch(/1 refused \(4xx: nothing made of them\)/);
});
