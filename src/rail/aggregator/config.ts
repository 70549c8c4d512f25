import { RAIL_CALL_TIMEOUT_MS } from '../../domain/live-rail';
import { StartupError } from '../../support/startup-error';
import { ENCRYPTION_KEY_LENGTH } from './card-crypto';

/**
 * Where the aggregator is and how we talk to it (docs/aggregator.md, "Configuration"), from the
 * AGGREGATOR_* variables. None of them set: no aggregator is configured (undefined). Some but not
 * AGGREGATOR_BASE_URL, or the URL without the secrets: a StartupError naming what is missing.
 */
export interface AggregatorConfig {
  /** AGGREGATOR_BASE_URL, without a trailing slash (`https://api.flutterwave.com`; the paths add `/v3/…`); may carry a path prefix. */
  baseUrl: string;
  /** AGGREGATOR_SECRET_KEY: the `Authorization: Bearer` key of every call. Secret. */
  secretKey: string;
  /** AGGREGATOR_WEBHOOK_HASH: the secret hash the aggregator puts in each webhook's `verif-hash` header (configured on both sides). Secret. */
  webhookHash: string;
  /** AGGREGATOR_TIMEOUT_MS: the longest wait of one HTTP request, connection to last byte (default 10000, at most MAX_AGGREGATOR_TIMEOUT_MS). */
  timeoutMs: number;
  /**
   * AGGREGATOR_ENCRYPTION_KEY: the 24-character key a card charge's payload is encrypted with (triple
   * DES, card-crypto.ts; Flutterwave's "encryption key"). Optional: without it card charges are
   * refused before any call (RailMisconfigured). Secret.
   */
  encryptionKey?: string;
}

export const AGGREGATOR_VARIABLES = ['AGGREGATOR_BASE_URL', 'AGGREGATOR_SECRET_KEY', 'AGGREGATOR_WEBHOOK_HASH', 'AGGREGATOR_TIMEOUT_MS', 'AGGREGATOR_ENCRYPTION_KEY'] as const;

export const DEFAULT_AGGREGATOR_TIMEOUT_MS = 10_000;
export const MIN_AGGREGATOR_TIMEOUT_MS = 100;
/** What a rail call's activity may take around the aggregator's requests (its database work), as for the MoMo partner. */
export const AGGREGATOR_CALL_MARGIN_MS = 5_000;
/**
 * The most HTTP requests one `submit` or `status` makes, each bounded by AGGREGATOR_TIMEOUT_MS
 * (src/rail/aggregator/adapter.ts): a refund verifies its charge, posts the refund, and on an
 * answer to be checked (`ask_status`) asks the refund's status. No token: the key is static.
 */
export const AGGREGATOR_REQUESTS_PER_CALL = 3;
/** The longest AGGREGATOR_TIMEOUT_MS whose worst case fits a rail call's activity: (60000 − 5000) / 3 = 18333 ms. */
export const MAX_AGGREGATOR_TIMEOUT_MS = Math.floor((RAIL_CALL_TIMEOUT_MS - AGGREGATOR_CALL_MARGIN_MS) / AGGREGATOR_REQUESTS_PER_CALL);

/** The shortest secret key and webhook hash we take: a key or hash shorter than this is a typo or a placeholder. */
export const MIN_SECRET_KEY_LENGTH = 16;
/** The webhook hash is a webhook's only credential (sent as is, no signature): at least 32 characters, as PARTNER_CALLBACK_SECRET. */
export const MIN_WEBHOOK_HASH_LENGTH = 32;

function value(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const raw = env[name]?.trim();
  return raw ? raw : undefined;
}

