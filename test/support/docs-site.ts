import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../src/http/app';
import { openApiDocument } from '../../src/http/openapi/document';
import type { ServiceDeps } from '../../src/services/context';
import { createWebApp } from '../../src/web/app';
import { createDocsApp } from '../../src/web/docs/app';
import { HARNESS_RATE_LIMIT } from './harness';

/** Every request the web port received: method, URL and headers, as the server saw them. */
export interface SeenRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
}

export interface DocsSite {
  /** The web port (portal, checkout): it redirects `/docs…` to `docsUrl`. */
  webUrl: string;
  /** The reference site's own origin (DOCS_PORT). */
  docsUrl: string;
  urls: { sandbox: string; live: string };
  /** What reached the reference site's port (its access log, in effect). */
  docsRequests: SeenRequest[];
  close(): Promise<void>;
}

const listen = async (server: http.Server) => {
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

/**
 * The web port, the reference site's port and both API listeners as `npm start` wires them: the
 * sandbox allows the reference site's origin by CORS (AppOptions.webOrigin, DOCS_PUBLIC_URL), the live
 * listener is given the same option and must ignore it; the web port redirects `/docs…` to the
 * reference site. Ports first, apps after, since each needs the other's URL. The reference site gets
 * the OpenAPI document as main.ts gives it (`withDocument: false`: as an app built without it).
 */
export async function startDocsSite(deps: ServiceDeps, options: { withDocument?: boolean; temporalUi?: { baseUrl: string; namespace: string } } = {}): Promise<DocsSite> {
  const web = http.createServer();
  const docs = http.createServer();
  const sandbox = http.createServer();
  const live = http.createServer();
  const [webUrl, docsUrl, sandboxUrl, liveUrl] = await Promise.all([listen(web), listen(docs), listen(sandbox), listen(live)]);
  const docsRequests: SeenRequest[] = [];
  const webOptions = { webUrl, sandboxApiUrl: sandboxUrl, docsUrl, ...(options.withDocument === false ? {} : { openApiDocument }), ...(options.temporalUi ? { temporalUi: options.temporalUi, portalTemporalUiLink: true } : {}) };
  web.on('request', createWebApp(deps, webOptions).callback());
  const docsApp = createDocsApp(deps, webOptions).callback();
  docs.on('request', (req, res) => {
    docsRequests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    void docsApp(req, res);
  });
  for (const [server, environment] of [
    [sandbox, 'sandbox'],
    [live, 'live'],
  ] as const) {
    server.on('request', createApp(deps, { environment, bodyLimitBytes: 64 * 1024, rateLimitPerSecond: HARNESS_RATE_LIMIT, webOrigin: docsUrl }).callback());
  }
  const servers = [web, docs, sandbox, live];
  return {
    webUrl,
    docsUrl,
    urls: { sandbox: sandboxUrl, live: liveUrl },
    docsRequests,
    close: async () => {
      for (const s of servers) s.closeAllConnections();
      await Promise.all(servers.map((s) => new Promise((ok) => s.close(ok))));
    },
  };
}
