import { createHmac } from 'node:crypto';
import type { Config } from '../config';
import type { LiveRail } from '../domain/live-rail';
import { startFakePartner, type FakePartner } from '../rail/fake-partner';
import { loadPartnerConfig, partnerConfigSummary, type PartnerConfig } from '../rail/partner-config';
import type { Logger } from '../support/logger';

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
  const fake = await startFakePartner({ host: config.host, log: (message, fields) => log.info(fields ?? {}, `fake partner: ${message}`) });
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
