import path from 'node:path';
import { DEFAULT_WORKER_POOL_MAX, workerQueueSettings, type SlotSettings } from './runtime/worker-settings';
import { workerHeapMb } from './runtime/worker-heap';
import { workerNice } from './runtime/worker-nice';
import { DEFAULT_DISABLE_RULE, type DisableRule } from './domain/webhook-health';
import { DEFAULT_RETRY_SCHEDULE, parseDuration, parseRetrySchedule } from './domain/webhook-retry';
import { cronProblem } from './domain/cron-expression';
import { StartupError } from './support/startup-error';
import { parseTrustedProxies, type TrustedProxies } from './support/trusted-proxies';
import { retentionSettings, type RetentionSettings } from './runtime/retention-settings';
import type { WorkerDeploymentVersion } from '@temporalio/common';

/** Configuration, read from the environment once. */
export interface Config {
  host: string;
  sandboxPort: number;
  livePort: number;
  /** When unset, an embedded PostgreSQL is started with its data under `dataDir`. */
  databaseUrl: string | undefined;
  embeddedPostgresPort: number;
  /** When unset, a Temporal dev server is started with its state under `dataDir`. */
  temporalAddress: string | undefined;
  temporalNamespace: string;
  temporalCliPath: string | undefined;
  /** The port of the dev server `npm start` starts when TEMPORAL_ADDRESS is unset (TEMPORAL_DEV_PORT, default 7233). */
  temporalDevPort: number;
  temporalUiPort: number;
  taskQueue: string;
  dataDir: string;
  logLevel: string;
  bodyLimitBytes: number;
  /** API metrics listener (`/metrics`), 0 = off. */
  metricsPort: number;
  /** METRICS_HOST: the address both metrics listeners (API and worker) bind, 127.0.0.1 whatever HOST is. */
  metricsHost: string;
  /** METRICS_TOKEN: when set, every scrape carries `Authorization: Bearer <token>` (src/support/metrics-listener.ts). */
  metricsToken: string | undefined;
  /** The web port (WEB_PORT, default 3002): API reference, merchant portal, hosted checkout (src/web/). */
  webPort: number;
  /** WEB_PUBLIC_URL: how browsers reach the web port (checkout URLs in API answers); default http://HOST:WEB_PORT (127.0.0.1 when HOST is a wildcard). */
  webPublicUrl: string;
  /** SANDBOX_PUBLIC_URL: how browsers reach the sandbox listener (the reference site's console sends there); default http://HOST:PORT, as above. */
  sandboxPublicUrl: string;
  /** TEMPORAL_UI_URL: the Temporal UI `payments stuck` (and, with PORTAL_TEMPORAL_UI_LINK, the portal) links to; default http://127.0.0.1:TEMPORAL_UI_PORT (the dev server's). */
  temporalUiUrl: string;
  /** PORTAL_TEMPORAL_UI_LINK=true: the portal's payment page links its workflow in the Temporal UI (an operators' tool; default off). */
  portalTemporalUiLink: boolean;
  /** The reference site's own port (DOCS_PORT, default 3003; 0 = off): its own origin, apart from the portal (src/web/docs/app.ts). */
  docsPort: number;
  /** DOCS_PUBLIC_URL: how browsers reach the reference site; default http://HOST:DOCS_PORT (127.0.0.1 when HOST is a wildcard). */
  docsPublicUrl: string;
  /** Worker (Temporal SDK) Prometheus exporter, 0 = off. */
  workerMetricsPort: number;
  /** SECRETS_KEY (base64, 32 bytes) that seals webhook signing secrets; see runtime/secrets-key.ts. */
  secretsKey: string | undefined;
  /** SECRETS_KEY_PREVIOUS: earlier keys (comma-separated), still opened during a rotation. */
  secretsKeyPrevious: string | undefined;
  /** NODE_ENV=production: no embedded defaults (runtime/production-settings.ts). */
  production: boolean;
  /** Temporal remote codec endpoint for the UI (runtime/codec-server.ts): CODEC_PORT (0 = off), CODEC_HOST, CODEC_CORS_ORIGINS, CODEC_AUTH_TOKEN. */
  codec: { port: number; host: string; corsOrigins: string[] | undefined; authToken: string | undefined };
  webhooks: WebhookConfig;
  /** TEMPORAL_REQUEST_DEADLINE_MS: longest wait of an API request (or `charges reverse`) on Temporal; then 503. */
  temporalRequestDeadlineMs: number;
  /** CHARGE_START_WAIT_MS: longest wait of a charge create on its workflow's start (default 1000); the relay starts it otherwise. */
  chargeStartWaitMs: number;
  /** The portal sessions' timeouts: PORTAL_SESSION_IDLE_MINUTES (default 30) since the last use, PORTAL_SESSION_MAX_HOURS (default 12) since the sign-in. */
  portalSessions: { idleMs: number; maxMs: number };
  /** The API's database pool (DB_POOL_MAX). */
  dbPoolMax: number;
  /** SETTLEMENT_SCHEDULE: cron (UTC) of the settlement Schedule (src/temporal/settlement-schedule.ts), default `0 2 * * *`. */
  settlementSchedule: string;
  /**
   * SETTLEMENT_ACCOUNT_HOLD (`24h`, `30m`, …; default 24h; `0` for none): how long `merchants set`
   * holds a merchant's live settlements after it replaces the settlement account (issue 43).
   */
  settlementAccountHoldMs: number;
  /** The worker's database pool and slots; see runtime/worker-capacity.ts. */
  /** heapMb: WORKER_HEAP_MB (src/runtime/worker-heap.ts), applied where the worker process is started; nice: WORKER_NICE (src/runtime/worker-nice.ts). */
  worker: { poolMax: number; heapMb?: number; nice?: number } & Pick<SlotSettings, 'localActivitySlots' | 'activitySlots' | 'liveShare' | 'legacySlots' | 'environments' | 'webhookSendSlots' | 'webhookDbConnections' | 'cachedWorkflows'>;
  /**
   * WORKER_DEPLOYMENT_NAME and WORKER_BUILD_ID (both, or neither): the Worker Deployment Version the
   * worker registers, every workflow pinned to the build it started on (workers/worker-versioning.ts);
   * undefined, the worker is unversioned.
   */
  workerDeployment: WorkerDeploymentVersion | undefined;
  /** RATE_LIMIT_SANDBOX and RATE_LIMIT_LIVE: requests per second per merchant and environment, bursts up to twice that (http/middleware/rate-limit.ts). */
  rateLimits: { sandbox: number; live: number };
  /** Retention (src/runtime/retention-settings.ts): RETENTION_SCHEDULE, the windows, RETENTION_BATCH(_PAUSE), EVENTS_WALK_WINDOW. */
  retention: RetentionSettings;
  /** TRUSTED_PROXIES (src/support/trusted-proxies.ts): whose `X-Forwarded-For` names the client, on the API listeners and the web port. */
  trustedProxies: TrustedProxies;
  /** CALLBACK_RATE_LIMIT: partner callbacks and aggregator webhooks per minute per client address on the live listener (src/http/middleware/callback-limit.ts). */
  callbackRateLimit: number;
}

