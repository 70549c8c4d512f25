import type { PayloadCodec } from '@temporalio/common';
import type { Config } from '../config';
import { createSecretBox, localSecretsKey, parseKeyring, parseSecretsKey, type Keyring, type SecretBox } from '../support/secret-box';
import { StartupError } from '../support/startup-error';
import { createPayloadCodec } from '../temporal/payload-codec';
import { embeddedDatabaseUrl } from './defaults';

/** The throwaway key that docker-compose.yml once defaulted to; it is public, so it seals nothing outside a local run. */
export const DOCUMENTED_DEFAULT_SECRETS_KEY = 'ZGV2LW9ubHktc2VjcmV0cy1rZXktY2hhbmdlLW1lLSE=';

/**
 * A local run: NODE_ENV is not production and the database is the embedded one (DATABASE_URL unset,
 * or the embedded server's own URL, as `npm start` hands it to the worker process it forks).
 */
export function isLocalRun(config: Config): boolean {
  return !config.production && (!config.databaseUrl || config.databaseUrl === embeddedDatabaseUrl(config));
}

/**
 * SECRETS_KEY (base64) when set. A local install (embedded database) keeps a generated key in
 * DATA_DIR and hands it to its worker process. With an external database the key must be given, so
 * the API and every worker share it; the documented default key is refused outside a local run.
 */
export function resolveSecretsKey(config: Config): string {
  if (config.secretsKey) {
    let key: Buffer;
    try {
      key = parseSecretsKey(config.secretsKey);
    } catch (error) {
      throw new StartupError((error as Error).message);
    }
    if (key.equals(Buffer.from(DOCUMENTED_DEFAULT_SECRETS_KEY, 'base64')) && !isLocalRun(config)) {
      throw new StartupError(
        'SECRETS_KEY is the documented default key, which is public: set your own (openssl rand -base64 32); to move data sealed with it, put it in SECRETS_KEY_PREVIOUS and run `cli secrets reseal`',
      );
    }
    return config.secretsKey;
  }
  if (config.databaseUrl && !isLocalRun(config)) throw new StartupError('SECRETS_KEY is required with DATABASE_URL (32 random bytes, base64: openssl rand -base64 32)');
  if (config.production) throw new StartupError('SECRETS_KEY is required with NODE_ENV=production (32 random bytes, base64: openssl rand -base64 32)');
  return localSecretsKey(config.dataDir).toString('base64');
}

/** SECRETS_KEY (current) and SECRETS_KEY_PREVIOUS (opened during a rotation). */
export function resolveKeyring(config: Config): Keyring {
  const current = resolveSecretsKey(config);
  try {
    return parseKeyring(current, config.secretsKeyPrevious);
  } catch (error) {
    throw new StartupError((error as Error).message);
  }
}

/** What a forked worker process needs to share the keyring (runtime/worker-process.ts). */
export function keyringEnv(config: Config): Record<string, string> {
  return { SECRETS_KEY: resolveSecretsKey(config), ...(config.secretsKeyPrevious ? { SECRETS_KEY_PREVIOUS: config.secretsKeyPrevious } : {}) };
}

/** The box that seals webhook signing secrets at rest. */
export function secretBoxFor(config: Config): SecretBox {
  return createSecretBox(resolveKeyring(config));
}

/** The codec that encrypts workflow payloads (temporal/payload-codec.ts), from the same keyring. */
export function payloadCodecFor(config: Config): PayloadCodec {
  return createPayloadCodec(resolveKeyring(config));
}
