/**
 * The topology's link (src/topology/link.ts), the chaos run's partition: it relays both ways; while
 * partitioned nothing passes and nothing is refused or closed (a connection made meanwhile is held);
 * healed, what waited arrives and the held connection is relayed. Real sockets on loopback.
 */
import net from 'node:net';
import { startLink, type Link } from '../../src/topology/link';

let echo: net.Server;
let link: Link;
let port = 0;

beforeAll(async () => {
  echo = net.createServer((s) => s.pipe(s));
  await new Promise<void>((r) => echo.listen(0, '127.0.0.1', () => r()));
  const target = (echo.address() as net.AddressInfo).port;
  // A free port for the link's listener.
  const probe = net.createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
  port = (probe.address() as net.AddressInfo).port;
  await new Promise<void>((r) => probe.close(() => r()));
  link = await startLink(port, { host: '127.0.0.1', port: target });
});

afterAll(async () => {
  await link.close();
  await new Promise<void>((r) => echo.close(() => r()));
});

/** A client on the link collecting what comes back. */
async function client(): Promise<{ socket: net.Socket; received: () => string; closed: () => boolean }> {
  const socket = net.connect(port, '127.0.0.1');
  await new Promise<void>((r) => socket.once('connect', () => r()));
  let data = '';
  let closed = false;
  socket.on('data', (d) => (data += d.toString())).on('close', () => (closed = true));
  return { socket, received: () => data, closed: () => closed };
}

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(fn: () => boolean, ms = 2_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (fn()) return true;
    await wait(10);
  }
  return fn();
}

test('relays, holds everything while partitioned without refusing or closing, and delivers it once healed', async () => {
  const a = await client();
  a.socket.write('before;');
  expect(await until(() => a.received() === 'before;')).toBe(true);

  link.partition();
  a.socket.write('during;');
  const b = await client(); // accepted (a black hole refuses nothing), held
  b.socket.write('held;');
  await wait(300);
  expect({ a: a.received(), b: b.received(), closed: a.closed() || b.closed(), partitioned: link.partitioned }).toEqual({ a: 'before;', b: '', closed: false, partitioned: true });

  link.heal();
  expect(await until(() => a.received() === 'before;during;' && b.received() === 'held;')).toBe(true);
  expect(link.connections()).toBe(2);
  a.socket.destroy();
  b.socket.destroy();
  expect(await until(() => link.connections() === 0)).toBe(true);
});
