import { RAIL_CALL_TIMEOUT_MS } from '../domain/live-rail';
import { StartupError } from '../support/startup-error';
import type { RailProduct } from './partner-rail';

/**
 * Where the live mobile-money partner is and how we talk to it (docs/partner-rail.md,
 * "Configuration"), read from the PARTNER_* variables. No PARTNER_BASE_URL: no partner is
 * configured (`npm start` then plays one with the fake partner, src/rail/fake-partner/).
 */

/** What one product (collection or disbursement) signs in with: MoMo issues an API user and a subscription key per product. */
export interface PartnerCredentials {
  /** PARTNER_API_USER: the API user id (a UUID at MoMo). Not a secret, but sent only in Basic auth. */
  apiUser: string;
  /** PARTNER_API_KEY: secret. */
  apiKey: string;
  /** PARTNER_SUBSCRIPTION_KEY: the `Ocp-Apim-Subscription-Key` of the product. Secret. */
  subscriptionKey: string;
}

export interface PartnerConfig {
  /** PARTNER_BASE_URL, without a trailing slash (`https://proxy.momoapi.mtn.com`); may carry a path prefix. */
  baseUrl: string;
  /** Per product; PARTNER_COLLECTION_* and PARTNER_DISBURSEMENT_* override the shared PARTNER_* values. */
  credentials: Record<RailProduct, PartnerCredentials>;
  /** PARTNER_TARGET_ENVIRONMENT, the `X-Target-Environment` header: `sandbox` (default) or the market's (`mtnghana`, `mtnuganda`, …). */
  targetEnvironment: string;
  /** PARTNER_CALLBACK_BASE_URL, without a trailing slash: where the partner reaches our callback route. */
  callbackBaseUrl: string;
  /** PARTNER_CALLBACK_SECRET: the HMAC key of the callback URLs' tokens (src/rail/momo-callback.ts). Secret. */
  callbackSecret: string;
  /** PARTNER_TIMEOUT_MS: the longest wait of one HTTP request to the partner, connection to last byte (default 5000, at most MAX_PARTNER_TIMEOUT_MS). */
  timeoutMs: number;
}

export const DEFAULT_TARGET_ENVIRONMENT = 'sandbox';
export const DEFAULT_PARTNER_TIMEOUT_MS = 5_000;

/**
 * One rail call's activity budget: the `startToCloseTimeout` of the activities that call the
 * partner (workflows/partner-answer.ts uses RAIL_CALL_TIMEOUT_MS, this value). A call that outlives it is cut off and retried by Temporal
 * while the partner may still be answering the first, so PARTNER_TIMEOUT_MS must fit it.
 */
export const RAIL_CALL_BUDGET_MS = RAIL_CALL_TIMEOUT_MS;
/** What the activity itself may take around the partner's requests (database reads and writes). */
export const RAIL_CALL_MARGIN_MS = 5_000;
/**
 * The most HTTP requests one `submit` or `status` makes, each bounded by PARTNER_TIMEOUT_MS
 * (src/rail/momo-adapter.ts `authorized`, src/rail/momo-token.ts): a token, the call, and after a
 * 401 a new token and the call once more.
 */
export const PARTNER_REQUESTS_PER_CALL = 4;
/** The longest PARTNER_TIMEOUT_MS whose worst case fits the budget: (60000 − 5000) / 4 = 13750 ms. */
export const MAX_PARTNER_TIMEOUT_MS = Math.floor((RAIL_CALL_BUDGET_MS - RAIL_CALL_MARGIN_MS) / PARTNER_REQUESTS_PER_CALL);
export const MIN_PARTNER_TIMEOUT_MS = 100;

/** Variables that once were read and no longer are, refused at start so that nobody relies on them: why. */
export const REMOVED_PARTNER_VARIABLES: Readonly<Record<string, string>> = {
  PARTNER_POLL_INTERVAL:
    'PARTNER_POLL_INTERVAL was removed: it never had an effect. The status polls follow a schedule fixed in the workflow code ' +
    '(src/domain/live-rail.ts), which must be deterministic for Temporal to replay it; unset PARTNER_POLL_INTERVAL',
};
/** The shortest PARTNER_CALLBACK_SECRET: 32 characters (an HMAC-SHA256 key of at least 128 bits of a random text). */
export const MIN_CALLBACK_SECRET_LENGTH = 32;

const PRODUCT_PREFIX: Record<RailProduct, string> = { collection: 'PARTNER_COLLECTION_', disbursement: 'PARTNER_DISBURSEMENT_' };

function value(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const raw = env[name]?.trim();
  return raw ? raw : undefined;
}

