import { createHash } from 'node:crypto';
import { LockMode, type EntityManager, type InferEntity } from '@mikro-orm/postgresql';
import type { Environment } from '../../domain/environment';
import { KEY_PREFIX } from '../../domain/environment';
import type { ChangeActor } from '../../domain/operator-action';
import { ALL_SCOPES, type Scope } from '../../domain/scopes';
import { recordChange } from '../operators/change-audit';
import { newId, randomBase62 } from '../../support/new-id';
import { ApiKey, Merchant } from '../entities';
import type { Orm } from '../orm';
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

/** The actor of a change made by code rather than a person (a test, the demo merchant). */
export function systemActor(reason: string): ChangeActor {
  return { operator: 'system', reason, requestId: newId('request') };
}

export async function createMerchant(orm: Orm, name: string, actor: ChangeActor = systemActor('merchant created')): Promise<{ id: string; testKey: IssuedKey; liveKey: IssuedKey }> {
  const id = newId('merchant');
  const em = orm.em.fork();
  em.create(Merchant, { id, name, verifiedAt: null, createdAt: new Date() });
  await em.flush();
  const testKey = await issueKey(orm, id, 'sandbox', [...ALL_SCOPES], actor);
  const liveKey = await issueKey(orm, id, 'live', [...ALL_SCOPES], actor);
  return { id, testKey, liveKey };
}

/** What an audit row keeps of a key: never its secret or hash. */
export function keyAuditState(key: { environment: string; display: string; scopes: string[]; expiresAt?: Date | null; revokedAt?: Date | null; rolledTo?: string | null }): unknown {
  return {
    environment: key.environment,
    display: key.display,
    scopes: key.scopes,
    expires_at: key.expiresAt?.toISOString() ?? null,
    revoked_at: key.revokedAt?.toISOString() ?? null,
    rolled_to: key.rolledTo ?? null,
  };
}

/** A new key's row (not yet flushed) and its secret, shown once; only its SHA-256 is stored. */
export function newKeyRow(em: EntityManager, merchantId: string, environment: Environment, scopes: Scope[]): { key: InferEntity<typeof ApiKey>; secret: string } {
  const secret = KEY_PREFIX[environment] + randomBase62(KEY_SECRET_LENGTH);
  const key = em.create(ApiKey, {
    id: newId('apiKey'),
    merchantId,
    environment,
    secretHash: hashSecret(secret),
    display: `${KEY_PREFIX[environment]}…${secret.slice(-4)}`,
    scopes,
    revokedAt: null,
    createdAt: new Date(),
    expiresAt: null,
    rolledTo: null,
    lastUsedAt: null,
  });
  return { key, secret };
}

/** Issues a key, with its audit row in the same transaction; the secret is returned once. */
export async function issueKey(orm: Orm, merchantId: string, environment: Environment, scopes: Scope[], actor: ChangeActor = systemActor('key issued')): Promise<IssuedKey> {
  const issued = await orm.em.fork().transactional(async (em) => {
    const merchant = await em.findOne(Merchant, { id: merchantId });
    if (!merchant) throw new Error(`merchant ${merchantId} does not exist`);
    const { key, secret } = newKeyRow(em, merchantId, environment, scopes);
    await em.flush();
    await recordChange(em, actor, { action: 'api_key.create', subjectId: key.id, merchantId, environment, before: null, after: keyAuditState(key) });
    return { id: key.id, secret, scopes, environment };
  });
  unknownKeys.delete(hashSecret(issued.secret));
  return issued;
}

/**
 * Revokes a key at once: every API process checks revocation on each request (findKeyBySecret), so
 * the next request with it is 401 everywhere. Revoking a revoked key changes nothing and writes no
 * audit row.
 */
