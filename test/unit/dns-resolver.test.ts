/**
 * The webhook resolver (src/webhooks/dns-resolver.ts): DNS through c-ares, against a real (local) name
 * server. Answers both families, treats a name without addresses as such, answers `localhost` without
 * DNS, gives up within its timeout on a dead name server, and keeps answering while libuv's thread pool
 * is saturated (dns.lookup, which the resolver used before, waits for a free thread).
 */
import { pbkdf2 } from 'node:crypto';
import { promises as dns } from 'node:dns';
import { createDnsResolver, createLookupResolver, isLocalhostName } from '../../src/webhooks/dns-resolver';
import { startFakeDns, type FakeDns } from '../support/fake-dns';

let fake: FakeDns;
beforeAll(async () => {
  fake = await startFakeDns(
    {
      'hook.example': ['93.184.216.34', '2606:4700:4700::1111'],
      'v4only.example': ['93.184.216.34'],
      'private.example': ['10.0.0.5'],
      'noaddress.example': [],
    },
    { silent: ['dead.example'] },
  );
});
afterAll(() => fake?.close());

test('answers A and AAAA records of a name from the name server', async () => {
  const resolve = createDnsResolver({ servers: [fake.server], timeoutMs: 2000 });
  expect(await resolve('hook.example')).toEqual(['93.184.216.34', '2606:4700:4700::1111']);
  expect(await resolve('v4only.example')).toEqual(['93.184.216.34']);
  expect(await resolve('private.example')).toEqual(['10.0.0.5']);
});

test('a name without addresses resolves to none; an unknown name to none', async () => {
  const resolve = createDnsResolver({ servers: [fake.server], timeoutMs: 2000 });
  expect(await resolve('noaddress.example')).toEqual([]);
  expect(await resolve('nowhere.example')).toEqual([]);
});

test('localhost names are loopback, without a query', async () => {
  const resolve = createDnsResolver({ servers: [fake.server], timeoutMs: 2000 });
  const before = fake.queries.length;
  expect(await resolve('localhost')).toEqual(['127.0.0.1', '::1']);
  expect(await resolve('LOCALHOST.')).toEqual(['127.0.0.1', '::1']);
  expect(await resolve('api.localhost')).toEqual(['127.0.0.1', '::1']);
  expect(fake.queries.length).toBe(before);
  expect(isLocalhostName('localhost.example')).toBe(false);
});

test('a dead name server: the lookup fails within its timeout', async () => {
  const resolve = createDnsResolver({ servers: [fake.server], timeoutMs: 400 });
  const started = Date.now();
  await expect(resolve('dead.example')).rejects.toThrow();
  expect(Date.now() - started).toBeLessThan(1500);
});

/** Occupies every thread of libuv's pool (4 unless UV_THREADPOOL_SIZE says otherwise) for a while. */
function saturateThreadPool(): { done: Promise<number> } {
  const threads = Number(process.env.UV_THREADPOOL_SIZE || 4);
  const jobs = Array.from({ length: threads }, () => new Promise<number>((resolve, reject) => pbkdf2('x', 'salt', 1_500_000, 64, 'sha512', (error) => (error ? reject(error) : resolve(Date.now())))));
  return { done: Promise.all(jobs).then((ends) => Math.min(...ends)) };
}

test('resolving holds no thread-pool thread: it answers while the pool is saturated (getaddrinfo waits)', async () => {
  const resolve = createDnsResolver({ servers: [fake.server], timeoutMs: 2000 });
  const pool = saturateThreadPool();
  const firstFree = pool.done;
  // dns.lookup (getaddrinfo) needs a pool thread: it answers only once one is free.
  const lookedUp = dns.lookup('localhost').then(() => Date.now());
  const resolvedAt = await resolve('hook.example').then(() => Date.now());
  const poolFreeAt = await firstFree;
  expect(resolvedAt).toBeLessThan(poolFreeAt);
  expect(await lookedUp).toBeGreaterThanOrEqual(poolFreeAt);
}, 60_000);

test('the exempt-host resolver uses getaddrinfo (so /etc/hosts), within its deadline', async () => {
  const addresses = await createLookupResolver(5000)('localhost');
  expect(addresses.some((a) => a === '127.0.0.1' || a === '::1')).toBe(true);
});
