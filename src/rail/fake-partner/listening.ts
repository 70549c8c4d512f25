import type http from 'node:http';

/**
 * Issue 46, the `partner_down` fault for a fake in its own process: its port closed for a spell,
 * then opened again on the same address, what it keeps (in memory) kept. Off: the server stops
 * listening and every open connection is closed (a request in flight gets its connection reset, as
 * a partner going down under it would do), so a new request is refused at the connection (ECONNREFUSED:
 * the adapter's RailUnavailable.notReached). On: it listens again where it did.
 */
export interface ListeningSwitch {
  set(on: boolean): Promise<void>;
  /** At close: the keep-alive timer of a closed port cleared. */
  release(): void;
}

export function listeningSwitch(server: http.Server, port: number, host: string): ListeningSwitch {
  let listening = true;
  // While closed, a timer keeps a process whose only handle was the server alive (the topology's fake
  // process would otherwise exit with nothing left to do, and its restart would forget its records).
  let keepAlive: NodeJS.Timeout | undefined;
  const set = async (on: boolean): Promise<void> => {
    if (on === listening) return;
    listening = on;
    if (!on) {
      keepAlive = setInterval(() => {}, 60_000);
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
    clearInterval(keepAlive);
    keepAlive = undefined;
  };
  return {
    set,
    release: () => {
      clearInterval(keepAlive);
      keepAlive = undefined;
    },
  };
}
