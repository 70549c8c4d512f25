import type http from 'node:http';

/**
 * Issue 46, the `partner_down` fault for a fake in its own process: its port closed for a spell,
 * then opened again on the same address, what it keeps (in memory) kept. Off: the server stops
 * listening and every open connection is closed (a request in flight gets its connection reset, as
 * a partner going down under it would do), so a new request is refused at the connection (ECONNREFUSED:
 * the adapter's RailUnavailable.notReached). On: it listens again where it did.
 */
export function listeningSwitch(server: http.Server, port: number, host: string): (on: boolean) => Promise<void> {
  let listening = true;
  return async (on) => {
    if (on === listening) return;
    listening = on;
    if (!on) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      return;
    }
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  };
}
