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
}

export const SECRETS_FILE = 'secrets.json';

export function topologySecrets(dir: string): TopologySecrets {
  const file = path.join(dir, SECRETS_FILE);
  if (fs.existsSync(file)) return JSON.parse(fs.readFileSync(file, 'utf8')) as TopologySecrets;
  const secrets: TopologySecrets = { secrets_key: randomBytes(32).toString('base64'), partner: randomCredentials(), callback_secret: randomBytes(32).toString('base64url') };
  fs.writeFileSync(file, JSON.stringify(secrets, null, 2) + '\n', { mode: 0o600 });
  return secrets;
}
