import { createHmac } from 'node:crypto';
import type { Config } from '../config';
import type { LiveRail } from '../domain/live-rail';
import { startFakePartner, type FakePartner } from '../rail/fake-partner';
import { loadPartnerConfig, partnerConfigSummary, type PartnerConfig } from '../rail/partner-config';
import type { Logger } from '../support/logger';
import { StartupError } from '../support/startup-error';

/** The live partner of this start: a configured one, the local fake partner, or none. */
export interface LivePartner {
  rail: LiveRail;
  config: PartnerConfig | undefined;
  /** PARTNER_* settings for the worker process (empty: it reads the same environment as this one). */
  workerEnv: Record<string, string>;
  /** The fake partner `npm start` runs when none is configured. */
  fake?: FakePartner;
  stop(): Promise<void>;
}

/**
 * The local callback secret when the fake partner stands in: derived from SECRETS_KEY, so it is the
 * same after a restart (callback URLs handed out before it stay valid) and never written anywhere.
 */
function localCallbackSecret(secretsKey: string): string {
  return createHmac('sha256', Buffer.from(secretsKey, 'base64')).update('payments: local fake partner callback secret').digest('base64url');
}

/** The fake partner's timing knobs (FAKE_PARTNER_*, milliseconds; docs/partner-rail.md): try late answers locally. */
const FAKE_PARTNER_TIMING = {
  FAKE_PARTNER_APPROVE_AFTER_MS: 'approveAfterMs',
  FAKE_PARTNER_LATE_SUCCESS_MS: 'lateSuccessMs',
  FAKE_PARTNER_LATE_PAYOUT_SUCCESS_MS: 'latePayoutSuccessMs',
} as const;

export function fakePartnerTiming(env: NodeJS.ProcessEnv): Partial<Record<(typeof FAKE_PARTNER_TIMING)[keyof typeof FAKE_PARTNER_TIMING], number>> {
  const timing: Partial<Record<(typeof FAKE_PARTNER_TIMING)[keyof typeof FAKE_PARTNER_TIMING], number>> = {};
  for (const [name, option] of Object.entries(FAKE_PARTNER_TIMING)) {
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    if (!/^[0-9]{1,9}$/.test(raw)) throw new StartupError(`${name} must be a whole number of milliseconds (up to 999999999), not "${raw}"`);
    timing[option] = Number(raw);
  }
  return timing;
}

/**
 * FAKE_PARTNER_PORT, and FAKE_PARTNER_API_USER, FAKE_PARTNER_API_KEY, FAKE_PARTNER_SUBSCRIPTION_KEY
 * (all three or none): where the fake partner listens and the credentials it takes, for a script
 * or test that drives its controls (`/{product}/_fake/…`) or reads its statement. Default: a free
 * port and random credentials.
 */
export function fakePartnerAccess(env: NodeJS.ProcessEnv): { port?: number; credentials?: { apiUser: string; apiKey: string; subscriptionKey: string } } {
  const access: { port?: number; credentials?: { apiUser: string; apiKey: string; subscriptionKey: string } } = {};
  const port = env.FAKE_PARTNER_PORT;
  if (port !== undefined && port !== '') {
    if (!/^[0-9]{1,5}$/.test(port) || Number(port) < 1 || Number(port) > 65535) throw new StartupError(`FAKE_PARTNER_PORT must be a port number (1 to 65535), not "${port}"`);
    access.port = Number(port);
  }
  const names = ['FAKE_PARTNER_API_USER', 'FAKE_PARTNER_API_KEY', 'FAKE_PARTNER_SUBSCRIPTION_KEY'] as const;
  const given = names.filter((name) => (env[name] ?? '') !== '');
  if (given.length > 0 && given.length < names.length) throw new StartupError(`set all of ${names.join(', ')} or none (missing: ${names.filter((n) => !given.includes(n)).join(', ')})`);
  if (given.length === names.length) access.credentials = { apiUser: env.FAKE_PARTNER_API_USER!, apiKey: env.FAKE_PARTNER_API_KEY!, subscriptionKey: env.FAKE_PARTNER_SUBSCRIPTION_KEY! };
  return access;
}

/**
 * `npm start`'s live rail (issue 20, docs/partner-rail.md):
 *
 * - PARTNER_BASE_URL set: that partner (every PARTNER_* setting checked here, at start);
 * - else, outside production: the fake partner, on a free port of HOST, its callbacks to the live
 *   listener; the worker process gets its address and credentials;
 * - else (NODE_ENV=production and no partner): no live rail, live money movement answers 503
 *   `live_unavailable` and the settlement run skips live balances.
 */
export async function startLivePartner(config: Config, secretsKey: string, log: Logger): Promise<LivePartner> {
  const configured = loadPartnerConfig(process.env);
  if (configured) {
    log.info(partnerConfigSummary(configured), 'live rail: partner configured (PARTNER_BASE_URL)');
    return { rail: 'partner', config: configured, workerEnv: {}, stop: async () => {} };
  }
  if (config.production) {
    log.warn('live rail: none (PARTNER_BASE_URL unset with NODE_ENV=production): live charges and payouts answer 503 live_unavailable');
    return { rail: 'none', config: undefined, workerEnv: {}, stop: async () => {} };
  }
  const fake = await startFakePartner({ host: config.host, ...fakePartnerTiming(process.env), ...fakePartnerAccess(process.env), log: (message, fields) => log.info(fields ?? {}, `fake partner: ${message}`) });
  const callbackBaseUrl = `http://${config.host}:${config.livePort}`;
  const partnerConfig = fake.partnerConfig({ callbackBaseUrl, callbackSecret: localCallbackSecret(secretsKey) });
  log.info({ url: fake.url }, 'live rail: the local fake partner (no PARTNER_BASE_URL; docs/partner-rail.md)');
  return {
    rail: 'partner',
    config: partnerConfig,
    fake,
    workerEnv: {
      PARTNER_BASE_URL: fake.url,
      PARTNER_API_USER: fake.config.apiUser,
      PARTNER_API_KEY: fake.config.apiKey,
      PARTNER_SUBSCRIPTION_KEY: fake.config.subscriptionKey,
      PARTNER_TARGET_ENVIRONMENT: fake.config.targetEnvironment,
      PARTNER_CALLBACK_BASE_URL: callbackBaseUrl,
      PARTNER_CALLBACK_SECRET: partnerConfig.callbackSecret,
    },
    stop: () => fake.close(),
  };
}
