// First: on a Node.js older than 24, one clear line and exit before anything else loads.
import './support/node-version';
import { loadConfig, metricsSampleIntervalMs } from './config';
import { createApp } from './http/app';
import { createLimitedServer, serverLimitsFromEnv } from './http/server-limits';
import { openApiDocument } from './http/openapi/document';
import { ensureDemoMerchant } from './runtime/demo-merchant';
import { ownShutdownSignals } from './persistence/embedded-postgres';
import { startInfrastructure } from './runtime/infrastructure';
import { keyringEnv, resolveKeyring } from './runtime/secrets-key';
import { requireProductionSettings } from './runtime/production-settings';
import { codecCorsOrigins, localCodecEndpoint, startCodecServer, type CodecServer } from './runtime/codec-server';
import { codecToken } from './runtime/codec-token';
import { createPayloadCodec } from './temporal/payload-codec';
import { createSecretBox } from './support/secret-box';
import { startWorkerProcess, type WorkerProcess } from './runtime/worker-process';
import { createLogger } from './support/logger';
import { StartupError } from './support/startup-error';
import { requireOwnPortsFree } from './runtime/ports-in-use';
import { createApiMetrics, serveMetrics } from './support/metrics';
import { startMonitorSampler } from './runtime/monitor-sampler';
import { startLivePartner } from './runtime/live-partner';
import { startLiveAggregator } from './runtime/live-aggregator';
import { AggregatorCards } from './rail/aggregator/card';
import { loadRailRoutes } from './runtime/rail-routes-config';
import { formatRailRoutes } from './domain/rail-routes';
import { createWebApp } from './web/app';
import { createDocsApp } from './web/docs/app';

