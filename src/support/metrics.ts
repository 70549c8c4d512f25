import http from 'node:http';
import client from 'prom-client';

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

/** `GET /metrics` on its own listener (METRICS_PORT), never on the merchant-facing ones. */
export function serveMetrics(metrics: ApiMetrics, port: number, host: string): http.Server {
  return http
    .createServer(async (req, res) => {
      if (req.url !== '/metrics') {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'Content-Type': metrics.registry.contentType }).end(await metrics.registry.metrics());
    })
    .listen(port, host);
}
