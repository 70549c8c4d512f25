import { loadConfig } from '../src/config';
import { openOrm } from '../src/persistence/orm';
import { createLogger } from '../src/support/logger';
import { embeddedDatabaseUrl } from '../src/runtime/defaults';
import { secretBoxFor } from '../src/runtime/secrets-key';
import { connectTemporal } from '../src/temporal/connection';
import { startOutboxRelay } from '../src/webhooks/outbox-relay';
import { createPaymentsWorker, installRuntime } from './create-worker';

/**
 * Worker process entry point: the payments worker and the webhook outbox relay. Reads DATABASE_URL,
 * TEMPORAL_ADDRESS and SECRETS_KEY (defaults: the embedded PostgreSQL and dev server that `npm start`
 * runs). SIGINT/SIGTERM drain it and exit.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger(config.logLevel, 'worker');
  installRuntime(undefined, config.workerMetricsPort > 0 ? `${config.host}:${config.workerMetricsPort}` : undefined);
  const orm = await openOrm(config.databaseUrl ?? embeddedDatabaseUrl(config));
  const address = config.temporalAddress ?? '127.0.0.1:7233';
  const { worker, connection } = await createPaymentsWorker({
    orm,
    address,
    namespace: config.temporalNamespace,
    taskQueue: config.taskQueue,
    secretBox: secretBoxFor(config),
    webhooks: config.webhooks,
  });
  const temporal = await connectTemporal(address, config.temporalNamespace);
  const relay = startOutboxRelay(
    { orm, client: temporal.client, taskQueue: config.taskQueue, retryScheduleMs: config.webhooks.retryScheduleMs, log },
    config.webhooks.outboxPollMs,
  );
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => worker.shutdown());
  log.info({ taskQueue: config.taskQueue }, 'worker running');
  process.send?.('ready');
  await worker.run();
  await relay.stop();
  await temporal.connection.close();
  await connection.close();
  await orm.close();
  log.info('worker stopped');
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
