import fs from 'node:fs';
import net from 'node:net';
import { isPortFree } from './port-free';

/** The kernel's range for ports it hands out by itself (outgoing connections, `listen(0)`). */
function ephemeralRange(): [number, number] {
  try {
    const [low, high] = fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (Number.isInteger(low) && Number.isInteger(high) && low > 0 && high >= low) return [low, high];
  } catch {
    // not Linux: the IANA dynamic range
  }
  return [49152, 65535];
}

/**
 * Where picked ports come from: 10000–16999, above `npm start`'s defaults and below every topology
 * the tests and the bench start (their lowest port is 3000 + an offset of at least 14000:
 * test/system/chaos-short.test.ts from 14000, topology.test.ts and the bench from 21000), minus
 * whatever of it the ephemeral range covers. At least 1,000 ports, or none (then `listen(0)`).
 */
export function pickRange([low, high]: [number, number]): [number, number] | undefined {
  const from = 10_000;
  const to = 16_999;
  const below: [number, number] = [from, Math.min(to, low - 1)];
  const above: [number, number] = [Math.max(from, high + 1), to];
  for (const r of [below, above]) if (r[1] - r[0] + 1 >= 1_000) return r;
  return undefined;
}

function anyPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * A port free on 127.0.0.1 now, for a server that binds it later. Taken outside the kernel's
 * ephemeral range when it can be: a port from `listen(0)` is in that range, where any outgoing
 * connection made before the server binds can take it (EADDRINUSE in a loaded test run, where
 * `npm start` binds its ports seconds after they were picked). Falls back to `listen(0)`.
 */
export async function freePort(): Promise<number> {
  const range = pickRange(ephemeralRange());
  if (range) {
    for (let i = 0; i < 50; i++) {
      const port = range[0] + Math.floor(Math.random() * (range[1] - range[0] + 1));
      if (await isPortFree('127.0.0.1', port).catch(() => false)) return port;
    }
  }
  return anyPort();
}
