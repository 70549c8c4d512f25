import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { randomCredentials } from '../rail/fake-partner/auth';

/** What the pieces share, made once per topology folder and kept in DIR/secrets.json (mode 0600); never logged. */
export interface TopologySecrets {
  /** SECRETS_KEY of the APIs, the workers and `npm run cli` while the topology is up. */
  secrets_key: string;
  /** The fake partner's credentials (the workers call it with them). */
  partner: { apiUser: string; apiKey: string; subscriptionKey: string };
  /** PARTNER_CALLBACK_SECRET: the HMAC key of the callback URLs (APIs check, workers sign). */
  callback_secret: string;
  /** The fake aggregator's secret key, webhook hash and card encryption key (issue 45; AGGREGATOR_SECRET_KEY, AGGREGATOR_WEBHOOK_HASH, AGGREGATOR_ENCRYPTION_KEY). */
  aggregator: { secretKey: string; webhookHash: string; encryptionKey?: string };
}

/** The card payloads' key: 24 characters (src/rail/aggregator/card-crypto.ts). */
const encryptionKey = () => `FLWSECK_TEST${randomBytes(6).toString('hex')}`;
const aggregatorSecrets = () => ({ secretKey: `FLWSECK_TEST-${randomBytes(16).toString('hex')}-X`, webhookHash: randomBytes(24).toString('base64url'), encryptionKey: encryptionKey() });

export const SECRETS_FILE = 'secrets.json';

export function topologySecrets(dir: string): TopologySecrets {
  const file = path.join(dir, SECRETS_FILE);
  if (fs.existsSync(file)) {
    const kept = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<TopologySecrets> & Omit<TopologySecrets, 'aggregator'>;
    if (kept.aggregator?.encryptionKey) return kept as TopologySecrets;
    // A folder made before issue 45 (or before its cards): its aggregator's secrets are added, the rest kept.
    const added: TopologySecrets = { ...kept, aggregator: kept.aggregator ? { ...kept.aggregator, encryptionKey: encryptionKey() } : aggregatorSecrets() };
    fs.writeFileSync(file, JSON.stringify(added, null, 2) + '\n', { mode: 0o600 });
    return added;
  }
  const secrets: TopologySecrets = { secrets_key: randomBytes(32).toString('base64'), partner: randomCredentials(), callback_secret: randomBytes(32).toString('base64url'), aggregator: aggregatorSecrets() };
  fs.writeFileSync(file, JSON.stringify(secrets, null, 2) + '\n', { mode: 0o600 });
  return secrets;
}