/** `npm start`: infrastructure, the worker process and both API listeners; Ctrl-C stops all. */
async function main(): Promise<void> {
  const config = loadConfig();
  const log = createLogger(config.logLevel, 'api');
  requireProductionSettings(config);
  await requireOwnPortsFree(config);
  const sampleIntervalMs = metricsSampleIntervalMs();
  const keyring = resolveKeyring(config);
  // The Temporal UI's remote codec endpoint (CODEC_PORT, 0 = off): decoded payloads for an operator.
  // Its token (CODEC_AUTH_TOKEN, else generated into DATA_DIR/codec-token) is required on every call, and handed to the UI.
  const limits = serverLimitsFromEnv();
  const codecAuth = config.codec.port > 0 ? codecToken(config) : undefined;
  const codec: CodecServer | undefined = codecAuth
    ? await startCodecServer({ codec: createPayloadCodec(keyring), host: config.codec.host, port: config.codec.port, corsOrigins: codecCorsOrigins(config), authToken: codecAuth.token, tokenFromSettings: codecAuth.fromSettings, limits })
    : undefined;
  const infra = await startInfrastructure(config, log, { uiCodecEndpoint: localCodecEndpoint(config, codecAuth?.token) });
  // The live rail: PARTNER_* when set, else the local fake partner (none in production).
  const partner = await startLivePartner(config, keyringEnv(config).SECRETS_KEY, log);
  // Issue 45: the aggregator (card, bank, mobile money): AGGREGATOR_* when set, else the local fake one (none in production).
  const aggregator = await startLiveAggregator(config, log);
  // Which partner takes what (RAIL_ROUTES, checked against the partners this start has).
  const railRoutes = loadRailRoutes(process.env, { momo: partner.rail !== 'none', aggregator: aggregator.config !== undefined }, aggregator.config?.encryptionKey !== undefined);
  // Live cards: the hosted checkout page sends the card to the aggregator itself (never a workflow).
  const cardPayments = aggregator.config?.encryptionKey ? new AggregatorCards(aggregator.config, { logger: log }) : undefined;
  let worker: WorkerProcess | undefined;
  if (process.env.RUN_WORKER !== 'false') {
    worker = await startWorkerProcess({ DATABASE_URL: infra.databaseUrl, TEMPORAL_ADDRESS: infra.temporalAddress, TEMPORAL_NAMESPACE: config.temporalNamespace, ...keyringEnv(config), ...partner.workerEnv, ...aggregator.workerEnv });
  }
  const metrics = createApiMetrics();
  const deps = { orm: infra.orm, temporal: infra.temporal, taskQueue: config.taskQueue, log, metrics, secretBox: createSecretBox(keyring), webhooks: config.webhooks, temporalDeadlineMs: config.temporalRequestDeadlineMs, chargeStartWaitMs: config.chargeStartWaitMs, webUrl: config.webPublicUrl, eventsWalkWindowMs: config.retention.eventsWalkWindowMs, liveRail: partner.rail !== 'none' || aggregator.config ? ('partner' as const) : ('none' as const), railRoutes, ...(partner.config ? { partnerCallbacks: { callbackSecret: partner.config.callbackSecret } } : {}), ...(aggregator.config ? { aggregatorWebhooks: { webhookHash: aggregator.config.webhookHash } } : {}), ...(cardPayments ? { cardPayments } : {}) };
  // Header size and count, header and request timeouts (HTTP_* settings, `limits` above): src/http/server-limits.ts.
  const webOptions = { webUrl: config.webPublicUrl, sandboxApiUrl: config.sandboxPublicUrl, temporalUi: { baseUrl: config.temporalUiUrl, namespace: config.temporalNamespace }, portalTemporalUiLink: config.portalTemporalUiLink, rateLimits: config.rateLimits, sessionTimeouts: config.portalSessions, openApiDocument, trustedProxies: config.trustedProxies };
  const servers = [
    createLimitedServer(createApp(deps, { environment: 'sandbox', bodyLimitBytes: config.bodyLimitBytes, rateLimitPerSecond: config.rateLimits.sandbox, trustedProxies: config.trustedProxies, ...(config.docsPort > 0 ? { webOrigin: config.docsPublicUrl } : {}) }).callback(), limits, 'api').listen(config.sandboxPort, config.host),
    createLimitedServer(createApp(deps, { environment: 'live', bodyLimitBytes: config.bodyLimitBytes, rateLimitPerSecond: config.rateLimits.live, trustedProxies: config.trustedProxies, callbackRateLimit: config.callbackRateLimit }).callback(), limits, 'api').listen(config.livePort, config.host),
    // The web port: merchant portal, hosted checkout (src/web/); `/docs…` redirects to the reference site's origin.
    createLimitedServer(createWebApp(deps, { ...webOptions, ...(config.docsPort > 0 ? { docsUrl: config.docsPublicUrl } : {}) }).callback(), limits, 'web').listen(config.webPort, config.host),
  ];
  // Issue 47: the API reference (a third-party bundle) on its own origin, DOCS_PORT (0 = off): src/web/docs/app.ts.
  if (config.docsPort > 0) servers.push(createLimitedServer(createDocsApp(deps, { ...webOptions, docsUrl: config.docsPublicUrl }).callback(), limits, 'web').listen(config.docsPort, config.host));
  // The gauges the alerts need (monitoring/prometheus/rules.yml): sampled every METRICS_SAMPLE_INTERVAL, read by scrapes.
  const monitor = config.metricsPort > 0 ? startMonitorSampler({ registry: metrics.registry, orm: infra.orm, temporal: infra.temporal, taskQueue: config.taskQueue, workerDeploymentName: config.workerDeployment?.deploymentName, log }, sampleIntervalMs) : undefined;
  // METRICS_HOST (127.0.0.1 unless set, whatever HOST is), METRICS_TOKEN and the same limits: src/support/metrics-listener.ts.
  if (config.metricsPort > 0) servers.push(serveMetrics(metrics, config.metricsPort, config.metricsHost, { token: config.metricsToken, limits }));
  await Promise.all(servers.map((s) => new Promise((resolve) => s.once('listening', resolve))));
  // The demo merchant belongs to a local install (embedded database); DEMO_MERCHANT=true forces it.
  const wantDemo = process.env.DEMO_MERCHANT === 'true' || (!config.databaseUrl && process.env.DEMO_MERCHANT !== 'false');
  const demo = wantDemo ? await ensureDemoMerchant(infra.orm, config.dataDir) : undefined;

  process.stdout.write(
    [
      '',
      `  Sandbox API   http://${config.host}:${config.sandboxPort}`,
      `  Live API      http://${config.host}:${config.livePort}`,
      `  Web           ${config.webPublicUrl} (merchant portal, hosted checkout)`,
      `  API reference ${config.docsPort > 0 ? `${config.docsPublicUrl}/docs (its own origin)` : 'off (DOCS_PORT=0)'}`,
      `  Temporal UI   ${infra.temporalUiUrl ?? '(external server: ' + infra.temporalAddress + ')'}`,
      `  Codec         ${codec ? `${codec.url} (decodes payloads for the Temporal UI; its token: ${codecAuth?.file ? `in ${codecAuth.file}` : 'CODEC_AUTH_TOKEN'})` : 'off'}`,
      `  Live rail     ${partner.fake ? `the local fake partner ${partner.fake.url} (docs/partner-rail.md)` : partner.config ? `partner ${partner.config.baseUrl}` : 'no mobile-money partner'}`,
      `  Aggregator    ${aggregator.fake ? `the local fake aggregator ${aggregator.fake.url} (docs/aggregator.md)` : aggregator.config ? `aggregator ${aggregator.config.baseUrl}` : 'none'}`,
      `  Rail routes   ${railRoutes.length ? formatRailRoutes(railRoutes) : 'none: live charges, payouts and refunds answer 503 live_unavailable'} (RAIL_ROUTES)`,
      `  Metrics       ${config.metricsPort > 0 ? `http://${config.metricsHost}:${config.metricsPort}/metrics (API)` : 'off'}; ${config.workerMetricsPort > 0 ? `http://${config.metricsHost}:${config.workerMetricsPort}/metrics (worker)` : 'worker off'}${config.metricsToken ? ' (bearer token: METRICS_TOKEN)' : ''}`,
      ...(demo
        ? [
            `  Demo merchant ${demo.id}`,
            `  Sandbox key   ${demo.test_key}`,
            '',
            `  curl -s http://${config.host}:${config.sandboxPort}/v1/balances -H "Authorization: Bearer ${demo.test_key}"`,
          ]
        : ['  Create a merchant: npm run --silent cli -- merchants create --name NAME']),
      '',
      '',
    ].join('\n'),
  );

  let stopping = false;
  const shutdown = async () => {
    if (stopping) return;
    stopping = true;
    log.info('stopping');
    // In order: no new requests, the worker drains (its tasks and relays still reach the database),
    // then Temporal and PostgreSQL. A step that hangs does not keep the process: exit 1 after 60 s.
    setTimeout(() => {
      log.error('stopping took over 60 s; exiting anyway');
      process.exit(1);
    }, 60_000).unref();
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
    await monitor?.stop();
    await worker?.stop();
    await partner.stop();
    await cardPayments?.close();
    await aggregator.stop();
    await infra.stop();
    await codec?.close();
    log.info('stopped');
    process.exit(0);
  };
  ownShutdownSignals();
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
  worker?.child.on('exit', (code, signal) => {
    if (!stopping) log.error({ code, signal }, 'worker process exited; stopping');
    void shutdown();
  });
}

main().catch((error) => {
  console.error(error instanceof StartupError ? error.message : error);
  process.exit(1);
});
