/**
 * `cli secrets reseal` rotates SECRETS_KEY: every sealed webhook signing secret (current and
 * previous) is opened with the keyring (SECRETS_KEY plus SECRETS_KEY_PREVIOUS) and sealed again with
 * SECRETS_KEY, in batches; a second run changes nothing. Settlement account numbers (merchants' and
 * batches' destinations) too, counted apart, and those still in plain text (rows from before
 * migration 20261125000005) are sealed, as a worker does at start. Runs against real PostgreSQL, in a
 * database of its own (the suite's other rows are sealed with the suite's key and must stay so).
 */
import { createCipheriv, randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { maskAccountNumber } from '../../src/domain/settlement-account';
import { createMerchant } from '../../src/persistence/merchants/merchant-store';
import { migrate, openOrm, type Orm } from '../../src/persistence/orm';
import { insertEndpoint, rotateEndpointSecret } from '../../src/persistence/webhooks/webhook-endpoint-store';
import { newId } from '../../src/support/new-id';
import { resealSecrets, sealSettlementAccounts } from '../../src/services/reseal-secrets';
import { createSecretBox, keyId } from '../../src/support/secret-box';
import { connectTemporal } from '../../src/temporal/connection';
import { settlementScheduleId } from '../../src/temporal/settlement-schedule';
import { testPayloadCodec } from '../support/payload-codec';
import { killAllWorkers, startWorkerChild } from '../support/worker-child';
import { execCli } from '../support/run-cli';
import { testActor } from '../support/test-actor';

const keyA = randomBytes(32);
const keyB = randomBytes(32);
const boxA = createSecretBox(keyA);
const database = `reseal_${randomBytes(4).toString('hex')}`;
/** No payment counterparties in this database unless a test writes some. */
const noParties = { resealed: 0, already_current: 0 };
let url: string;
let orm: Orm;

async function admin<T>(work: (c: Client) => Promise<T>): Promise<T> {
  const c = new Client({ connectionString: process.env.TEST_DATABASE_URL });
  await c.connect();
  try {
    return await work(c);
  } finally {
    await c.end();
  }
}

beforeAll(async () => {
  await admin((c) => c.query(`create database ${database}`));
  const u = new URL(process.env.TEST_DATABASE_URL!);
  u.pathname = `/${database}`;
  url = u.toString();
  orm = await openOrm(url, 2);
  await migrate(orm);
});
afterAll(async () => {
  await killAllWorkers();
  await orm?.close();
  await admin((c) => c.query(`drop database if exists ${database} with (force)`));
});

/** A value in the format before key ids (v1.<iv>.<body>.<tag>). */
function sealV1(key: Buffer, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64url'), body.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
}

const sql = <T = Record<string, unknown>>(q: string, params: unknown[] = []) => orm.em.fork().getConnection().execute<T[]>(q, params);

/** Endpoints sealed with key A: some rotated (a previous secret), one twice (a retired secret, issue 32), one deleted, one in the v1 format. */
async function seedWithKeyA(): Promise<Map<string, { current: string; previous: string | null; retired?: string }>> {
  const m = await createMerchant(orm, 'Reseal Merchant');
  const owner = { merchantId: m.id, environment: 'sandbox' as const };
  const plain = new Map<string, { current: string; previous: string | null; retired?: string }>();
  for (let i = 0; i < 5; i++) {
    const id = newId('webhookEndpoint');
    const secret = `whsec_${i}_${randomBytes(8).toString('hex')}`;
    await insertEndpoint(orm, owner, { id, url: `https://example.com/${i}`, description: null, subscribedEvents: [], timeoutSeconds: 10, sealedSecret: boxA.seal(secret) }, testActor());
    plain.set(id, { current: secret, previous: null });
    if (i % 2 === 0) {
      const next = `whsec_rotated_${i}`;
      await rotateEndpointSecret(orm, owner, id, boxA.seal(next), 3_600_000, testActor());
      plain.set(id, { current: next, previous: secret });
    }
    if (i === 2) {
      const third = `whsec_again_${i}`;
      await rotateEndpointSecret(orm, owner, id, boxA.seal(third), 3_600_000, testActor());
      plain.set(id, { current: third, previous: `whsec_rotated_${i}`, retired: plain.get(id)!.previous! });
    }
  }
  const [legacy, deleted] = [...plain.keys()];
  await sql(`update webhook_endpoints set secret_box = ? where id = ?`, [sealV1(keyA, plain.get(legacy)!.current), legacy]);
  await sql(`update webhook_endpoints set deleted_at = now() where id = ?`, [deleted]);
  return plain;
}

const cli = (env: Record<string, string>) => execCli(['secrets', 'reseal'], { PATH: process.env.PATH, HOME: process.env.HOME, DATABASE_URL: url, ...env });

async function rows(): Promise<Array<{ id: string; secret_box: string; previous_secret_box: string | null; retired_secrets: Array<{ box: string }> }>> {
  return sql(`select id, secret_box, previous_secret_box, retired_secrets from webhook_endpoints order by id`);
}

test('seal with A, rotate to B (A previous), reseal: every secret opens with B alone; a second run changes nothing', async () => {
  await sql(`delete from webhook_endpoints`);
  const plain = await seedWithKeyA();
  const total = [...plain.values()].reduce((n, p) => n + 1 + (p.previous ? 1 : 0) + (p.retired ? 1 : 0), 0);

  // Without A in the ring nothing can be opened: exit 1, the endpoint named, nothing on stdout.
  const refused = await cli({ SECRETS_KEY: keyB.toString('base64') });
  expect(refused.code).toBe(1);
  expect(refused.stdout).toBe('');
  expect(refused.stderr).toMatch(/^error: webhook endpoint we_\w+: sealed secret/);

  const first = await cli({ SECRETS_KEY: keyB.toString('base64'), SECRETS_KEY_PREVIOUS: keyA.toString('base64') });
  expect({ code: first.code, stderr: first.stderr }).toEqual({ code: 0, stderr: '' });
  expect(first.stdout.indexOf('\n')).toBe(first.stdout.length - 1);
  expect(JSON.parse(first.stdout)).toEqual({ resealed: total, already_current: 0, settlement_accounts: { sealed: 0, resealed: 0, already_current: 0 }, payment_parties: noParties, card_tokens: noParties });

  const onlyB = createSecretBox(keyB);
  for (const row of await rows()) {
    expect(row.secret_box.split('.').slice(0, 2)).toEqual(['v2', keyId(keyB)]);
    expect(onlyB.open(row.secret_box)).toBe(plain.get(row.id)!.current);
    expect(row.previous_secret_box === null ? null : onlyB.open(row.previous_secret_box)).toBe(plain.get(row.id)!.previous);
    expect(row.retired_secrets.map((r) => onlyB.open(r.box))).toEqual(plain.get(row.id)!.retired ? [plain.get(row.id)!.retired] : []);
  }

  const second = await cli({ SECRETS_KEY: keyB.toString('base64'), SECRETS_KEY_PREVIOUS: keyA.toString('base64') });
  expect(JSON.parse(second.stdout)).toEqual({ resealed: 0, already_current: total, settlement_accounts: { sealed: 0, resealed: 0, already_current: 0 }, payment_parties: noParties, card_tokens: noParties });
  // Once resealed, A may leave the ring.
  const third = await cli({ SECRETS_KEY: keyB.toString('base64') });
  expect(JSON.parse(third.stdout)).toEqual({ resealed: 0, already_current: total, settlement_accounts: { sealed: 0, resealed: 0, already_current: 0 }, payment_parties: noParties, card_tokens: noParties });
});

test('in batches: small batches reach every row, and the counts add up', async () => {
  await sql(`delete from webhook_endpoints`);
  const plain = await seedWithKeyA();
  const total = [...plain.values()].reduce((n, p) => n + 1 + (p.previous ? 1 : 0) + (p.retired ? 1 : 0), 0);
  const ring = createSecretBox({ current: keyB, previous: [keyA] });
  const none = { sealed: 0, resealed: 0, already_current: 0 };
  expect(await resealSecrets(orm, ring, 2)).toEqual({ resealed: total, already_current: 0, settlement_accounts: none, payment_parties: noParties, card_tokens: noParties });
  expect(await resealSecrets(orm, ring, 2)).toEqual({ resealed: 0, already_current: total, settlement_accounts: none, payment_parties: noParties, card_tokens: noParties });
  const onlyB = createSecretBox(keyB);
  for (const row of await rows()) expect(onlyB.open(row.secret_box)).toBe(plain.get(row.id)!.current);
});

/** Settlement accounts as the database may hold them, sealed with key A or (rows from before migration 20261125000005) in plain text. */
interface SeededAccounts {
  merchants: Map<string, string>;
  batches: Map<string, string>;
}

async function seedAccountsWithKeyA(): Promise<SeededAccounts> {
  await sql(`delete from settlements`);
  await sql(`update merchants set settlement_bank_code = null, settlement_account_number = null, settlement_account_sealed = null, settlement_account_masked = null`);
  const seeded: SeededAccounts = { merchants: new Map(), batches: new Map() };
  const numbers = ['0011223344556', '0022334455667', '0033445566778', '0044556677889'];
  for (const [i, number] of numbers.entries()) {
    const m = await createMerchant(orm, `Account ${i}`);
    seeded.merchants.set(m.id, number);
    // 0: sealed with A; 1: the v1 format; 2 and 3: plain text (from before the migration).
    if (i < 2) {
      await sql(`update merchants set settlement_bank_code = 'GCB', settlement_account_sealed = ?, settlement_account_masked = ? where id = ?`, [
        i === 0 ? boxA.seal(number) : sealV1(keyA, number),
        maskAccountNumber(number),
        m.id,
      ]);
    } else {
      await sql(`update merchants set settlement_bank_code = 'GCB', settlement_account_number = ? where id = ?`, [number, m.id]);
    }
    // A batch to each of the first three: destinations sealed with A (0), in plain text (1, 2).
    if (i < 3) {
      const id = newId('settlement');
      const [sealed, masked, plain] = i === 0 ? [boxA.seal(number), maskAccountNumber(number), null] : [null, null, number];
      await sql(
        `insert into settlements (id, merchant_id, environment, currency, status, amount, entry_count, period_end, destination_bank_code,
           destination_account_number, destination_account_sealed, destination_account_masked, created_at, updated_at)
         values (?, ?, 'sandbox', 'GHS', 'pending', 1000, 1, now(), 'GCB', ?, ?, ?, now(), now())`,
        [id, m.id, plain, sealed, masked],
      );
      seeded.batches.set(id, number);
    }
  }
  return seeded;
}

type AccountRow = { id: string; plaintext: string | null; sealed: string | null; masked: string | null };

async function accountRows(): Promise<{ merchants: AccountRow[]; batches: AccountRow[] }> {
  return {
    merchants: await sql<AccountRow>(`select id, settlement_account_number as plaintext, settlement_account_sealed as sealed, settlement_account_masked as masked from merchants where settlement_bank_code is not null`),
    batches: await sql<AccountRow>(`select id, destination_account_number as plaintext, destination_account_sealed as sealed, destination_account_masked as masked from settlements`),
  };
}

/** Every number sealed with `key` alone (no plain text left), opening to what was seeded, masked as before. */
async function expectAllSealedWith(key: Buffer, seeded: SeededAccounts): Promise<void> {
  const box = createSecretBox(key);
  const rows = await accountRows();
  for (const [list, expected] of [
    [rows.merchants, seeded.merchants],
    [rows.batches, seeded.batches],
  ] as const) {
    expect(list).toHaveLength(expected.size);
    for (const row of list) {
      const number = expected.get(row.id)!;
      expect({ plaintext: row.plaintext, masked: row.masked, kid: row.sealed?.split('.').slice(0, 2) }).toEqual({ plaintext: null, masked: maskAccountNumber(number), kid: ['v2', keyId(key)] });
      expect(box.open(row.sealed!)).toBe(number);
      expect(JSON.stringify(row)).not.toContain(number);
    }
  }
}

describe('settlement account numbers', () => {
  beforeEach(() => sql(`delete from webhook_endpoints`));

  test('reseal: plain numbers sealed, numbers sealed with A re-sealed with B, counted apart from webhook secrets; a second run changes nothing', async () => {
    const seeded = await seedAccountsWithKeyA();

    // A number no key of the ring opens stops the command, naming the row, never the number.
    const refused = await cli({ SECRETS_KEY: keyB.toString('base64') });
    expect([refused.code, refused.stdout]).toEqual([1, '']);
    expect(refused.stderr).toMatch(/^error: merchant mer_\w+: settlement account number: sealed secret/);
    for (const number of [...seeded.merchants.values()]) expect(refused.stderr).not.toContain(number);

    const first = await cli({ SECRETS_KEY: keyB.toString('base64'), SECRETS_KEY_PREVIOUS: keyA.toString('base64') });
    expect({ code: first.code, stderr: first.stderr }).toEqual({ code: 0, stderr: '' });
    // Merchants: 2 sealed with A (one v1), 2 plain; batches: 1 sealed with A, 2 plain.
    expect(JSON.parse(first.stdout)).toEqual({ resealed: 0, already_current: 0, settlement_accounts: { sealed: 4, resealed: 3, already_current: 0 }, payment_parties: noParties, card_tokens: noParties });
    await expectAllSealedWith(keyB, seeded);

    const second = await cli({ SECRETS_KEY: keyB.toString('base64') });
    expect(JSON.parse(second.stdout)).toEqual({ resealed: 0, already_current: 0, settlement_accounts: { sealed: 0, resealed: 0, already_current: 7 }, payment_parties: noParties, card_tokens: noParties });
    await expectAllSealedWith(keyB, seeded);
  });

  test('in batches of 2: every row reached; the plain-text-only pass (as at worker start) leaves sealed numbers as they are', async () => {
    const seeded = await seedAccountsWithKeyA();
    const ring = createSecretBox({ current: keyB, previous: [keyA] });
    expect(await sealSettlementAccounts(orm, ring, 'plaintext', 2)).toEqual({ sealed: 4, resealed: 0, already_current: 0 });
    expect(await sealSettlementAccounts(orm, ring, 'plaintext', 2)).toEqual({ sealed: 0, resealed: 0, already_current: 0 });
    const rows = await accountRows();
    expect([...rows.merchants, ...rows.batches].every((r) => r.plaintext === null)).toBe(true);
    expect(await resealSecrets(orm, ring, 2)).toEqual({ resealed: 0, already_current: 0, settlement_accounts: { sealed: 0, resealed: 3, already_current: 4 }, payment_parties: noParties, card_tokens: noParties });
    await expectAllSealedWith(keyB, seeded);
  });

  test('a worker start (workers/main.ts) seals the plain numbers before it polls, and logs the count, never a number', async () => {
    const seeded = await seedAccountsWithKeyA();
    const taskQueue = `reseal-${randomBytes(4).toString('hex')}`;
    const worker = await startWorkerChild({
      taskQueue,
      databaseUrl: url,
      env: { SECRETS_KEY: keyB.toString('base64'), SECRETS_KEY_PREVIOUS: keyA.toString('base64'), LOG_LEVEL: 'info' },
    });
    try {
      // Ready means polling: the plain numbers are sealed (with B); the ones sealed with A wait for `secrets reseal`.
      const rows = await accountRows();
      const all = [...rows.merchants, ...rows.batches];
      expect(all.filter((r) => r.plaintext !== null)).toEqual([]);
      expect(all.map((r) => keyIdOf(r.sealed)).sort()).toEqual([...Array<string>(4).fill(keyId(keyB)), 'A', 'A', 'A'].sort());
      expect(worker.output()).toContain('settlement account numbers sealed');
      for (const number of [...seeded.merchants.values()]) expect(worker.output()).not.toContain(number);
    } finally {
      await worker.kill();
      const temporal = await connectTemporal(process.env.TEST_TEMPORAL_ADDRESS!, 'default', testPayloadCodec());
      await temporal.client.schedule.getHandle(settlementScheduleId(taskQueue)).delete().catch(() => undefined);
      await temporal.connection.close();
    }
    expect(await resealSecrets(orm, createSecretBox({ current: keyB, previous: [keyA] }))).toMatchObject({ settlement_accounts: { sealed: 0, resealed: 3, already_current: 4 } });
    await expectAllSealedWith(keyB, seeded);
  });
});

/** `A` for a value sealed with key A (v2, or v1 which has no key id), else the key id it names. */
function keyIdOf(sealed: string | null): string {
  if (sealed === null) return '';
  const [version, kid] = sealed.split('.');
  return version === 'v1' || kid === keyId(keyA) ? 'A' : kid;
}

test('secrets reseal re-seals the payments\' counterparties (payment_parties) opened with a previous key', async () => {
  const ids = ['txn_party000000000000000001', 'po_party0000000000000000002'];
  for (const id of ids) await orm.em.getConnection().execute(`insert into payment_parties (payment_id, party_sealed) values (?, ?) on conflict do nothing`, [id, boxA.seal(`23324000${id.slice(-4)}`)]);
  const ring = createSecretBox({ current: keyB, previous: [keyA] });
  expect((await resealSecrets(orm, ring)).payment_parties).toEqual({ resealed: 2, already_current: 0 });
  expect((await resealSecrets(orm, ring)).payment_parties).toEqual({ resealed: 0, already_current: 2 });
  const rows = await orm.em.getConnection().execute<Array<{ payment_id: string; party_sealed: string }>>(`select payment_id, party_sealed from payment_parties order by payment_id`);
  expect(rows.map((r) => createSecretBox(keyB).open(r.party_sealed))).toEqual(['233240000002', '233240000001']);
});
