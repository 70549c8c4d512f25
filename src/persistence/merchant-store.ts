import { createHash } from 'node:crypto';
import type { Environment } from '../domain/environment';
import { KEY_PREFIX } from '../domain/environment';
import { ALL_SCOPES, type Scope } from '../domain/scopes';
import { newId, randomBase62 } from '../support/new-id';
import { ApiKey, Merchant } from './entities';
import type { Orm } from './orm';
import { UnknownKeyCache } from './unknown-key-cache';

/** Random characters after the prefix of every key issueKey makes. */
export const KEY_SECRET_LENGTH = 32;
const KEY_FORMAT = new RegExp(`^(?:${Object.values(KEY_PREFIX).join('|')})[0-9A-Za-z]{${KEY_SECRET_LENGTH}}$`);

/** True for the shape of an issued key (`svc_test_` or `svc_live_` and 32 base62 characters); anything else is refused unlooked-up. */
export function isWellFormedKey(secret: string): boolean {
  return KEY_FORMAT.test(secret);
}

/** The process's memory of unknown key hashes (unknown-key-cache.ts). */
export const unknownKeys = new UnknownKeyCache();

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
  const secret = KEY_PREFIX[environment] + randomBase62(KEY_SECRET_LENGTH);
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
  unknownKeys.delete(hashSecret(secret));
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

/**
 * Looks a presented secret up by its hash, in one query; revoked keys are not found. A malformed key
 * costs no query; an unknown (or revoked) one costs one, then none for UNKNOWN_KEY_TTL_MS (the
 * `unknown` cache). A known key is never cached: each request checks it for revocation.
 */
export async function findKeyBySecret(orm: Orm, secret: string, unknown: UnknownKeyCache = unknownKeys): Promise<AuthenticatedKey | null> {
  if (!isWellFormedKey(secret)) return null;
  const hash = hashSecret(secret);
  if (unknown.has(hash)) return null;
  const rows = await orm.em.getConnection().execute<{ id: string; merchant_id: string; environment: Environment; scopes: string[]; verified: boolean }[]>(
    `select k.id, k.merchant_id, k.environment, k.scopes, m.verified_at is not null as verified
     from api_keys k join merchants m on m.id = k.merchant_id
     where k.secret_hash = ? and k.revoked_at is null`,
    [hash],
  );
  const row = rows[0];
  if (!row) {
    unknown.add(hash);
    return null;
  }
  return { keyId: row.id, merchantId: row.merchant_id, environment: row.environment, scopes: row.scopes as Scope[], merchantVerified: row.verified };
}