/** INTERFACE.md "Webhooks" settings. */
export interface WebhookConfig {
  retryScheduleMs: number[];
  secretOverlapMs: number;
  disableRule: DisableRule;
  /** Sandbox only: exact hosts exempt from the public-address rule. */
  allowPrivateHosts: string[];
  /** Sandbox only: exempt hosts may use http://. */
  allowHttp: boolean;
  /** How often the outbox relay looks for events not yet fanned out. */
  outboxPollMs: number;
  /** WEBHOOK_MAX_ENDPOINTS: endpoints per merchant and environment (default 16). */
  maxEndpoints: number;
  /** WEBHOOK_MERCHANT_CONCURRENCY: sends to one merchant's endpoints at once per worker process (default 4). */
  merchantConcurrency: number;
  /** WEBHOOK_DNS_TIMEOUT_MS: longest wait of one webhook host name lookup (default 5000). */
  dnsTimeoutMs: number;
}

/** TEMPORAL_REQUEST_DEADLINE_MS when unset (0 also means the default). */
export const DEFAULT_TEMPORAL_REQUEST_DEADLINE_MS = 10_000;

/** DISPUTE_EVIDENCE_WINDOW when unset: evidence is due 7 days after a dispute is opened. */
export const DEFAULT_DISPUTE_EVIDENCE_WINDOW_MS = 7 * 24 * 3_600_000;

