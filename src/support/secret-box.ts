import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { ensurePrivateDir } from './private-dir';
import path from 'node:path';

/**
 * Encrypts webhook signing secrets at rest (AES-256-GCM). Signing needs the secret itself, so it
 * cannot be hashed like an API key; the database alone does not reveal it.
 *
 * Format `v2.<kid>.<iv>.<body>.<tag>`: `kid` names the SECRETS_KEY that sealed it (see `keyId`), so a
 * keyring (the current key plus SECRETS_KEY_PREVIOUS) opens values sealed before a rotation, and
 * `secrets reseal` finds the ones still to re-seal. `v1.<iv>.<body>.<tag>` values (no key id, sealed
 * before key ids existed) are still opened, by trying each key of the ring.
 */
export interface SecretBox {
  seal(plaintext: string): string;
  open(sealed: string): string;
  /** True when `sealed` is in the current format and sealed with the current key (nothing to re-seal). */
  isCurrent(sealed: string): boolean;
}

/** The current key (seals and opens) and the previous ones (open only, during a rotation). */
export interface Keyring {
  current: Buffer;
  previous: Buffer[];
}

const VERSION = 'v2';
const LEGACY_VERSION = 'v1';

/** Public name of a key: the first 8 bytes, in hex, of HMAC-SHA256(key, "secrets-key-id"). Reveals nothing of the key. */
export function keyId(key: Buffer): string {
  return createHmac('sha256', key).update('secrets-key-id').digest().subarray(0, 8).toString('hex');
}

function decrypt(key: Buffer, iv: string, body: string, tag: string): string {
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
}

function asKeyring(keys: Buffer | Keyring): Keyring {
  const ring = Buffer.isBuffer(keys) ? { current: keys, previous: [] } : keys;
  for (const key of [ring.current, ...ring.previous]) if (key.length !== 32) throw new Error('the secrets key must be 32 bytes');
  return ring;
}

export function createSecretBox(keys: Buffer | Keyring): SecretBox {
  const ring = asKeyring(keys);
  const currentId = keyId(ring.current);
  const all = [ring.current, ...ring.previous];
  const byId = new Map(all.map((key) => [keyId(key), key]));
  return {
    seal(plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', ring.current, iv);
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return [VERSION, currentId, iv.toString('base64url'), body.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
    },
    open(sealed) {
      const parts = sealed.split('.');
      if (parts[0] === VERSION && parts.length === 5 && parts.every(Boolean)) {
        const [, kid, iv, body, tag] = parts;
        const key = byId.get(kid);
        if (!key) throw new Error(`sealed secret has key id ${kid}, which is neither SECRETS_KEY nor in SECRETS_KEY_PREVIOUS`);
        return decrypt(key, iv, body, tag);
      }
      if (parts[0] === LEGACY_VERSION && parts.length === 4 && parts.every(Boolean)) {
        const [, iv, body, tag] = parts;
        for (const key of all) {
          try {
            return decrypt(key, iv, body, tag);
          } catch {
            // GCM authentication failed: not this key.
          }
        }
        throw new Error('sealed secret (v1) opens with neither SECRETS_KEY nor any key in SECRETS_KEY_PREVIOUS');
      }
      throw new Error('sealed secret has an unknown format');
    },
    isCurrent(sealed) {
      const parts = sealed.split('.');
      return parts.length === 5 && parts[0] === VERSION && parts[1] === currentId;
    },
  };
}

/** Reads a base64 key (SECRETS_KEY) and checks its length. */
export function parseSecretsKey(text: string, name = 'SECRETS_KEY'): Buffer {
  const key = Buffer.from(text.trim(), 'base64');
  if (key.length !== 32) throw new Error(`${name} must be 32 random bytes, base64-encoded (openssl rand -base64 32)`);
  return key;
}

/** SECRETS_KEY and SECRETS_KEY_PREVIOUS (comma-separated, optional) as a keyring; the current key is not repeated. */
export function parseKeyring(current: string, previous?: string): Keyring {
  const key = parseSecretsKey(current);
  const older = (previous ?? '')
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean)
    .map((k) => parseSecretsKey(k, 'each key of SECRETS_KEY_PREVIOUS'))
    .filter((k, i, list) => !k.equals(key) && list.findIndex((o) => o.equals(k)) === i);
  return { current: key, previous: older };
}

/**
 * Local installs only: the key kept in `<dataDir>/secrets.key` (mode 0600), created on first use,
 * so the API and the worker started by `npm start` share it.
 */
export function localSecretsKey(dataDir: string): Buffer {
  const file = path.join(dataDir, 'secrets.key');
  ensurePrivateDir(dataDir);
  try {
    fs.writeFileSync(file, randomBytes(32).toString('base64'), { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return parseSecretsKey(fs.readFileSync(file, 'utf8'));
}
