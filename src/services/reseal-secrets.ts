import type { Orm } from '../persistence/orm';
import { resealSecretBatch } from '../persistence/sealed-secret-store';
import type { SecretBox } from '../support/secret-box';

export interface ResealCounts {
  /** Secrets opened (with SECRETS_KEY or a key of SECRETS_KEY_PREVIOUS) and sealed again with SECRETS_KEY. */
  resealed: number;
  /** Secrets already sealed with SECRETS_KEY, left as they are. */
  already_current: number;
}

/**
 * `cli secrets reseal`: re-seals every sealed secret in the database (webhook endpoint signing
 * secrets, current and previous) with the current key, in batches of `batchSize` endpoints, each
 * batch its own transaction. Idempotent: a second run finds everything current. A secret that no
 * key of the ring opens stops the command with the endpoint's id (batches done so far stay done).
 */
export async function resealSecrets(orm: Orm, box: SecretBox, batchSize = 200): Promise<ResealCounts> {
  const counts: ResealCounts = { resealed: 0, already_current: 0 };
  const reseal = (sealed: string, endpointId: string): string | null => {
    if (box.isCurrent(sealed)) {
      counts.already_current++;
      return null;
    }
    let plaintext: string;
    try {
      plaintext = box.open(sealed);
    } catch (error) {
      throw new Error(`webhook endpoint ${endpointId}: ${(error as Error).message}`);
    }
    counts.resealed++;
    return box.seal(plaintext);
  };
  for (let after: string | null = ''; after !== null; ) after = await resealSecretBatch(orm, after, batchSize, reseal);
  return counts;
}
