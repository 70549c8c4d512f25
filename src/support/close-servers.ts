import type http from 'node:http';

/** Closes HTTP servers at once: open keep-alive connections are cut rather than waited for. */
export async function closeServers(servers: readonly http.Server[]): Promise<void> {
  await Promise.all(
    servers.map((s) => {
      const closed = new Promise<void>((resolve) => s.close(() => resolve()));
      s.closeAllConnections();
      return closed;
    }),
  );
}
