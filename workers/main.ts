import { loadConfig } from '../src/config';
import { openOrm } from '../src/persistence/orm';
import { createLogger } from '../src/support/logger';
import { embeddedDatabaseUrl } from '../src/runtime/defaults';
import { createPaymentsWorker, installRuntime } from './create-worker';

/**
 * Worker process entry point. Reads DATABASE_URL and TEMPORAL_ADDRESS (defaults: the embedded
 * PostgreSQL and dev server that `npm start` runs). SIGINT/SIGTERM drain it and exit.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger(config.logLevel, 'worker');
  installRuntime(undefined, config.workerMetricsPort > 0 ? `${config.host}:${config.workerMetricsPort}` : undefined);
  const orm = await openOrm(config.databaseUrl ?? embeddedDatabaseUrl(config));
  const { worker, connection } = await createPaymentsWorker({
    orm,
    address: config.temporalAddress ?? '127.0.0.1:7233',
    namespace: config.temporalNamespace,
    taskQueue: config.taskQueue,
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => worker.shutdown());
  log.info({ taskQueue: config.taskQueue }, 'worker running');
  process.send?.('ready');
  await worker.run();
  await connection.close();
  await orm.close();
  log.info('worker stopped');
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
