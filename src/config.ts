import path from 'node:path';

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
  temporalUiPort: number;
  taskQueue: string;
  dataDir: string;
  logLevel: string;
  bodyLimitBytes: number;
  /** API metrics listener (`/metrics`), 0 = off. */
  metricsPort: number;
  /** Worker (Temporal SDK) Prometheus exporter, 0 = off. */
  workerMetricsPort: number;
}

function int(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return value;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return {
    host: env.HOST || '127.0.0.1',
    sandboxPort: int('PORT', 3000),
    livePort: int('LIVE_PORT', 3001),
    databaseUrl: env.DATABASE_URL || undefined,
    embeddedPostgresPort: int('EMBEDDED_PG_PORT', 54320),
    temporalAddress: env.TEMPORAL_ADDRESS || undefined,
    temporalNamespace: env.TEMPORAL_NAMESPACE || 'default',
    temporalCliPath: env.TEMPORAL_CLI_PATH || undefined,
    temporalUiPort: int('TEMPORAL_UI_PORT', 8233),
    taskQueue: env.TEMPORAL_TASK_QUEUE || 'payments',
    dataDir: path.resolve(env.DATA_DIR || '.data'),
    logLevel: env.LOG_LEVEL || 'info',
    bodyLimitBytes: int('BODY_LIMIT_BYTES', 64 * 1024),
    metricsPort: int('METRICS_PORT', 9464),
    workerMetricsPort: int('WORKER_METRICS_PORT', 9465),
  };
}
