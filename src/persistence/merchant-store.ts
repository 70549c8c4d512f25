import { createHash } from 'node:crypto';
import type { Environment } from '../domain/environment';
import { KEY_PREFIX } from '../domain/environment';
import { ALL_SCOPES, type Scope } from '../domain/scopes';
import { newId, randomBase62 } from '../support/new-id';
import { ApiKey, Merchant } from './entities';
import type { Orm } from './orm';

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

export interface IssuedKey {
  id: string;
  secret: string;
  scopes: Scope[];
  environment: Environment;
}

export interface AuthenticatedKey {
  keyId: string;
  merchantId: string;
  environment: Environment;
  scopes: Scope[];
  merchantVerified: boolean;
}

export async function createMerchant(orm: Orm, name: string): Promise<{ id: string; testKey: IssuedKey; liveKey: IssuedKey }> {
  const id = newId('merchant');
  const em = orm.em.fork();
  em.create(Merchant, { id, name, verifiedAt: null, createdAt: new Date() });
  await em.flush();
  const testKey = await issueKey(orm, id, 'sandbox', [...ALL_SCOPES]);
  const liveKey = await issueKey(orm, id, 'live', [...ALL_SCOPES]);
  return { id, testKey, liveKey };
}

/** Issues a key; the secret is returned once and only its SHA-256 is stored. */
export async function issueKey(orm: Orm, merchantId: string, environment: Environment, scopes: Scope[]): Promise<IssuedKey> {
  const em = orm.em.fork();
  const merchant = await em.findOne(Merchant, { id: merchantId });
  if (!merchant) throw new Error(`merchant ${merchantId} does not exist`);
  const secret = KEY_PREFIX[environment] + randomBase62(32);
  const id = newId('apiKey');
  em.create(ApiKey, {
    id,
    merchantId,
    environment,
    secretHash: hashSecret(secret),
    display: `${KEY_PREFIX[environment]}…${secret.slice(-4)}`,
    scopes,
    revokedAt: null,
    createdAt: new Date(),
  });
  await em.flush();
  return { id, secret, scopes, environment };
}

export async function revokeKey(orm: Orm, keyId: string): Promise<{ id: string; revoked_at: string }> {
  const em = orm.em.fork();
  const key = await em.findOne(ApiKey, { id: keyId });
  if (!key) throw new Error(`key ${keyId} does not exist`);
  key.revokedAt ??= new Date();
  await em.flush();
  return { id: key.id, revoked_at: key.revokedAt.toISOString() };
}

export async function verifyMerchant(orm: Orm, merchantId: string): Promise<{ id: string; verified_at: string }> {
  const em = orm.em.fork();
  const merchant = await em.findOne(Merchant, { id: merchantId });
  if (!merchant) throw new Error(`merchant ${merchantId} does not exist`);
  merchant.verifiedAt ??= new Date();
  await em.flush();
  return { id: merchant.id, verified_at: merchant.verifiedAt.toISOString() };
}

/** Looks a presented secret up by its hash, in one query; revoked keys are not found. */
export async function findKeyBySecret(orm: Orm, secret: string): Promise<AuthenticatedKey | null> {
  const rows = await orm.em.getConnection().execute<{ id: string; merchant_id: string; environment: Environment; scopes: string[]; verified: boolean }[]>(
    `select k.id, k.merchant_id, k.environment, k.scopes, m.verified_at is not null as verified
     from api_keys k join merchants m on m.id = k.merchant_id
     where k.secret_hash = ? and k.revoked_at is null`,
    [hashSecret(secret)],
  );
  const row = rows[0];
  if (!row) return null;
  return { keyId: row.id, merchantId: row.merchant_id, environment: row.environment, scopes: row.scopes as Scope[], merchantVerified: row.verified };
}