/**
 * DISPUTE_EVIDENCE_WINDOW (`7d`, `48h`, `30m`, …), read by the worker's dispute activities when they
 * are built (so a bad value stops the worker at start-up): the dispute workflow's first step sets
 * `evidence_due_by` = opened + this, and that deadline goes into history with the step's answer, so
 * the timer replays unchanged whatever the setting later becomes (as PAYOUT_REVIEW_TIMEOUT).
 */
export function disputeEvidenceWindowMs(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.DISPUTE_EVIDENCE_WINDOW;
  if (!raw) return DEFAULT_DISPUTE_EVIDENCE_WINDOW_MS;
  const ms = parseDuration(raw);
  if (ms <= 0) throw new Error(`DISPUTE_EVIDENCE_WINDOW must be a positive duration, got "${raw}"`);
  return ms;
}

/** SETTLEMENT_ACCOUNT_HOLD when unset: 24 h, as payment providers hold payouts after an account change. */
export const DEFAULT_SETTLEMENT_ACCOUNT_HOLD_MS = 24 * 3_600_000;

/** SETTLEMENT_ACCOUNT_HOLD: a duration (`24h`, `90m`, `0s`), at most 30 days; a bad value stops the process at start-up. */
export function settlementAccountHoldMs(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.SETTLEMENT_ACCOUNT_HOLD?.trim();
  if (!raw) return DEFAULT_SETTLEMENT_ACCOUNT_HOLD_MS;
  let ms: number;
  try {
    ms = raw === '0' ? 0 : parseDuration(raw);
  } catch {
    ms = NaN;
  }
  if (!(ms >= 0 && ms <= 30 * 24 * 3_600_000)) throw new StartupError(`SETTLEMENT_ACCOUNT_HOLD must be a duration from 0s to 30d such as "24h", got "${raw}"`);
  return ms;
}

/** How often the API's metrics sampler reads PostgreSQL and Temporal (runtime/monitor-sampler.ts). */
export const DEFAULT_SAMPLE_INTERVAL_MS = 15_000;

/** METRICS_SAMPLE_INTERVAL (`15s`, `1m`, …; at least 1 s); a bad value stops the API at start-up. */
export function metricsSampleIntervalMs(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.METRICS_SAMPLE_INTERVAL;
  if (!raw) return DEFAULT_SAMPLE_INTERVAL_MS;
  let ms: number;
  try {
    ms = parseDuration(raw);
  } catch {
    ms = NaN;
  }
  if (!(ms >= 1_000)) throw new StartupError(`METRICS_SAMPLE_INTERVAL must be a duration of at least 1s such as "15s", got "${raw}"`);
  return ms;
}

/** INTERFACE.md "Rate limits": requests per second per merchant when RATE_LIMIT_SANDBOX / RATE_LIMIT_LIVE are unset. */
export const DEFAULT_RATE_LIMITS = { sandbox: 25, live: 100 } as const;

/** A whole number of requests per second, at least 1: 0 would refuse every request, so it stops the start instead. */
function rateLimit(name: string, fallback: number, env: NodeJS.ProcessEnv): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  if (!/^[1-9][0-9]{0,8}$/.test(raw)) throw new StartupError(`${name} must be a whole number of requests per second, at least 1 (bursts go up to twice it), got "${raw}"`);
  return Number(raw);
}

/** CALLBACK_RATE_LIMIT when unset: 600 a minute per client address (docs/security.md "Client address and proxies"). */
export const DEFAULT_CALLBACK_RATE_LIMIT = 600;

