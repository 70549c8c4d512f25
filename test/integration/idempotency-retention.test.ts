/**
 * Idempotency-Key retention (issue 9, storage amplification; INTERFACE.md "Kept at least 24
 * hours"): the retention job (issue 34: the retention Schedule's workflow, whose batches are the
 * statements runRetentionPass runs here) deletes records older than IDEMPOTENCY_RETENTION (default and
 * minimum 24 h) whose request finished, in batches, and keeps young records and any whose request may
 * still be running. The guarantee window is the retention: after a record is gone, the same key
 * creates a new charge. Ages are set in PostgreSQL (created_at, locked_until), the clock the job uses.
 */
import { deleteExpiredIdempotencyKeys } from '../../src/persistence/idempotency-store';
import { runRetentionPass } from '../../src/runtime/retention-pass';
import { DEFAULT_RETENTION_BATCH, retentionSettings } from '../../src/runtime/retention-settings';
import { chargeBody, idempotencyKey, startHarness, type Harness, type TestMerchant, SANDBOX_QUEUES } from '../support/harness';

let h: Harness;
let m: TestMerchant;
const DAY_MS = 24 * 60 * 60_000;

/** One pass of the idempotency part of the retention job: `retentionMs` (default 24 h), `batch` rows per statement. */
async function pruneIdempotencyKeys(options: { retentionMs?: number; batch?: number } = {}): Promise<number> {
  const plan = retentionSettings({}).plan;
  const pass = await runRetentionPass(
    h.orm,
    { ...plan, windowsMs: { ...plan.windowsMs, idempotency_keys: options.retentionMs ?? DAY_MS }, batch: options.batch ?? DEFAULT_RETENTION_BATCH, pauseMs: 0 },
    { kinds: ['idempotency_keys'] },
  );
  return pass.deleted.idempotency_keys;
}

beforeAll(async () => {
  h = await startHarness({ queues: SANDBOX_QUEUES });
  m = await h.merchant();
});
afterAll(() => h?.close());

const conn = () => h.orm.em.getConnection();

/** A record as the API leaves it, aged in the database: created `ageHours` ago, lock ending at `lockedUntil` (SQL). */
async function record(key: string, state: 'done' | 'in_flight', ageHours: number, lockedUntil: string): Promise<void> {
  await conn().execute(
    `insert into idempotency_keys (merchant_id, environment, key, request_hash, resource_id, state, response_status, response_body, locked_until, created_at)
     values (?, 'sandbox', ?, 'hash', ?, ?, ?, ?, ${lockedUntil}, now() - make_interval(hours => ?))`,
    [m.id, key, `txn_${key}`, state, state === 'done' ? 200 : null, state === 'done' ? '{}' : null, ageHours],
  );
}

async function keysLeft(keys: string[]): Promise<string[]> {
  const rows = await conn().execute<{ key: string }[]>(`select key from idempotency_keys where merchant_id = ? and key in (${keys.map(() => '?').join(',')}) order by key`, [m.id, ...keys]);
  return rows.map((r) => r.key);
}

