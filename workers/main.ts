// First: on a Node.js older than 24, one clear line and exit before anything else loads.
import '../src/support/node-version';
import { applyWorkerNice } from '../src/runtime/worker-nice';
import { Runtime } from '@temporalio/worker';
import { loadConfig } from '../src/config';
import { openOrm, WORKER_DB_TIMEOUTS } from '../src/persistence/orm';
import { createLogger } from '../src/support/logger';
import { embeddedDatabaseUrl } from '../src/runtime/defaults';
import { payloadCodecFor, secretBoxFor } from '../src/runtime/secrets-key';
import { requireProductionSettings } from '../src/runtime/production-settings';
import { StartupError } from '../src/support/startup-error';
import { reconcilerSettings, startChargeReconciler } from '../src/runtime/charge-reconciler';
import { startChargeStartRelay } from '../src/runtime/charge-start-relay';
import { startPayoutStartRelay } from '../src/runtime/payout-start-relay';
import { startRefundStartRelay } from '../src/runtime/refund-start-relay';
import { startDisputeStartRelay } from '../src/runtime/dispute-start-relay';
import { connectTemporal } from '../src/temporal/connection';
import { ensureSettlementSchedule } from '../src/temporal/settlement-schedule';
import { ensureStatementImportSchedule } from '../src/temporal/statement-import-schedule';
import { ensureRetentionSchedule } from '../src/temporal/retention-schedule';
import { startOutboxRelay } from '../src/webhooks/outbox-relay';
import { describeNotificationTransports, loadNotificationConfig } from '../src/notifications/notification-config';
import { startNotificationRelay } from '../src/notifications/notification-relay';
import { sealSettlementAccounts } from '../src/services/reseal-secrets';
import { loadPartnerConfig } from '../src/rail/partner-config';
import { aggregatorConfigFromEnv } from '../src/rail/aggregator/config';
import { liveRailsOf } from '../src/runtime/live-rails';
import { loadRailRoutes } from '../src/runtime/rail-routes-config';
import { breakerSettingsFromEnv } from '../src/runtime/partner-health-settings';
import { startPartnerBreakerMonitor } from '../src/runtime/partner-breaker-monitor';
import { partnerGauges } from '../src/runtime/partner-gauges';
import { createPaymentsWorker } from './create-worker';
import { installRuntime } from './workflow-bundle';
import { freePort } from '../src/support/free-port';
import { listening, serveUpstreamMetrics } from '../src/support/metrics-listener';

