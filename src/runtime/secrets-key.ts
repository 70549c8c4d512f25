import type { Config } from '../config';
import { createSecretBox, localSecretsKey, parseSecretsKey, type SecretBox } from '../support/secret-box';

/**
 * SECRETS_KEY (base64) when set. A local install (embedded database) keeps a generated key in
 * DATA_DIR and hands it to its worker process. With an external database the key must be given, so
 * the API and every worker share it.
 */
export function resolveSecretsKey(config: Config): string {
  if (config.secretsKey) return config.secretsKey;
  if (config.databaseUrl) throw new Error('SECRETS_KEY is required with DATABASE_URL (32 random bytes, base64: openssl rand -base64 32)');
  return localSecretsKey(config.dataDir).toString('base64');
}

/** The box that seals webhook signing secrets at rest. */
export function secretBoxFor(config: Config): SecretBox {
  return createSecretBox(parseSecretsKey(resolveSecretsKey(config)));
}
