import { LockMode } from '@mikro-orm/postgresql';
import { KEY_PREFIX, type Environment } from '../../domain/environment';
import type { ChangeActor } from '../../domain/operator-action';
import type { Scope } from '../../domain/scopes';
import { recordChange } from '../operators/change-audit';
import { ApiKey } from '../entities';
import { hashSecret, keyAuditState, newKeyRow, unknownKeys } from './merchant-store';
import type { Orm } from '../orm';

/** Longest overlap of a rolled key (INTERFACE "keys roll": at most 7 days). */
export const MAX_ROLL_OVERLAP_MS = 7 * 24 * 3600_000;
/** `keys roll` without `--expires-in`. */
export const DEFAULT_ROLL_OVERLAP_MS = 24 * 3600_000;

/** Why a key cannot be rolled: the CLI prints it (exit 1) and nothing changes. */
export class KeyRollRefused extends Error {}

export interface RolledKey {
  id: string;
  secret: string;
  scopes: Scope[];
  previous_expires_at: string;
}

/**
 * `keys roll KEY_ID [--expires-in D]`: a new key of the same merchant, environment and scopes, and the
 * old one ends after `overlapMs` (0 to 7 days; an earlier expiry it already had is kept), in one
 * transaction with the audit row. A revoked, expired or already rolled key is refused: roll the key
 * that replaced it.
 */
export async function rollKey(orm: Orm, keyId: string, overlapMs: number, actor: ChangeActor): Promise<RolledKey> {
  if (!(overlapMs >= 0 && overlapMs <= MAX_ROLL_OVERLAP_MS)) throw new KeyRollRefused('--expires-in must be between 0s and 7d');
  return orm.em.fork().transactional(async (em) => {
    const old = await em.findOne(ApiKey, { id: keyId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!old) throw new KeyRollRefused(`key ${keyId} does not exist`);
    if (old.revokedAt) throw new KeyRollRefused(`key ${keyId} is revoked`);
    if (old.rolledTo) throw new KeyRollRefused(`key ${keyId} was already rolled to ${old.rolledTo}; roll that key instead`);
    const now = new Date();
    if (old.expiresAt && old.expiresAt <= now) throw new KeyRollRefused(`key ${keyId} has expired`);
    const before = keyAuditState(old);
    const { key, secret } = newKeyRow(em, old.merchantId, old.environment as Environment, old.scopes as Scope[]);
    const ends = new Date(now.getTime() + overlapMs);
    old.expiresAt = old.expiresAt && old.expiresAt < ends ? old.expiresAt : ends;
    old.rolledTo = key.id;
    await em.flush();
    await recordChange(em, actor, {
      action: 'api_key.roll',
      subjectId: old.id,
      merchantId: old.merchantId,
      environment: old.environment,
      before,
      after: { ...(keyAuditState(old) as object), new_key: { id: key.id, ...(keyAuditState(key) as object) } },
    });
    unknownKeys.delete(hashSecret(secret));
    return { id: key.id, secret, scopes: key.scopes as Scope[], previous_expires_at: old.expiresAt.toISOString() };
  });
}

/** One key as `keys list` shows it: never a secret or its hash. */
export interface ListedKey {
  id: string;
  environment: Environment;
  /** `svc_test_` or `svc_live_`. */
  prefix: string;
  /** The secret's last four characters, to tell keys apart. */
  last4: string;
  scopes: string[];
  status: 'active' | 'expiring' | 'expired' | 'revoked';
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  revoked_at: string | null;
  rolled_to: string | null;
}

/** `keys list --merchant ID`: every key of the merchant, newest first. */
export async function listKeys(orm: Orm, merchantId: string): Promise<{ object: 'list'; data: ListedKey[] }> {
  const keys = await orm.em.fork().find(ApiKey, { merchantId }, { orderBy: { createdAt: 'desc', id: 'desc' } });
  const now = Date.now();
  const data = keys.map((k): ListedKey => {
    const environment = k.environment as Environment;
    const status = k.revokedAt ? 'revoked' : k.expiresAt ? (k.expiresAt.getTime() <= now ? 'expired' : 'expiring') : 'active';
    return {
      id: k.id,
      environment,
      prefix: KEY_PREFIX[environment],
      last4: k.display.slice(-4),
      scopes: k.scopes as string[],
      status,
      created_at: k.createdAt.toISOString(),
      last_used_at: k.lastUsedAt?.toISOString() ?? null,
      expires_at: k.expiresAt?.toISOString() ?? null,
      revoked_at: k.revokedAt?.toISOString() ?? null,
      rolled_to: k.rolledTo ?? null,
    };
  });
  return { object: 'list', data };
}
