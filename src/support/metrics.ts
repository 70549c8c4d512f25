import type http from 'node:http';
import client from 'prom-client';
import { serveMetricsText, type MetricsListenerOptions } from './metrics-listener';

/** Prometheus metrics of the API process (the worker exports the Temporal SDK's own metrics). */
export interface ApiMetrics {
  registry: client.Registry;
  httpRequests: client.Counter<'method' | 'route' | 'status' | 'environment'>;
  httpDuration: client.Histogram<'method' | 'route' | 'environment'>;
  chargeCreates: client.Counter<'environment' | 'result'>;
  /** Computations of a listener's /health checks (src/http/routes/health.ts: cached, so fewer than its requests). */
  healthChecks: client.Counter<'environment' | 'result'>;
}

export function createApiMetrics(): ApiMetrics {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });
  return {
    registry,
    httpRequests: new client.Counter({
      name: 'payments_http_requests_total',
      help: 'API requests by route template and status',
      labelNames: ['method', 'route', 'status', 'environment'],
      registers: [registry],
    }),
    httpDuration: new client.Histogram({
      name: 'payments_http_request_duration_seconds',
      help: 'API request duration',
      labelNames: ['method', 'route', 'environment'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    chargeCreates: new client.Counter({
      name: 'payments_charge_creates_total',
      help: 'POST /v1/charges answers: accepted, partner_timeout or replayed',
      labelNames: ['environment', 'result'],
      registers: [registry],
    }),
    healthChecks: new client.Counter({
      name: 'payments_health_checks_total',
      help: '/health computations (the database, Temporal and worker checks), by result ok or unavailable; /health answers within a second share one',
      labelNames: ['environment', 'result'],
      registers: [registry],
    }),
  };
}

/**
 * `GET /metrics` on its own listener (METRICS_PORT), never on the merchant-facing ones: bound to
 * `host` (METRICS_HOST, 127.0.0.1 by default), with METRICS_TOKEN and the hostile-input limits
 * (./metrics-listener.ts).
 */
export function serveMetrics(metrics: ApiMetrics, port: number, host: string, options: Omit<MetricsListenerOptions, 'port' | 'host'> = {}): http.Server {
  return serveMetricsText(async () => ({ contentType: metrics.registry.contentType, body: await metrics.registry.metrics() }), { ...options, port, host });
}