/**
 * Worker process entry point: the payments worker (a Worker per task queue: `<TEMPORAL_TASK_QUEUE>-sandbox`,
 * `-live` and the legacy `<TEMPORAL_TASK_QUEUE>`, see workers/create-worker.ts), the webhook outbox relay, the charge-start relay
 * (src/runtime/charge-start-relay.ts) and the charge reconciler
 * (RECONCILE_INTERVAL, default 60 s; gauge payments_overdue_charges{workflow}). Reads DATABASE_URL,
 * TEMPORAL_ADDRESS and SECRETS_KEY (defaults: the embedded PostgreSQL and dev server that `npm start`
 * runs). SIGINT/SIGTERM drain it and exit.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  applyWorkerNice(); // WORKER_NICE: before the Workers make their threads (they inherit it)
  requireProductionSettings(config);
  // Key problems (missing, the documented default) stop the worker before it connects anywhere.
  const secretBox = secretBoxFor(config);
  const payloadCodec = payloadCodecFor(config);
  // SMTP_URL, SMS_PROVIDER_URL and the rest: a bad value stops the worker here, with one line naming it.
  const notifications = loadNotificationConfig();
  const log = createLogger(config.logLevel, 'worker');
  // The live partners (PARTNER_*, AGGREGATOR_*; `npm start` passes its fakes'): a bad value stops the worker here.
  const partner = loadPartnerConfig(process.env);
  const aggregator = aggregatorConfigFromEnv(process.env);
  // PARTNER_HEALTH_WINDOW_MS and the PARTNER_BREAKER_* thresholds: a bad value stops the worker here.
  const breakerSettings = breakerSettingsFromEnv(process.env);
  // The SDK's Prometheus exporter on an internal loopback port; what scrapers reach is the listener of
  // src/support/metrics-listener.ts on METRICS_HOST:WORKER_METRICS_PORT (METRICS_TOKEN, the HTTP_* limits).
  const exporterPort = config.workerMetricsPort > 0 ? await freePort() : undefined;
  installRuntime(undefined, exporterPort ? `127.0.0.1:${exporterPort}` : undefined);
  const metricsServer = exporterPort ? serveUpstreamMetrics(exporterPort, { port: config.workerMetricsPort, host: config.metricsHost, token: config.metricsToken }) : undefined;
  if (metricsServer) {
    await listening(metricsServer).catch((error: NodeJS.ErrnoException) => {
      throw new StartupError(`the worker's metrics listener could not bind ${config.metricsHost}:${config.workerMetricsPort} (METRICS_HOST, WORKER_METRICS_PORT): ${error.code ?? error.message}`);
    });
  }
  const orm = await openOrm(config.databaseUrl ?? embeddedDatabaseUrl(config), { poolMax: config.worker.poolMax, timeouts: WORKER_DB_TIMEOUTS });
  // Issue 45: one rail that sends each reference's calls to the partner it went to.
  const { rail, partners, calls: partnerCalls, close: closeRails } = liveRailsOf(orm, { momo: partner, aggregator }, log);
  // RAIL_ROUTES as the API checks it: a live settlement batch goes to the partner of its currency's bank route.
  const railRoutes = loadRailRoutes(process.env, { momo: partner !== undefined, aggregator: aggregator !== undefined }, aggregator?.encryptionKey !== undefined);
  if (partners.length) log.info({ partners }, 'live partners');
  // Settlement account numbers still in plain text (rows from before migration 20261125000005) are
  // sealed before this worker sweeps anything; idempotent, and one index probe once none is left.
  const sealed = await sealSettlementAccounts(orm, secretBox);
  if (sealed.sealed > 0) log.info({ sealed: sealed.sealed }, 'settlement account numbers sealed');
  const address = config.temporalAddress ?? '127.0.0.1:7233';
  const { worker, connection, client: workerClient, capacity } = await createPaymentsWorker({
    orm,
    address,
    namespace: config.temporalNamespace,
    taskQueue: config.taskQueue,
    secretBox,
    payloadCodec,
    webhooks: config.webhooks,
    slots: config.worker,
    deployment: config.workerDeployment,
    rail,
    railRoutes,
    notifications,
    retention: config.retention.plan,
  });
  const temporal = await connectTemporal(address, config.temporalNamespace, payloadCodec);
  // The settlement Schedule (SETTLEMENT_SCHEDULE), created or brought up to date here: the worker is
  // what `npm start`, `npm run worker` and the compose worker all run, with this deployment's queues.
  const schedule = await ensureSettlementSchedule(temporal.client, { taskQueue: config.taskQueue, cron: config.settlementSchedule }).catch((error: unknown) => {
    throw error instanceof Error && error.message.startsWith('SETTLEMENT_SCHEDULE') ? new StartupError(error.message) : error;
  });
  log.info({ scheduleId: schedule.scheduleId, cron: config.settlementSchedule, created: schedule.created }, 'settlement schedule ensured');
  // The retention Schedule (RETENTION_SCHEDULE, hourly by default): ended deliveries, idempotency keys,
  // rate-limit counters and ended notifications past their windows, deleted in batches (docs/operations.md, Retention).
  const retention = await ensureRetentionSchedule(temporal.client, { taskQueue: config.taskQueue, cron: config.retention.schedule }).catch((error: unknown) => {
    throw error instanceof Error && error.message.startsWith('RETENTION_SCHEDULE') ? new StartupError(error.message) : error;
  });
  log.info({ scheduleId: retention.scheduleId, cron: config.retention.schedule, created: retention.created }, 'retention schedule ensured');
  // With a partner: the daily import of yesterday's statements of each partner configured (issue 45:
  // PARTNER_* momo, AGGREGATOR_* aggregator, named in the Schedule's input; STATEMENT_IMPORT_SCHEDULE,
  // default 03:00 UTC; docs/operations.md, Reconciliation).
  const statementPartners = [...(partner ? (['momo'] as const) : []), ...(aggregator ? (['aggregator'] as const) : [])];
  if (statementPartners.length > 0) {
    const cron = process.env.STATEMENT_IMPORT_SCHEDULE?.trim() || undefined;
    const imports = await ensureStatementImportSchedule(temporal.client, { taskQueue: config.taskQueue, cron, partners: statementPartners }).catch((error: unknown) => {
      throw error instanceof Error && error.message.startsWith('STATEMENT_IMPORT_SCHEDULE') ? new StartupError(error.message) : error;
    });
    log.info({ scheduleId: imports.scheduleId, created: imports.created, partners: statementPartners }, 'statement import schedule ensured');
  }
  // On the worker's own connection, with eager start: each delivery's first workflow task comes back
  // to this process in the start's answer (docs/architecture.md, Webhook latency). Not with Worker
  // Versioning: the server would pin the delivery to this process's build even when another build is
  // current, so a draining build would keep taking new deliveries (and a retry waiting a day could be
  // pinned to a build that is gone); a versioned worker starts them through the queue, routed to the
  // current build (test/system/worker-versioning.test.ts).
  const starts = Runtime.instance().metricMeter.createCounter('payments_webhook_starts', '1', 'Webhook deliveries started by the outbox relay, by how (eager: first task handed back in the answer)');
  const relay = startOutboxRelay(
    {
      orm,
      client: workerClient,
      eagerStart: config.workerDeployment === undefined,
      onStart: (environment, how) => starts.add(1, { environment, how }),
      taskQueue: config.taskQueue,
      retryScheduleMs: config.webhooks.retryScheduleMs,
      log,
      // Only this worker's environments (WORKER_ENVIRONMENTS): a live-only worker claims no sandbox event.
      environments: config.worker.environments,
      requestDeadlineMs: config.temporalRequestDeadlineMs,
    },
    config.webhooks.outboxPollMs,
  );
  // Fans the events that notify someone out into notifications, one workflow each (docs/notifications.md).
  const notificationRelay = startNotificationRelay(
    { orm, client: temporal.client, taskQueue: config.taskQueue, secretBox, log, retryScheduleMs: notifications.retryScheduleMs, disputeDeadlineWithinMs: notifications.disputeDeadlineWithinMs, requestDeadlineMs: config.temporalRequestDeadlineMs },
    notifications.pollMs,
  );
  log.info(describeNotificationTransports(notifications), 'notifications: where messages go');
  // Starts the workflow of any charge the API wrote but could not confirm started (every 1 s, after 5 s).
  const chargeStarts = startChargeStartRelay({ orm, client: temporal.client, taskQueue: config.taskQueue, log, requestDeadlineMs: config.temporalRequestDeadlineMs });
  // The same for payouts (src/runtime/payout-start-relay.ts).
  const payoutStarts = startPayoutStartRelay({ orm, client: temporal.client, taskQueue: config.taskQueue, log, requestDeadlineMs: config.temporalRequestDeadlineMs });
  // The same for refunds (src/runtime/refund-start-relay.ts).
  const refundStarts = startRefundStartRelay({ orm, client: temporal.client, taskQueue: config.taskQueue, log, requestDeadlineMs: config.temporalRequestDeadlineMs });
  // The same for disputes (src/runtime/dispute-start-relay.ts).
  const disputeStarts = startDisputeStartRelay({ orm, client: temporal.client, taskQueue: config.taskQueue, log, requestDeadlineMs: config.temporalRequestDeadlineMs });
  const reconcile = reconcilerSettings();
  const overdue = Runtime.instance().metricMeter.createGauge('payments_overdue_charges', 'int', '1', 'Charges unresolved past expires_at + grace, by workflow state');
  const reconciler = startChargeReconciler(
    {
      orm,
      client: temporal.client,
      taskQueue: config.taskQueue,
      log,
      graceMs: reconcile.graceMs,
      requestDeadlineMs: config.temporalRequestDeadlineMs,
      report: (counts) => Object.entries(counts).forEach(([workflow, n]) => overdue.set(n, { workflow })),
    },
    reconcile.intervalMs,
  );
  // Issue 46: the measured partner calls written every second; the partners' circuit breakers moved every
  // 2 s from them (one transaction that locks them: every worker runs it, they agree), and the partner_*
  // gauges; a drained one is left alone.
  const breakers = startPartnerBreakerMonitor({ orm, settings: breakerSettings, log, report: partnerGauges(Runtime.instance().metricMeter), flushCalls: partnerCalls && (() => partnerCalls.flush()) });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => worker.shutdown());
  log.info({ taskQueues: worker.taskQueues, slots: capacity.queues, deliveries: capacity.deliveries, webhookDbConnections: capacity.webhookDbConnections, deployment: config.workerDeployment ?? 'unversioned' }, 'worker running');
  applyWorkerNice(); // and every thread made meanwhile (the SDK's, the pools')
  process.send?.('ready');
  await worker.run();
  metricsServer?.closeAllConnections();
  metricsServer?.close();
  await relay.stop();
  await notificationRelay.stop();
  await reconciler.stop();
  await chargeStarts.stop();
  await payoutStarts.stop();
  await refundStarts.stop();
  await disputeStarts.stop();
  await breakers.stop();
  await closeRails();
  await temporal.connection.close();
  await connection.close();
  await orm.close();
  log.info('worker stopped');
}

main().catch((error) => {
  console.error(error instanceof StartupError ? error.message : error);
  process.exit(1);
});