test('settings: 24 h by default, never less; the loop settings of before issue 34 are refused with what replaced them', () => {
  expect(retentionSettings({}).plan.windowsMs.idempotency_keys).toBe(DAY_MS);
  expect(retentionSettings({}).plan.batch).toBe(1000);
  expect(retentionSettings({ IDEMPOTENCY_RETENTION: '7d', RETENTION_BATCH: '50' }).plan).toMatchObject({ windowsMs: { idempotency_keys: 7 * DAY_MS }, batch: 50 });
  expect(() => retentionSettings({ IDEMPOTENCY_RETENTION: '23h' })).toThrow(/IDEMPOTENCY_RETENTION must be from 1d .*at least 24 hours/);
  expect(() => retentionSettings({ RETENTION_BATCH: '0' })).toThrow(/RETENTION_BATCH/);
  expect(() => retentionSettings({ IDEMPOTENCY_RETENTION_INTERVAL: '10m' })).toThrow(/IDEMPOTENCY_RETENTION_INTERVAL is no longer read: the retention Schedule runs it \(RETENTION_SCHEDULE/);
  expect(() => retentionSettings({ IDEMPOTENCY_RETENTION_BATCH: '50' })).toThrow(/IDEMPOTENCY_RETENTION_BATCH is no longer read: RETENTION_BATCH/);
});

test('an index on created_at serves the delete', async () => {
  const rows = await conn().execute<{ indexdef: string }[]>(`select indexdef from pg_indexes where tablename = 'idempotency_keys' and indexname = 'idempotency_keys_created_at'`);
  expect(rows[0]?.indexdef).toMatch(/\(created_at\)/);
});

test('old finished records go, in batches; young ones and any whose request may still run stay', async () => {
  const tag = idempotencyKey();
  const gone = [`${tag}-old-done-1`, `${tag}-old-done-2`, `${tag}-old-done-3`, `${tag}-old-abandoned`];
  const kept = [`${tag}-young-done`, `${tag}-old-held`, `${tag}-old-recently-unlocked`, `${tag}-young-abandoned`, `${tag}-almost-24h`];
  await record(gone[0], 'done', 25, 'now()');
  await record(gone[1], 'done', 48, 'now()');
  await record(gone[2], 'done', 24 * 30, 'now()');
  // Its claim was given up more than 24 h ago (lock long expired): the request ended without an answer.
  await record(gone[3], 'in_flight', 30, `now() - interval '25 hours'`);
  await record(kept[0], 'done', 1, 'now()');
  // Old, but its request holds the lock right now: still in flight.
  await record(kept[1], 'in_flight', 30, `now() + interval '1 minute'`);
  // Old, lock expired only minutes ago: another attempt may take it over; kept.
  await record(kept[2], 'in_flight', 30, `now() - interval '5 minutes'`);
  await record(kept[3], 'in_flight', 2, `now() - interval '1 hour'`);
  await conn().execute(
    `insert into idempotency_keys (merchant_id, environment, key, request_hash, resource_id, state, response_status, response_body, locked_until, created_at)
     values (?, 'sandbox', ?, 'hash', 'txn_x', 'done', 200, '{}', now(), now() - interval '23 hours 59 minutes')`,
    [m.id, kept[4]],
  );

  // Batches of 2: the pass runs statement after statement until one comes back short.
  const deleted = await pruneIdempotencyKeys({ retentionMs: DAY_MS, batch: 2 });
  expect(deleted).toBeGreaterThanOrEqual(gone.length);
  expect(await keysLeft([...gone, ...kept])).toEqual([...kept].sort());
  // A second pass finds nothing of ours.
  await pruneIdempotencyKeys({ retentionMs: DAY_MS, batch: 2 });
  expect(await keysLeft(kept)).toEqual([...kept].sort());
});

test('one statement deletes at most its batch', async () => {
  const tag = idempotencyKey();
  const keys = Array.from({ length: 5 }, (_, i) => `${tag}-${i}`);
  for (const key of keys) await record(key, 'done', 25, 'now()');
  expect(await deleteExpiredIdempotencyKeys(h.orm, 24 * 3600, 3)).toBe(3);
  expect(await keysLeft(keys)).toHaveLength(2);
  expect(await deleteExpiredIdempotencyKeys(h.orm, 24 * 3600, 3)).toBe(2);
  expect(await keysLeft(keys)).toHaveLength(0);
});

test('a longer retention keeps records the default would delete', async () => {
  const key = `${idempotencyKey()}-two-days`;
  await record(key, 'done', 48, 'now()');
  await pruneIdempotencyKeys({ retentionMs: 7 * DAY_MS });
  expect(await keysLeft([key])).toEqual([key]);
  await pruneIdempotencyKeys({ retentionMs: DAY_MS });
  expect(await keysLeft([key])).toEqual([]);
});

test('within 24 h a retry answers the first charge; once the record is removed, the same key creates a new charge', async () => {
  const key = idempotencyKey();
  const post = () => h.request('sandbox', 'POST', '/v1/charges', { key: m.testKey, body: chargeBody(), headers: { 'Idempotency-Key': key } });
  const first = await post();
  expect(first.status).toBe(200);
  await h.settled(first.json.id);

  // 23 hours on: still the first answer, byte for byte.
  await conn().execute(`update idempotency_keys set created_at = now() - interval '23 hours' where merchant_id = ? and key = ?`, [m.id, key]);
  await pruneIdempotencyKeys();
  const replay = await post();
  expect(replay.status).toBe(200);
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
  expect(replay.text).toBe(first.text);

  // 25 hours on: the retention job removes the record; the key is new again.
  await conn().execute(`update idempotency_keys set created_at = now() - interval '25 hours' where merchant_id = ? and key = ?`, [m.id, key]);
  await pruneIdempotencyKeys();
  expect(await keysLeft([key])).toEqual([]);
  const again = await post();
  expect(again.status).toBe(200);
  expect(again.headers.get('idempotent-replayed')).toBeNull();
  expect(again.json.id).not.toBe(first.json.id);
  await h.settled(again.json.id);
  const charges = await conn().execute<{ n: number }[]>(`select count(*)::int as n from charges where id in (?, ?)`, [first.json.id, again.json.id]);
  expect(Number(charges[0].n)).toBe(2);
});