/** An http(s) URL without query or fragment, returned without its trailing slash. */
function baseUrl(env: NodeJS.ProcessEnv, name: string, what: string): string {
  const raw = value(env, name);
  if (!raw) throw new StartupError(`${name} must be set when PARTNER_BASE_URL is: ${what}`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new StartupError(`${name} must be an http(s) URL such as https://partner.example.com, got "${raw}"`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new StartupError(`${name} must be an http(s) URL, got "${raw}"`);
  if (url.search || url.hash) throw new StartupError(`${name} must not carry a query or a fragment, got "${raw}"`);
  if (url.username || url.password) throw new StartupError(`${name} must not carry credentials (use PARTNER_API_USER and PARTNER_API_KEY)`);
  return url.toString().replace(/\/+$/, '');
}

function credentials(env: NodeJS.ProcessEnv, product: RailProduct): PartnerCredentials {
  const pick = (suffix: string): string => {
    const specific = `${PRODUCT_PREFIX[product]}${suffix}`;
    const shared = `PARTNER_${suffix}`;
    const found = value(env, specific) ?? value(env, shared);
    if (!found) throw new StartupError(`${shared} (or ${specific}) must be set when PARTNER_BASE_URL is: the ${product} product's ${suffix.toLowerCase().replace(/_/g, ' ')} issued by the partner`);
    return found;
  };
  return { apiUser: pick('API_USER'), apiKey: pick('API_KEY'), subscriptionKey: pick('SUBSCRIPTION_KEY') };
}

/** PARTNER_TIMEOUT_MS, refused unless its worst case (PARTNER_REQUESTS_PER_CALL requests) fits RAIL_CALL_BUDGET_MS. */
function timeoutMs(env: NodeJS.ProcessEnv): number {
  const raw = value(env, 'PARTNER_TIMEOUT_MS');
  if (!raw) return DEFAULT_PARTNER_TIMEOUT_MS;
  if (!/^[0-9]{1,7}$/.test(raw) || Number(raw) < MIN_PARTNER_TIMEOUT_MS) {
    throw new StartupError(`PARTNER_TIMEOUT_MS must be a whole number of milliseconds from ${MIN_PARTNER_TIMEOUT_MS} to ${MAX_PARTNER_TIMEOUT_MS}, got "${raw}"`);
  }
  const ms = Number(raw);
  if (ms > MAX_PARTNER_TIMEOUT_MS) {
    const worst = PARTNER_REQUESTS_PER_CALL * ms + RAIL_CALL_MARGIN_MS;
    throw new StartupError(
      `PARTNER_TIMEOUT_MS=${ms} does not fit a rail call's ${RAIL_CALL_BUDGET_MS} ms activity budget: one call to the partner may wait for ` +
        `${PARTNER_REQUESTS_PER_CALL} requests (a token, the call, and after a 401 a new token and the call again), ` +
        `${PARTNER_REQUESTS_PER_CALL} × ${ms} + ${RAIL_CALL_MARGIN_MS} ms = ${worst} ms; set at most ${MAX_PARTNER_TIMEOUT_MS}`,
    );
  }
  return ms;
}

/**
 * PARTNER_CALLBACK_BASE_URL; with NODE_ENV=production only an `https:` one (issue 30): the callback
 * URLs carry their token, the only credential of a callback, which must not cross the network in clear.
 */
function callbackBaseUrl(env: NodeJS.ProcessEnv): string {
  const url = baseUrl(env, 'PARTNER_CALLBACK_BASE_URL', 'the public base URL at which the partner reaches our callback route, e.g. https://pay.example.com');
  if (env.NODE_ENV === 'production' && !url.startsWith('https:')) {
    throw new StartupError(
      `PARTNER_CALLBACK_BASE_URL must be an https:// URL with NODE_ENV=production (the callback URLs carry their token, the partner's only credential), got "${url}"`,
    );
  }
  return url;
}

/** A removed variable that is still set: a StartupError saying so. */
function refuseRemoved(env: NodeJS.ProcessEnv): void {
  for (const [name, why] of Object.entries(REMOVED_PARTNER_VARIABLES)) {
    if (value(env, name) !== undefined) throw new StartupError(why);
  }
}

/**
 * The partner's configuration, or undefined when PARTNER_BASE_URL is unset (no partner configured).
 * A bad or missing value throws a StartupError naming the variable; no message ever repeats a secret.
 * A removed variable (REMOVED_PARTNER_VARIABLES) is refused even without PARTNER_BASE_URL.
 */
export function loadPartnerConfig(env: NodeJS.ProcessEnv = process.env): PartnerConfig | undefined {
  refuseRemoved(env);
  if (!value(env, 'PARTNER_BASE_URL')) return undefined;
  const partnerBase = baseUrl(env, 'PARTNER_BASE_URL', 'the partner API base URL');
  const targetEnvironment = value(env, 'PARTNER_TARGET_ENVIRONMENT') ?? DEFAULT_TARGET_ENVIRONMENT;
  if (!/^[a-z0-9][a-z0-9-]{0,63}$/i.test(targetEnvironment)) {
    throw new StartupError(`PARTNER_TARGET_ENVIRONMENT must be the partner's environment name such as "sandbox" or "mtnghana", got "${targetEnvironment}"`);
  }
  const callbackSecret = value(env, 'PARTNER_CALLBACK_SECRET');
  if (!callbackSecret || callbackSecret.length < MIN_CALLBACK_SECRET_LENGTH) {
    throw new StartupError(
      `PARTNER_CALLBACK_SECRET must be set to a random text of at least ${MIN_CALLBACK_SECRET_LENGTH} characters when PARTNER_BASE_URL is ` +
        `(it authenticates the partner's callbacks; e.g. \`openssl rand -base64 33\`)${callbackSecret ? `, got ${callbackSecret.length} characters` : ''}`,
    );
  }
  return {
    baseUrl: partnerBase,
    credentials: { collection: credentials(env, 'collection'), disbursement: credentials(env, 'disbursement') },
    targetEnvironment,
    callbackBaseUrl: callbackBaseUrl(env),
    callbackSecret,
    timeoutMs: timeoutMs(env),
  };
}

/** What may be logged of a partner configuration: no key, no secret. */
export function partnerConfigSummary(config: PartnerConfig): Record<string, unknown> {
  return {
    baseUrl: config.baseUrl,
    targetEnvironment: config.targetEnvironment,
    apiUsers: { collection: config.credentials.collection.apiUser, disbursement: config.credentials.disbursement.apiUser },
    callbackBaseUrl: config.callbackBaseUrl,
    timeoutMs: config.timeoutMs,
  };
}
