import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Encrypts webhook signing secrets at rest (AES-256-GCM). Signing needs the secret itself, so it
 * cannot be hashed like an API key; the database alone does not reveal it.
 */
export interface SecretBox {
  seal(plaintext: string): string;
  open(sealed: string): string;
}

const VERSION = 'v1';

export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new Error('the secrets key must be 32 bytes');
  return {
    seal(plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return [VERSION, iv.toString('base64url'), body.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
    },
    open(sealed) {
      const [version, iv, body, tag] = sealed.split('.');
      if (version !== VERSION || !iv || !body || !tag) throw new Error('sealed secret has an unknown format');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}

/** Reads a base64 key (SECRETS_KEY) and checks its length. */
export function parseSecretsKey(text: string): Buffer {
  const key = Buffer.from(text.trim(), 'base64');
  if (key.length !== 32) throw new Error('SECRETS_KEY must be 32 random bytes, base64-encoded (openssl rand -base64 32)');
  return key;
}

/**
 * Local installs only: the key kept in `<dataDir>/secrets.key` (mode 0600), created on first use,
 * so the API and the worker started by `npm start` share it.
 */
export function localSecretsKey(dataDir: string): Buffer {
  const file = path.join(dataDir, 'secrets.key');
  fs.mkdirSync(dataDir, { recursive: true });
  try {
    fs.writeFileSync(file, randomBytes(32).toString('base64'), { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return parseSecretsKey(fs.readFileSync(file, 'utf8'));
}
