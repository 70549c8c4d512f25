import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../src/http/app';
import { openApiDocument } from '../../src/http/openapi/document';
import type { ServiceDeps } from '../../src/services/context';
import { createWebApp } from '../../src/web/app';
import { HARNESS_RATE_LIMIT } from './harness';

/** Every request the web port received: method, URL and headers, as the server saw them. */
export interface SeenRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
}

export interface DocsSite {
  webUrl: string;
  urls: { sandbox: string; live: string };
  /** What reached the web port (its access log, in effect). */
  webRequests: SeenRequest[];
  close(): Promise<void>;
}

const listen = async (server: http.Server) => {
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

/**
 * The web port and both API listeners as `npm start` wires them: the sandbox allows the web port's
 * origin by CORS (AppOptions.webOrigin), the live listener is given the same option and must ignore
 * it. Ports first, apps after, since each needs the other's URL. The web port gets the OpenAPI
 * document as main.ts gives it (`withDocument: false`: as an app built without it).
 */
export async function startDocsSite(deps: ServiceDeps, options: { withDocument?: boolean; temporalUi?: { baseUrl: string; namespace: string } } = {}): Promise<DocsSite> {
  const web = http.createServer();
  const sandbox = http.createServer();
  const live = http.createServer();
  const [webUrl, sandboxUrl, liveUrl] = await Promise.all([listen(web), listen(sandbox), listen(live)]);
  const webRequests: SeenRequest[] = [];
  const webApp = createWebApp(deps, { webUrl, sandboxApiUrl: sandboxUrl, ...(options.withDocument === false ? {} : { openApiDocument }), ...(options.temporalUi ? { temporalUi: options.temporalUi } : {}) }).callback();
  web.on('request', (req, res) => {
    webRequests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    void webApp(req, res);
  });
  for (const [server, environment] of [
    [sandbox, 'sandbox'],
    [live, 'live'],
  ] as const) {
    server.on('request', createApp(deps, { environment, bodyLimitBytes: 64 * 1024, rateLimitPerSecond: HARNESS_RATE_LIMIT, webOrigin: webUrl }).callback());
  }
  return {
    webUrl,
    urls: { sandbox: sandboxUrl, live: liveUrl },
    webRequests,
    close: async () => {
      for (const s of [web, sandbox, live]) s.closeAllConnections();
      await Promise.all([web, sandbox, live].map((s) => new Promise((ok) => s.close(ok))));
    },
  };
}
