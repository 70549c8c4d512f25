import type { Config } from '../config';
import { AGGREGATOR_WEBHOOK_ROUTE } from '../rail/aggregator/webhook-route';
import { aggregatorConfigFromEnv, aggregatorConfigSummary, type AggregatorConfig } from '../rail/aggregator/config';
import { startFakeAggregator, type FakeAggregator } from '../rail/aggregator/fake';
import type { Logger } from '../support/logger';
import { StartupError } from '../support/startup-error';

/** The aggregator of this start (issue 45): a configured one, the local fake aggregator, or none. */
export interface LiveAggregator {
  config: AggregatorConfig | undefined;
  /** AGGREGATOR_* for the worker process (empty: it reads the same environment as this one). */
  workerEnv: Record<string, string>;
  /** The fake aggregator `npm start` runs when none is configured. */
  fake?: FakeAggregator;
  stop(): Promise<void>;
}

/** FAKE_AGGREGATOR_PORT: where the local fake aggregator listens (default: a free port), for a script that drives its `/_fake/pay/{tx_ref}`. */
function fakeAggregatorPort(env: NodeJS.ProcessEnv): number | undefined {
  const port = env.FAKE_AGGREGATOR_PORT;
  if (port === undefined || port === '') return undefined;
  if (!/^[0-9]{1,5}$/.test(port) || Number(port) < 1 || Number(port) > 65535) throw new StartupError(`FAKE_AGGREGATOR_PORT must be a port number (1 to 65535), not "${port}"`);
  return Number(port);
}

/**
 * `npm start`'s aggregator (docs/aggregator.md): AGGREGATOR_BASE_URL set, that aggregator (every
 * AGGREGATOR_* setting checked here, at start); else, outside production, the fake aggregator on a
 * free port of HOST, its webhooks to the live listener's webhook route, the worker given its address
 * and keys (the card payloads' encryption key too); else none (RAIL_ROUTES then routes nothing to it).
 */
export async function startLiveAggregator(config: Config, log: Logger): Promise<LiveAggregator> {
  const configured = aggregatorConfigFromEnv(process.env);
  if (configured) {
    log.info(aggregatorConfigSummary(configured), 'aggregator: configured (AGGREGATOR_BASE_URL)');
    return { config: configured, workerEnv: {}, stop: async () => {} };
  }
  if (config.production) return { config: undefined, workerEnv: {}, stop: async () => {} };
  const fake = await startFakeAggregator({ host: config.host, port: fakeAggregatorPort(process.env), log: (message, fields) => log.info(fields ?? {}, `fake aggregator: ${message}`) });
  fake.setWebhookUrl(`http://${config.host}:${config.livePort}${AGGREGATOR_WEBHOOK_ROUTE}`);
  const aggregatorConfig = fake.config();
  log.info({ url: fake.url }, 'aggregator: the local fake aggregator (no AGGREGATOR_BASE_URL; docs/aggregator.md)');
  return {
    config: aggregatorConfig,
    fake,
    workerEnv: {
      AGGREGATOR_BASE_URL: aggregatorConfig.baseUrl,
      AGGREGATOR_SECRET_KEY: aggregatorConfig.secretKey,
      AGGREGATOR_WEBHOOK_HASH: aggregatorConfig.webhookHash,
      // Card charges (the hosted page, in the API) encrypt with it; the worker gets it as every AGGREGATOR_* setting.
      ...(aggregatorConfig.encryptionKey ? { AGGREGATOR_ENCRYPTION_KEY: aggregatorConfig.encryptionKey } : {}),
    },
    stop: () => fake.close(),
  };
}