function baseUrl(env: NodeJS.ProcessEnv): string {
  const raw = value(env, 'AGGREGATOR_BASE_URL') ?? '';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new StartupError(`AGGREGATOR_BASE_URL must be an http(s) URL such as https://api.flutterwave.com, got "${raw}"`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new StartupError(`AGGREGATOR_BASE_URL must be an http(s) URL, got "${raw}"`);
  if (url.search || url.hash) throw new StartupError(`AGGREGATOR_BASE_URL must not carry a query or a fragment, got "${raw}"`);
  if (url.username || url.password) throw new StartupError('AGGREGATOR_BASE_URL must not carry credentials (the key is AGGREGATOR_SECRET_KEY)');
  if (env.NODE_ENV === 'production' && url.protocol !== 'https:') {
    throw new StartupError(`AGGREGATOR_BASE_URL must be an https:// URL with NODE_ENV=production (every call carries the secret key), got "${raw}"`);
  }
  return url.toString().replace(/\/+$/, '');
}

function secret(env: NodeJS.ProcessEnv, name: 'AGGREGATOR_SECRET_KEY' | 'AGGREGATOR_WEBHOOK_HASH', minLength: number, what: string): string {
  const found = value(env, name);
  if (!found) throw new StartupError(`${name} must be set when AGGREGATOR_BASE_URL is: ${what}`);
  if (found.length < minLength) throw new StartupError(`${name} must be at least ${minLength} characters (${what}), got ${found.length} characters`);
  if (/\s/.test(found)) throw new StartupError(`${name} must not contain spaces (${what})`);
  return found;
}

/** AGGREGATOR_TIMEOUT_MS, refused unless its worst case (AGGREGATOR_REQUESTS_PER_CALL requests and the margin) fits RAIL_CALL_TIMEOUT_MS. */
function timeoutMs(env: NodeJS.ProcessEnv): number {
  const raw = value(env, 'AGGREGATOR_TIMEOUT_MS');
  if (!raw) return DEFAULT_AGGREGATOR_TIMEOUT_MS;
  if (!/^[0-9]{1,7}$/.test(raw) || Number(raw) < MIN_AGGREGATOR_TIMEOUT_MS) {
    throw new StartupError(`AGGREGATOR_TIMEOUT_MS must be a whole number of milliseconds from ${MIN_AGGREGATOR_TIMEOUT_MS} to ${MAX_AGGREGATOR_TIMEOUT_MS}, got "${raw}"`);
  }
  const ms = Number(raw);
  if (ms > MAX_AGGREGATOR_TIMEOUT_MS) {
    const worst = AGGREGATOR_REQUESTS_PER_CALL * ms + AGGREGATOR_CALL_MARGIN_MS;
    throw new StartupError(
      `AGGREGATOR_TIMEOUT_MS=${ms} does not fit a rail call's ${RAIL_CALL_TIMEOUT_MS} ms activity budget: one call to the aggregator may wait for ` +
        `${AGGREGATOR_REQUESTS_PER_CALL} requests (a refund: the charge's verify, the refund, and its status), ` +
        `${AGGREGATOR_REQUESTS_PER_CALL} × ${ms} + ${AGGREGATOR_CALL_MARGIN_MS} ms = ${worst} ms; set at most ${MAX_AGGREGATOR_TIMEOUT_MS}`,
    );
  }
  return ms;
}

/** AGGREGATOR_ENCRYPTION_KEY when set: exactly 24 characters (ASCII, no spaces), not the secret key. */
function encryptionKey(env: NodeJS.ProcessEnv, secretKey: string): string | undefined {
  const found = value(env, 'AGGREGATOR_ENCRYPTION_KEY');
  if (found === undefined) return undefined;
  const what = "the card payload's encryption key from the aggregator's dashboard (API settings: encryption key)";
  if (!/^[\x21-\x7e]*$/.test(found)) throw new StartupError(`AGGREGATOR_ENCRYPTION_KEY must be printable ASCII without spaces (${what})`);
  if (found.length !== ENCRYPTION_KEY_LENGTH) throw new StartupError(`AGGREGATOR_ENCRYPTION_KEY must be exactly ${ENCRYPTION_KEY_LENGTH} characters (${what}), got ${found.length} characters`);
  if (found === secretKey) throw new StartupError('AGGREGATOR_ENCRYPTION_KEY must not be the secret key: they are two different keys of the account');
  return found;
}

/**
 * The aggregator's configuration, or undefined when no AGGREGATOR_* variable is set (no aggregator).
 * A partial configuration (some set, AGGREGATOR_BASE_URL or a secret missing) or a bad value throws a
 * StartupError naming the variable; no message ever repeats a secret.
 */
export function aggregatorConfigFromEnv(env: NodeJS.ProcessEnv = process.env): AggregatorConfig | undefined {
  const set = AGGREGATOR_VARIABLES.filter((name) => value(env, name) !== undefined);
  if (set.length === 0) return undefined;
  if (!set.includes('AGGREGATOR_BASE_URL')) {
    throw new StartupError(`${set.join(', ')} ${set.length === 1 ? 'is' : 'are'} set but AGGREGATOR_BASE_URL is not: set it to the aggregator's API base URL (e.g. https://api.flutterwave.com), or unset the AGGREGATOR_* variables for no aggregator`);
  }
  const config: AggregatorConfig = {
    baseUrl: baseUrl(env),
    secretKey: secret(env, 'AGGREGATOR_SECRET_KEY', MIN_SECRET_KEY_LENGTH, "the aggregator's secret API key"),
    webhookHash: secret(env, 'AGGREGATOR_WEBHOOK_HASH', MIN_WEBHOOK_HASH_LENGTH, "the webhook secret hash set in the aggregator's dashboard, e.g. `openssl rand -base64 33`"),
    timeoutMs: timeoutMs(env),
  };
  if (config.webhookHash === config.secretKey) throw new StartupError('AGGREGATOR_WEBHOOK_HASH must not be the secret key: every webhook carries it in clear');
  const key = encryptionKey(env, config.secretKey);
  return key === undefined ? config : { ...config, encryptionKey: key };
}

/** What may be logged of an aggregator configuration: no key, no hash; the encryption key as `set` or `unset` only. */
export function aggregatorConfigSummary(config: AggregatorConfig): Record<string, unknown> {
  return { baseUrl: config.baseUrl, timeoutMs: config.timeoutMs, encryptionKey: config.encryptionKey ? 'set' : 'unset' };
}