/** CALLBACK_RATE_LIMIT: a whole number of callbacks per minute per address, at least 1. */
function callbackRateLimit(env: NodeJS.ProcessEnv): number {
  const raw = env.CALLBACK_RATE_LIMIT?.trim();
  if (!raw) return DEFAULT_CALLBACK_RATE_LIMIT;
  if (!/^[1-9][0-9]{0,8}$/.test(raw)) throw new StartupError(`CALLBACK_RATE_LIMIT must be a whole number of partner callbacks per minute per client address, at least 1, got "${raw}"`);
  return Number(raw);
}

/** A listener's public base URL: the setting, else http://HOST:port, with a wildcard HOST (0.0.0.0, ::) read as 127.0.0.1, which a browser can open. */
function publicUrl(setting: string | undefined, host: string | undefined, port: number): string {
  if (setting) return setting.replace(/\/+$/, '');
  const reachable = !host || host === '0.0.0.0' || host === '::' || host === '[::]' ? '127.0.0.1' : host;
  return `http://${reachable}:${port}`;
}

/** `true` or `false` (unset or empty: false); anything else stops the start. */
function booleanSetting(name: string, env: NodeJS.ProcessEnv): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (!raw || raw === 'false') return false;
  if (raw === 'true') return true;
  throw new StartupError(`${name} must be "true" or "false", got "${env[name]}"`);
}

/** A secret a client sends as `Authorization: Bearer <token>`: unset or empty is none; else at least 16 characters of token68 (RFC 7235), never echoed. */
function bearerTokenSetting(name: string, env: NodeJS.ProcessEnv): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  if (!/^[A-Za-z0-9\-._~+/]{16,512}=*$/.test(raw)) throw new StartupError(`${name} must be at least 16 characters of A-Z a-z 0-9 - . _ ~ + / (e.g. openssl rand -hex 32); the value given is not shown`);
  return raw;
}

function int(name: string, fallback: number, env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return value;
}

