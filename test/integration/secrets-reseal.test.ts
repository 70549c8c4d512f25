/**
 * `cli secrets reseal` rotates SECRETS_KEY: every sealed webhook signing secret (current and
 * previous) is opened with the keyring (SECRETS_KEY plus SECRETS_KEY_PREVIOUS) and sealed again with
 * SECRETS_KEY, in batches; a second run changes nothing. Runs against real PostgreSQL, in a database
 * of its own (the suite's other endpoints are sealed with the suite's key and must stay so).
 */
import { createCipheriv, randomBytes } from 'node:crypto';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { Client } from 'pg';
import { createMerchant } from '../../src/persistence/merchant-store';
import { migrate, openOrm, type Orm } from '../../src/persistence/orm';
import { insertEndpoint, rotateEndpointSecret } from '../../src/persistence/webhook-endpoint-store';
import { newId } from '../../src/support/new-id';
import { resealSecrets } from '../../src/services/reseal-secrets';
import { createSecretBox, keyId } from '../../src/support/secret-box';

const ROOT = path.resolve(__dirname, '../..');
const keyA = randomBytes(32);
const keyB = randomBytes(32);
const boxA = createSecretBox(keyA);
const database = `reseal_${randomBytes(4).toString('hex')}`;
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

/** Endpoints sealed with key A: some rotated (a previous secret), one deleted, one in the v1 format. */
async function seedWithKeyA(): Promise<Map<string, { current: string; previous: string | null }>> {
  const m = await createMerchant(orm, 'Reseal Merchant');
  const owner = { merchantId: m.id, environment: 'sandbox' as const };
  const plain = new Map<string, { current: string; previous: string | null }>();
  for (let i = 0; i < 5; i++) {
    const id = newId('webhookEndpoint');
    const secret = `whsec_${i}_${randomBytes(8).toString('hex')}`;
    await insertEndpoint(orm, owner, { id, url: `https://example.com/${i}`, description: null, subscribedEvents: [], timeoutSeconds: 10, sealedSecret: boxA.seal(secret) });
    plain.set(id, { current: secret, previous: null });
    if (i % 2 === 0) {
      const next = `whsec_rotated_${i}`;
      await rotateEndpointSecret(orm, owner, id, boxA.seal(next), 3_600_000);
      plain.set(id, { current: next, previous: secret });
    }
  }
  const [legacy, deleted] = [...plain.keys()];
  await sql(`update webhook_endpoints set secret_box = ? where id = ?`, [sealV1(keyA, plain.get(legacy)!.current), legacy]);
  await sql(`update webhook_endpoints set deleted_at = now() where id = ?`, [deleted]);
  return plain;
}

function cli(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const base: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, DATABASE_URL: url, ...env };
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'secrets', 'reseal'], { cwd: ROOT, env: base, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr });
    });
  });
}

async function rows(): Promise<Array<{ id: string; secret_box: string; previous_secret_box: string | null }>> {
  return sql(`select id, secret_box, previous_secret_box from webhook_endpoints order by id`);
}

test('seal with A, rotate to B (A previous), reseal: every secret opens with B alone; a second run changes nothing', async () => {
  await sql(`delete from webhook_endpoints`);
  const plain = await seedWithKeyA();
  const total = [...plain.values()].reduce((n, p) => n + 1 + (p.previous ? 1 : 0), 0);

  // Without A in the ring nothing can be opened: exit 1, the endpoint named, nothing on stdout.
  const refused = await cli({ SECRETS_KEY: keyB.toString('base64') });
  expect(refused.code).toBe(1);
  expect(refused.stdout).toBe('');
  expect(refused.stderr).toMatch(/^error: webhook endpoint we_\w+: sealed secret/);

  const first = await cli({ SECRETS_KEY: keyB.toString('base64'), SECRETS_KEY_PREVIOUS: keyA.toString('base64') });
  expect({ code: first.code, stderr: first.stderr }).toEqual({ code: 0, stderr: '' });
  expect(first.stdout.indexOf('\n')).toBe(first.stdout.length - 1);
  expect(JSON.parse(first.stdout)).toEqual({ resealed: total, already_current: 0 });

  const onlyB = createSecretBox(keyB);
  for (const row of await rows()) {
    expect(row.secret_box.split('.').slice(0, 2)).toEqual(['v2', keyId(keyB)]);
    expect(onlyB.open(row.secret_box)).toBe(plain.get(row.id)!.current);
    expect(row.previous_secret_box === null ? null : onlyB.open(row.previous_secret_box)).toBe(plain.get(row.id)!.previous);
  }

  const second = await cli({ SECRETS_KEY: keyB.toString('base64'), SECRETS_KEY_PREVIOUS: keyA.toString('base64') });
  expect(JSON.parse(second.stdout)).toEqual({ resealed: 0, already_current: total });
  // Once resealed, A may leave the ring.
  const third = await cli({ SECRETS_KEY: keyB.toString('base64') });
  expect(JSON.parse(third.stdout)).toEqual({ resealed: 0, already_current: total });
});

test('in batches: small batches reach every row, and the counts add up', async () => {
  await sql(`delete from webhook_endpoints`);
  const plain = await seedWithKeyA();
  const total = [...plain.values()].reduce((n, p) => n + 1 + (p.previous ? 1 : 0), 0);
  const ring = createSecretBox({ current: keyB, previous: [keyA] });
  expect(await resealSecrets(orm, ring, 2)).toEqual({ resealed: total, already_current: 0 });
  expect(await resealSecrets(orm, ring, 2)).toEqual({ resealed: 0, already_current: total });
  const onlyB = createSecretBox(keyB);
  for (const row of await rows()) expect(onlyB.open(row.secret_box)).toBe(plain.get(row.id)!.current);
});
