import http from 'node:http';
import net from 'node:net';
import { Client as PgClient } from 'pg';

/** Whether something accepts a TCP connection on host:port within `timeoutMs`. */
export function tcpAnswers(port: number, host = '127.0.0.1', timeoutMs = 1_000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** The status of GET url (0 when nothing answers within `timeoutMs`). */
export function httpStatus(url: string, timeoutMs = 3_000): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get(url, { timeout: timeoutMs, agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
  });
}

/** Whether PostgreSQL answers `select 1` (it accepts TCP before it accepts queries). */
export async function postgresAnswers(url: string, timeoutMs = 2_000): Promise<boolean> {
  const client = new PgClient({ connectionString: url, connectionTimeoutMillis: timeoutMs, query_timeout: timeoutMs });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}