/** A setting that, when given, must be a whole number of at least 1. */
function positiveInt(name: string, env: NodeJS.ProcessEnv): number {
  const value = Number(env[name]);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got "${env[name]}"`);
  return value;
}

/** PORTAL_SESSION_IDLE_MINUTES (1 to 1440, default 30) and PORTAL_SESSION_MAX_HOURS (1 to 720, default 12); the idle timeout no longer than the absolute one. */
function portalSessions(env: NodeJS.ProcessEnv): { idleMs: number; maxMs: number } {
  const idle = env.PORTAL_SESSION_IDLE_MINUTES ? positiveInt('PORTAL_SESSION_IDLE_MINUTES', env) : 30;
  const max = env.PORTAL_SESSION_MAX_HOURS ? positiveInt('PORTAL_SESSION_MAX_HOURS', env) : 12;
  if (idle > 1440) throw new StartupError(`PORTAL_SESSION_IDLE_MINUTES must be at most 1440 (a day), got ${idle}`);
  if (max > 720) throw new StartupError(`PORTAL_SESSION_MAX_HOURS must be at most 720 (30 days), got ${max}`);
  if (idle > max * 60) throw new StartupError(`PORTAL_SESSION_IDLE_MINUTES (${idle}) must not be longer than PORTAL_SESSION_MAX_HOURS (${max} h)`);
  return { idleMs: idle * 60_000, maxMs: max * 3_600_000 };
}

/** SETTLEMENT_SCHEDULE (default daily at 02:00 UTC), checked for its shape here and for its ranges by Temporal at worker start. */
function settlementSchedule(env: NodeJS.ProcessEnv): string {
  const raw = env.SETTLEMENT_SCHEDULE?.trim() || '0 2 * * *';
  const problem = cronProblem(raw);
  if (problem) throw new StartupError(`SETTLEMENT_SCHEDULE must be a cron expression in UTC such as "0 2 * * *" (daily at 02:00): ${problem}`);
  return raw;
}

/**
 * WORKER_DEPLOYMENT_NAME and WORKER_BUILD_ID: Worker Versioning, both or neither. The server refuses a
 * deployment name with a dot (a version is `<name>.<build id>` in its older APIs), a name or build id
 * starting with `__` (reserved) and a build id over 255 characters; a refused version only shows as
 * a worker that never gets a task, so they are refused here, at start-up.
 */
function workerDeployment(env: NodeJS.ProcessEnv): WorkerDeploymentVersion | undefined {
  const deploymentName = env.WORKER_DEPLOYMENT_NAME?.trim() ?? '';
  const buildId = env.WORKER_BUILD_ID?.trim() ?? '';
  if (!deploymentName && !buildId) return undefined;
  if (!deploymentName || !buildId) {
    const [set, unset] = deploymentName ? ['WORKER_DEPLOYMENT_NAME', 'WORKER_BUILD_ID'] : ['WORKER_BUILD_ID', 'WORKER_DEPLOYMENT_NAME'];
    throw new StartupError(`${set} is set but ${unset} is not: Worker Versioning needs both (set ${unset} too), or neither for an unversioned worker`);
  }
  if (deploymentName.includes('.')) throw new StartupError(`WORKER_DEPLOYMENT_NAME must not contain ".", got "${deploymentName}"`);
  for (const [name, value] of [['WORKER_DEPLOYMENT_NAME', deploymentName], ['WORKER_BUILD_ID', buildId]]) {
    if (value.startsWith('__')) throw new StartupError(`${name} must not start with "__" (reserved by Temporal), got "${value}"`);
  }
  if (buildId.length > 255) throw new StartupError(`WORKER_BUILD_ID must be at most 255 characters, got ${buildId.length}`);
  return { deploymentName, buildId };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return {
    host: env.HOST || '127.0.0.1',
    sandboxPort: int('PORT', 3000, env),
    livePort: int('LIVE_PORT', 3001, env),
    databaseUrl: env.DATABASE_URL || undefined,
    embeddedPostgresPort: int('EMBEDDED_PG_PORT', 54320, env),
    temporalAddress: env.TEMPORAL_ADDRESS || undefined,
    temporalNamespace: env.TEMPORAL_NAMESPACE || 'default',
    temporalCliPath: env.TEMPORAL_CLI_PATH || undefined,
    temporalDevPort: int('TEMPORAL_DEV_PORT', 7233, env),
    temporalUiPort: int('TEMPORAL_UI_PORT', 8233, env),
    taskQueue: env.TEMPORAL_TASK_QUEUE || 'payments',
    dataDir: path.resolve(env.DATA_DIR || '.data'),
    logLevel: env.LOG_LEVEL || 'info',
    bodyLimitBytes: int('BODY_LIMIT_BYTES', 64 * 1024, env),
    metricsPort: int('METRICS_PORT', 9464, env),
    metricsHost: env.METRICS_HOST?.trim() || '127.0.0.1',
    metricsToken: bearerTokenSetting('METRICS_TOKEN', env),
    webPort: int('WEB_PORT', 3002, env),
    webPublicUrl: publicUrl(env.WEB_PUBLIC_URL, env.HOST, int('WEB_PORT', 3002, env)),
    sandboxPublicUrl: publicUrl(env.SANDBOX_PUBLIC_URL, env.HOST, int('PORT', 3000, env)),
    temporalUiUrl: (env.TEMPORAL_UI_URL || `http://127.0.0.1:${int('TEMPORAL_UI_PORT', 8233, env)}`).replace(/\/+$/, ''),
    portalTemporalUiLink: booleanSetting('PORTAL_TEMPORAL_UI_LINK', env),
    docsPort: int('DOCS_PORT', 3003, env),
    docsPublicUrl: publicUrl(env.DOCS_PUBLIC_URL, env.HOST, int('DOCS_PORT', 3003, env)),
    workerMetricsPort: int('WORKER_METRICS_PORT', 9465, env),
    secretsKey: env.SECRETS_KEY || undefined,
    secretsKeyPrevious: env.SECRETS_KEY_PREVIOUS || undefined,
    production: env.NODE_ENV === 'production',
    codec: {
      port: int('CODEC_PORT', 8234, env),
      host: env.CODEC_HOST || '127.0.0.1',
      corsOrigins: env.CODEC_CORS_ORIGINS ? env.CODEC_CORS_ORIGINS.split(',').map((o) => o.trim()).filter(Boolean) : undefined,
      authToken: bearerTokenSetting('CODEC_AUTH_TOKEN', env),
    },
    webhooks: loadWebhookConfig(env),
    temporalRequestDeadlineMs: int('TEMPORAL_REQUEST_DEADLINE_MS', DEFAULT_TEMPORAL_REQUEST_DEADLINE_MS, env) || DEFAULT_TEMPORAL_REQUEST_DEADLINE_MS,
    chargeStartWaitMs: int('CHARGE_START_WAIT_MS', 1_000, env),
    dbPoolMax: int('DB_POOL_MAX', 10, env),
    portalSessions: portalSessions(env),
    settlementSchedule: settlementSchedule(env),
    settlementAccountHoldMs: settlementAccountHoldMs(env),
    worker: {
      poolMax: int('WORKER_DB_POOL_MAX', DEFAULT_WORKER_POOL_MAX, env),
      ...(env.WORKER_LOCAL_ACTIVITY_SLOTS ? { localActivitySlots: int('WORKER_LOCAL_ACTIVITY_SLOTS', 0, env) } : {}),
      ...(env.WORKER_ACTIVITY_SLOTS ? { activitySlots: int('WORKER_ACTIVITY_SLOTS', 0, env) } : {}),
      ...(env.WORKER_CACHED_WORKFLOWS ? { cachedWorkflows: positiveInt('WORKER_CACHED_WORKFLOWS', env) } : {}),
      ...(env.WORKER_HEAP_MB ? { heapMb: workerHeapMb(env) } : {}),
      ...(env.WORKER_NICE ? { nice: workerNice(env) } : {}),
      ...workerQueueSettings(env),
    },
    workerDeployment: workerDeployment(env),
    rateLimits: { sandbox: rateLimit('RATE_LIMIT_SANDBOX', DEFAULT_RATE_LIMITS.sandbox, env), live: rateLimit('RATE_LIMIT_LIVE', DEFAULT_RATE_LIMITS.live, env) },
    retention: retentionSettings(env),
    trustedProxies: parseTrustedProxies(env.TRUSTED_PROXIES),
    callbackRateLimit: callbackRateLimit(env),
  };
}