export async function revokeKey(orm: Orm, keyId: string, actor: ChangeActor = systemActor('key revoked')): Promise<{ id: string; revoked_at: string }> {
  return orm.em.fork().transactional(async (em) => {
    const key = await em.findOne(ApiKey, { id: keyId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!key) throw new Error(`key ${keyId} does not exist`);
    if (!key.revokedAt) {
      const before = keyAuditState(key);
      key.revokedAt = new Date();
      await em.flush();
      await recordChange(em, actor, { action: 'api_key.revoke', subjectId: key.id, merchantId: key.merchantId, environment: key.environment, before, after: keyAuditState(key) });
    }
    return { id: key.id, revoked_at: key.revokedAt.toISOString() };
  });
}

/**
 * `merchants verify ID`: the merchant's live key may be used from now on. The merchant row is locked;
 * verifying it writes its operator_audit row (`merchant.verify`) in the same transaction; a merchant
 * verified already changes nothing and writes no row (`changed: false`).
 */
export async function verifyMerchant(orm: Orm, merchantId: string, actor: ChangeActor = systemActor('merchant verified')): Promise<{ id: string; verified_at: string; changed: boolean }> {
  return orm.em.fork().transactional(async (em) => {
    const rows = await em.execute<{ verified_at: Date | string | null }[]>(`select verified_at from merchants where id = ? for update`, [merchantId]);
    if (!rows[0]) throw new Error(`merchant ${merchantId} does not exist`);
    if (rows[0].verified_at !== null) return { id: merchantId, verified_at: new Date(rows[0].verified_at).toISOString(), changed: false };
    const updated = await em.execute<{ verified_at: Date | string }[]>(`update merchants set verified_at = now() where id = ? returning verified_at`, [merchantId]);
    const verifiedAt = new Date(updated[0].verified_at).toISOString();
    await recordChange(em, actor, { action: 'merchant.verify', subjectId: merchantId, merchantId, environment: 'live', before: { verified_at: null }, after: { verified_at: verifiedAt } });
    return { id: merchantId, verified_at: verifiedAt, changed: true };
  });
}

/**
 * `last_used_at` for `keys list`, to the minute: written when a request finds it older than a minute,
 * so a busy key costs one write a minute, off the request's path (a failed write is only a stale
 * figure, never a failed request).
 */
function touchLastUsed(orm: Orm, keyId: string): void {
  orm.em
    .getConnection()
    .execute(`update api_keys set last_used_at = now() where id = ? and (last_used_at is null or last_used_at < now() - interval '1 minute')`, [keyId])
    .catch(() => undefined);
}

/**
 * Looks a presented secret up by its hash, in one query; revoked and expired (rolled) keys are not found. A malformed key
 * costs no query; an unknown (or revoked) one costs one, then none for UNKNOWN_KEY_TTL_MS (the
 * `unknown` cache). A known key is never cached: each request checks it for revocation.
 */
export async function findKeyBySecret(orm: Orm, secret: string, unknown: UnknownKeyCache = unknownKeys): Promise<AuthenticatedKey | null> {
  if (!isWellFormedKey(secret)) return null;
  const hash = hashSecret(secret);
  if (unknown.has(hash)) return null;
  const rows = await orm.em.getConnection().execute<{ id: string; merchant_id: string; environment: Environment; scopes: string[]; verified: boolean; stale_use: boolean }[]>(
    `select k.id, k.merchant_id, k.environment, k.scopes, m.verified_at is not null as verified,
       k.last_used_at is null or k.last_used_at < now() - interval '1 minute' as stale_use
     from api_keys k join merchants m on m.id = k.merchant_id
     where k.secret_hash = ? and k.revoked_at is null and (k.expires_at is null or k.expires_at > now())`,
    [hash],
  );
  const row = rows[0];
  if (!row) {
    unknown.add(hash);
    return null;
  }
  if (row.stale_use) touchLastUsed(orm, row.id);
  return { keyId: row.id, merchantId: row.merchant_id, environment: row.environment, scopes: row.scopes as Scope[], merchantVerified: row.verified };
}
