import net from 'node:net';

/**
 * Whether nothing listens on `host:port` yet: a listen that succeeds (closed at once) says so. Asked
 * before `npm start` starts a server of its own on a fixed port, so that it never talks, unknowingly,
 * to whatever already answers there (another `npm start`'s Temporal dev server, for instance).
 */
export function isPortFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => (error.code === 'EADDRINUSE' ? resolve(false) : reject(error)));
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve(true)));
  });
}