export function loadWebhookConfig(env: NodeJS.ProcessEnv = process.env): WebhookConfig {
  return {
    retryScheduleMs: parseRetrySchedule(env.WEBHOOK_RETRY_SCHEDULE || DEFAULT_RETRY_SCHEDULE),
    secretOverlapMs: parseDuration(env.WEBHOOK_SECRET_OVERLAP || '24h'),
    disableRule: {
      failures: int('WEBHOOK_DISABLE_AFTER_FAILURES', DEFAULT_DISABLE_RULE.failures, env),
      afterMs: env.WEBHOOK_DISABLE_AFTER ? parseDuration(env.WEBHOOK_DISABLE_AFTER) : DEFAULT_DISABLE_RULE.afterMs,
    },
    allowPrivateHosts: (env.WEBHOOK_ALLOW_PRIVATE_HOSTS ?? '').split(',').map((h) => h.trim().toLowerCase()).filter(Boolean),
    allowHttp: env.WEBHOOK_ALLOW_HTTP === 'true',
    outboxPollMs: int('WEBHOOK_OUTBOX_POLL_MS', 200, env),
    maxEndpoints: int('WEBHOOK_MAX_ENDPOINTS', 16, env),
    merchantConcurrency: Math.max(1, int('WEBHOOK_MERCHANT_CONCURRENCY', 4, env)),
    dnsTimeoutMs: Math.max(1, int('WEBHOOK_DNS_TIMEOUT_MS', 5_000, env)),
  };
}
