// First: on a Node.js older than 24, one clear line and exit before anything else loads.
import '../support/node-version';
import { startProxy, type ProxyRoute } from './proxy';

/** The topology's proxy process: TOPOLOGY_PROXY_ROUTES, a JSON list of { listen, backends } (src/topology/app-pieces.ts). */
async function main(): Promise<void> {
  const routes = JSON.parse(process.env.TOPOLOGY_PROXY_ROUTES ?? '[]') as ProxyRoute[];
  if (routes.length === 0) throw new Error('TOPOLOGY_PROXY_ROUTES is empty: nothing to proxy');
  // The listener limits: HTTP_* as the APIs read them (src/http/server-limits.ts).
  const servers = await Promise.all(routes.map((r) => startProxy(r)));
  for (const r of routes) process.stdout.write(`proxy: 127.0.0.1:${r.listen} -> ${r.backends.map((b) => `127.0.0.1:${b}`).join(', ')} (round robin)\n`);
  const stop = () => {
    for (const s of servers) s.close();
    setTimeout(() => process.exit(0), 2_000).unref();
    void Promise.all(servers.map((s) => new Promise((r) => s.close(r)))).then(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
