import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { loadWebhookConfig } from '../../../src/config';
import { createApp } from '../../../src/http/app';
import type { Orm } from '../../../src/persistence/orm';
import type { ServiceDeps } from '../../../src/services/context';
import type { TemporalHandle } from '../../../src/temporal/connection';
import { createLogger } from '../../../src/support/logger';
import { createSecretBox } from '../../../src/support/secret-box';
import { createWebApp } from '../../../src/web/app';

/**
 * The sandbox API listener and the web port (portal) of `npm start`, in this process on ephemeral
 * ports, over `orm`, for the reads bench. No Temporal: every read measured here is the database's, so
 * the handle refuses any use (a read that reached Temporal would fail the bench, not hang it). The
 * API's rate limit is off (the bench is one closed-loop client measuring latency, not the limiter).
 */
export interface ReadServers {
  api: string;
  web: string;
  close(): Promise<void>;
}

const noTemporal = new Proxy({}, {
  get(_target, name) {
    throw new Error(`the reads bench has no Temporal: a measured read used temporal.${String(name)}`);
  },
}) as TemporalHandle;

export async function startReadServers(orm: Orm): Promise<ReadServers> {
  const deps: ServiceDeps = {
    orm,
    temporal: noTemporal,
    taskQueue: 'bench-reads',
    log: createLogger('silent'),
    secretBox: createSecretBox(randomBytes(32)),
    webhooks: loadWebhookConfig({}),
  };
  const api = http.createServer(createApp(deps, { environment: 'sandbox', bodyLimitBytes: 64 * 1024, rateLimitPerSecond: 'off' }).callback());
  const web = http.createServer();
  await Promise.all([api, web].map((s) => new Promise<void>((ok) => s.listen(0, '127.0.0.1', ok))));
  const url = (s: http.Server) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
  web.on('request', createWebApp(deps, { webUrl: url(web), sandboxApiUrl: url(api) }).callback());
  return {
    api: url(api),
    web: url(web),
    close: async () => {
      for (const s of [api, web]) s.closeAllConnections();
      await Promise.all([api, web].map((s) => new Promise<void>((ok) => s.close(() => ok()))));
    },
  };
}
