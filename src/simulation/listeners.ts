import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Environment } from '../domain/environment';
import { createApp } from '../http/app';
import type { ServiceDeps } from '../services/context';
import { closeServers } from '../support/close-servers';

/**
 * The API's sandbox and live listeners for the simulation, on ephemeral ports of 127.0.0.1, as
 * src/main.ts mounts them (and test/support/harness.ts): createApp per environment. The rate limit
 * and the callback limit are far above anything a plan sends.
 */
export interface Listeners {
  urls: Record<Environment, string>;
  close(): Promise<void>;
}

export async function startListeners(deps: ServiceDeps): Promise<Listeners> {
  const servers = (['sandbox', 'live'] as const).map((environment) =>
    http.createServer(createApp(deps, { environment, bodyLimitBytes: 64 * 1024, rateLimitPerSecond: 100_000, callbackRateLimit: 1_000_000 }).callback()),
  );
  await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve))));
  const url = (s: http.Server) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
  return {
    urls: { sandbox: url(servers[0]), live: url(servers[1]) },
    async close() {
      await closeServers(servers);
    },
  };
}
