import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { request, type Agent } from 'undici';
import { createSafeAgent, UnsafeAddressError } from '../../src/webhooks/safe-agent';
import {
  checkWebhookUrl,
  exemptHost,
  isPublicAddress,
  systemResolver,
  UnsafeUrlError,
  type Resolver,
  type UrlPolicy,
} from '../../src/webhooks/url-policy';

const LIVE: UrlPolicy = { environment: 'live', allowPrivateHosts: [], allowHttp: false };
const SANDBOX: UrlPolicy = { environment: 'sandbox', allowPrivateHosts: [], allowHttp: false };
const DEV: UrlPolicy = { environment: 'sandbox', allowPrivateHosts: ['127.0.0.1', 'localhost'], allowHttp: true };

const FAKE_DNS: Record<string, string[]> = {
  'public.example': ['93.184.216.34'],
  'dual.example': ['2606:4700:4700::1111', '93.184.216.34'],
  'rebind.example': ['93.184.216.34', '10.0.0.5'],
  'metadata.example': ['169.254.169.254'],
  'v6private.example': ['2606:4700:4700::1111', 'fd12::1'],
  'mapped.example': ['::ffff:127.0.0.1'],
};

/** Fake answers for the made-up names; every other name (localhost) goes to the real system resolver. */
const fakeResolver: Resolver = async (hostname) => {
  if (hostname === 'nowhere.example') throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  if (hostname === 'empty.example') return [];
  return FAKE_DNS[hostname] ?? systemResolver(hostname);
};

const REFUSED: [string, string][] = [
  ['http://127.0.0.1', 'plain http, loopback'],
  ['https://127.0.0.1', 'loopback'],
  ['https://2130706433/', 'decimal loopback'],
  ['https://0177.0.0.1/', 'octal loopback'],
  ['https://0x7f.0.0.1/', 'hex loopback'],
  ['https://0x7f000001/', 'hex loopback, one number'],
  ['https://127.1/', 'short loopback'],
  ['https://%31%32%37.0.0.1/', 'percent-encoded loopback'],
  ['https://[::1]/', 'IPv6 loopback'],
  ['https://[::ffff:127.0.0.1]/', 'IPv4-mapped loopback, dotted'],
  ['https://[::ffff:7f00:1]/', 'IPv4-mapped loopback, hex'],
  ['https://[::ffff:10.0.0.1]/', 'IPv4-mapped private'],
  ['https://[::127.0.0.1]/', 'IPv4-compatible loopback'],
  ['https://0.0.0.0/', 'unspecified'],
  ['https://0/', 'unspecified, one number'],
  ['https://0.1.2.3/', 'this network 0.0.0.0/8'],
  ['https://169.254.169.254/latest/meta-data', 'cloud metadata (link-local)'],
  ['https://10.0.0.1', 'private 10/8'],
  ['https://172.16.5.4', 'private 172.16/12'],
  ['https://192.168.1.1', 'private 192.168/16'],
  ['https://100.64.0.1', 'carrier-grade NAT'],
  ['https://224.0.0.1', 'multicast'],
  ['https://255.255.255.255', 'broadcast'],
  ['https://240.0.0.1', 'reserved'],
  ['https://192.0.2.1', 'documentation TEST-NET-1'],
  ['https://198.51.100.7', 'documentation TEST-NET-2'],
  ['https://203.0.113.9', 'documentation TEST-NET-3'],
  ['https://198.18.0.1', 'benchmarking'],
  ['https://[fd00::1]/', 'unique local fd00::/8'],
  ['https://[fc00::1]/', 'unique local fc00::/8'],
  ['https://[fe80::1]/', 'IPv6 link-local'],
  ['https://[fec0::1]/', 'IPv6 site-local (deprecated)'],
  ['https://[ff02::1]/', 'IPv6 multicast'],
  ['https://[::]/', 'IPv6 unspecified'],
  ['https://[64:ff9b::7f00:1]/', 'NAT64 of loopback'],
  ['https://[2002:7f00:1::]/', '6to4'],
  ['https://[2001::1]/', 'Teredo'],
  ['https://[2001:db8::1]/', 'IPv6 documentation 2001:db8::/32'],
  ['https://[3fff::1]/', 'IPv6 documentation 3fff::/20'],
  ['https://localhost/', 'name resolving to loopback (system resolver)'],
  ['https://LOCALHOST./', 'name resolving to loopback, upper case with trailing dot'],
  ['https://metadata.example/', 'name resolving to link-local'],
  ['https://rebind.example/', 'name with one private address among public ones'],
  ['https://v6private.example/', 'name with one unique-local IPv6 address'],
  ['https://mapped.example/', 'name resolving to IPv4-mapped loopback'],
  ['https://nowhere.example/', 'name that does not resolve'],
  ['https://empty.example/', 'name with no addresses'],
  ['https://user:pass@example.com/', 'userinfo'],
  ['https://user@public.example/', 'user name only'],
  ['ftp://x.com', 'ftp scheme'],
  ['javascript:alert(1)', 'javascript scheme'],
  ['file:///etc/passwd', 'file scheme'],
  ['not-a-url', 'not a URL'],
  ['', 'empty string'],
  ['http://public.example/hook', 'plain http to a public host'],
  [`https://public.example/${'a'.repeat(2048)}`, 'longer than 2048 characters'],
];

describe('isPublicAddress', () => {
  test.each([
    ['93.184.216.34', true],
    ['8.8.8.8', true],
    ['2606:4700:4700::1111', true],
    ['[2606:4700:4700::1111]', true],
    ['::ffff:93.184.216.34', true],
    ['127.0.0.1', false],
    ['0.0.0.0', false],
    ['0.255.255.255', false],
    ['::ffff:7f00:1', false],
    ['::ffff:0:7f00:1', false],
    ['::7f00:1', false],
    ['5f00::1', false],
    ['2606:4700:4700::1111%eth0', false],
    ['127.1', false],
    ['2130706433', false],
    ['1.2.3', false],
    ['example.com', false],
    ['', false],
  ])('%s → %s', (ip, expected) => {
    expect(isPublicAddress(ip)).toBe(expected);
  });
});

describe('checkWebhookUrl', () => {
  const shown = REFUSED.map(([url, why]) => [url.length > 80 ? `${url.slice(0, 40)}…` : url, why, url]);
  test.each(shown)('refuses %s (%s)', async (_shown, _why, url) => {
    await expect(checkWebhookUrl(url, LIVE, fakeResolver)).rejects.toThrow(UnsafeUrlError);
    await expect(checkWebhookUrl(url, SANDBOX, fakeResolver)).rejects.toThrow(UnsafeUrlError);
  });

  test('has at least 30 refused forms', () => {
    expect(REFUSED.length).toBeGreaterThanOrEqual(30);
  });

  test.each([
    ['https://93.184.216.34/hook', 'https://93.184.216.34/hook'],
    ['https://[2606:4700:4700::1111]/', 'https://[2606:4700:4700::1111]/'],
    ['https://public.example/x', 'https://public.example/x'],
    ['https://PUBLIC.example:8443/a?b=c', 'https://public.example:8443/a?b=c'],
    ['https://dual.example/', 'https://dual.example/'],
  ])('accepts %s as %s', async (url, normalised) => {
    await expect(checkWebhookUrl(url, LIVE, fakeResolver)).resolves.toBe(normalised);
  });

  test('refusal messages say why and do not echo the path, query or credentials', async () => {
    await expect(checkWebhookUrl('https://user:s3cret@public.example/', LIVE, fakeResolver)).rejects.toThrow(/user name or password/);
    await expect(checkWebhookUrl('https://10.0.0.1/hook?token=s3cret', LIVE, fakeResolver)).rejects.toThrow(/not a public/);
    await expect(checkWebhookUrl('http://public.example/', LIVE, fakeResolver)).rejects.toThrow(/https/);
    await expect(checkWebhookUrl('https://nowhere.example/', LIVE, fakeResolver)).rejects.toThrow(/does not resolve/);
    const error = await checkWebhookUrl('https://rebind.example/hook?token=s3cret', LIVE, fakeResolver).catch((e: Error) => e);
    expect(error).toBeInstanceOf(UnsafeUrlError);
    expect((error as Error).message).not.toMatch(/s3cret|token/);
  });

  test('live URLs use port 443, 8443 or 1024 and up; the sandbox takes any port', async () => {
    for (const url of ['https://public.example:22/', 'https://public.example:25/x', 'https://public.example:80/', 'https://public.example:1023/', 'https://93.184.216.34:6/']) {
      await expect(checkWebhookUrl(url, LIVE, fakeResolver)).rejects.toThrow('live webhook URLs must use port 443, 8443 or 1024 and above');
      await expect(checkWebhookUrl(url, SANDBOX, fakeResolver)).resolves.toBe(new URL(url).href);
    }
    for (const url of ['https://public.example/', 'https://public.example:443/', 'https://public.example:8443/', 'https://public.example:1024/', 'https://public.example:65535/']) {
      await expect(checkWebhookUrl(url, LIVE, fakeResolver)).resolves.toBe(new URL(url).href);
    }
  });

  test('sandbox exemptions: http to an exempt host when allowed', async () => {
    await expect(checkWebhookUrl('http://127.0.0.1:8080/x', DEV, fakeResolver)).resolves.toBe('http://127.0.0.1:8080/x');
    await expect(checkWebhookUrl('http://localhost:3000/hook', DEV, fakeResolver)).resolves.toBe('http://localhost:3000/hook');
  });

  test('the same exemptions do nothing in live', async () => {
    const live: UrlPolicy = { ...DEV, environment: 'live' };
    await expect(checkWebhookUrl('http://127.0.0.1:8080/x', live, fakeResolver)).rejects.toThrow(UnsafeUrlError);
    await expect(checkWebhookUrl('https://127.0.0.1:8080/x', live, fakeResolver)).rejects.toThrow(UnsafeUrlError);
    await expect(checkWebhookUrl('https://localhost/x', live, fakeResolver)).rejects.toThrow(UnsafeUrlError);
  });

  test('without allowHttp an exempt host still needs https', async () => {
    const noHttp: UrlPolicy = { ...DEV, allowHttp: false };
    await expect(checkWebhookUrl('http://127.0.0.1', noHttp, fakeResolver)).rejects.toThrow(/https/);
    await expect(checkWebhookUrl('https://127.0.0.1', noHttp, fakeResolver)).resolves.toBe('https://127.0.0.1/');
  });

  test('an exemption is for the exact host only', async () => {
    await expect(checkWebhookUrl('http://127.0.0.2', DEV, fakeResolver)).rejects.toThrow(UnsafeUrlError);
    await expect(checkWebhookUrl('https://127.0.0.2', DEV, fakeResolver)).rejects.toThrow(UnsafeUrlError);
    await expect(checkWebhookUrl('https://10.0.0.1', DEV, fakeResolver)).rejects.toThrow(UnsafeUrlError);
    await expect(checkWebhookUrl('http://sub.localhost/', DEV, fakeResolver)).rejects.toThrow(UnsafeUrlError);
    await expect(checkWebhookUrl('http://user:pass@127.0.0.1:8080/', DEV, fakeResolver)).rejects.toThrow(UnsafeUrlError);
  });

  test('exemptHost applies only in sandbox, to exact names, brackets and case aside', () => {
    const v6: UrlPolicy = { environment: 'sandbox', allowPrivateHosts: ['::1', 'receiver'], allowHttp: false };
    expect(exemptHost(v6, '[::1]')).toBe(true);
    expect(exemptHost(v6, 'Receiver')).toBe(true);
    expect(exemptHost(v6, 'receiver.local')).toBe(false);
    expect(exemptHost({ ...v6, environment: 'live' }, '[::1]')).toBe(false);
    expect(exemptHost(v6, '')).toBe(false);
  });

  test('the system resolver answers localhost with a loopback address', async () => {
    const addresses = await systemResolver('localhost');
    expect(addresses.length).toBeGreaterThan(0);
    expect(addresses.some((a) => a === '127.0.0.1' || a === '::1')).toBe(true);
  });
});

interface Target {
  port: number;
  connections: number;
  requests: { url: string; host: string | undefined }[];
  close(): Promise<void>;
}

async function startServer(handler: (res: http.ServerResponse) => void = (res) => res.end('ok')): Promise<Target> {
  const server = http.createServer((req, res) => {
    target.requests.push({ url: req.url ?? '', host: req.headers.host });
    handler(res);
  });
  const target: Target = {
    port: 0,
    connections: 0,
    requests: [],
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
  server.on('connection', () => target.connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  target.port = (server.address() as AddressInfo).port;
  return target;
}

describe('createSafeAgent', () => {
  let target: Target;
  const agents: Agent[] = [];
  const agent = (policy: UrlPolicy, resolve?: Resolver): Agent => {
    const created = createSafeAgent(policy, { resolve, connectTimeoutMs: 2000 });
    agents.push(created);
    return created;
  };

  beforeEach(async () => {
    target = await startServer();
  });

  afterEach(async () => {
    await Promise.all(agents.splice(0).map((a) => a.destroy()));
    await target.close();
  });

  test('refuses an IP-literal loopback host the policy does not exempt; nothing reaches the server', async () => {
    const dispatcher = agent(LIVE);
    const sent = request(`http://127.0.0.1:${target.port}/`, { dispatcher });
    await expect(sent).rejects.toThrow(UnsafeAddressError);
    await expect(request(`http://127.0.0.1:${target.port}/`, { dispatcher })).rejects.toThrow(/not a public internet address/);
    expect(target.connections).toBe(0);
    expect(target.requests).toEqual([]);
  });

  test('DNS rebinding: a name that passed registration but now resolves to loopback is refused at connect', async () => {
    let lookups = 0;
    const rebinding: Resolver = async (hostname) => {
      if (hostname !== 'rebind.test') throw new Error('ENOTFOUND');
      return lookups++ === 0 ? ['93.184.216.34'] : ['127.0.0.1'];
    };
    await expect(checkWebhookUrl('https://rebind.test/hook', LIVE, rebinding)).resolves.toBe('https://rebind.test/hook');
    const sent = request(`http://rebind.test:${target.port}/`, { dispatcher: agent(LIVE, rebinding) });
    await expect(sent).rejects.toThrow(UnsafeAddressError);
    expect(lookups).toBe(2);
    expect(target.connections).toBe(0);
  });

  test('refuses a name when any one of its addresses is private, before connecting anywhere; the message names no resolved address', async () => {
    const mixed: Resolver = async () => ['93.184.216.34', '127.0.0.1'];
    const error = await request(`http://mixed.test:${target.port}/`, { dispatcher: agent(SANDBOX, mixed) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnsafeAddressError);
    expect((error as Error).message).toBe('the host does not resolve to a public internet address; webhook sends to it are refused');
    expect((error as Error).message).not.toMatch(/127\.0\.0\.1|93\.184/);
    // The detail is for the server's log.
    expect((error as UnsafeAddressError).detail).toEqual({ host: 'mixed.test', address: '127.0.0.1' });
    expect(target.connections).toBe(0);
  });

  test('live sends reach only ports 443, 8443 and 1024 and up: others are refused before any lookup', async () => {
    let lookups = 0;
    const counting: Resolver = async () => {
      lookups++;
      return ['93.184.216.34'];
    };
    for (const port of [22, 25, 80, 1023]) {
      const error = await request(`https://public.test:${port}/`, { dispatcher: agent(LIVE, counting) }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UnsafeAddressError);
      expect((error as Error).message).toBe('live webhook sends go only to port 443, 8443 or 1024 and above');
    }
    expect(lookups).toBe(0);
    // The sandbox is unchanged: any port (here an exempt local receiver on its ephemeral port, and port 80 refused only for its address).
    const response = await request(`http://127.0.0.1:${target.port}/`, { dispatcher: agent(DEV) });
    expect(response.statusCode).toBe(200);
    await response.body.dump();
    await expect(request('http://public.test:80/', { dispatcher: agent(SANDBOX, async () => ['10.0.0.1']) })).rejects.toThrow(/does not resolve to a public/);
  });

  test('a name that does not resolve fails the send', async () => {
    const none: Resolver = async () => [];
    await expect(request(`http://gone.test:${target.port}/`, { dispatcher: agent(LIVE, none) })).rejects.toThrow(/does not resolve/);
    expect(target.connections).toBe(0);
  });

  test('an exempt host in sandbox is reached', async () => {
    const response = await request(`http://127.0.0.1:${target.port}/hook`, { dispatcher: agent(DEV) });
    expect(response.statusCode).toBe(200);
    expect(await response.body.text()).toBe('ok');
    expect(target.requests).toEqual([{ url: '/hook', host: `127.0.0.1:${target.port}` }]);
  });

  test('the same exemption lists do nothing in live', async () => {
    await expect(request(`http://127.0.0.1:${target.port}/`, { dispatcher: agent({ ...DEV, environment: 'live' }) })).rejects.toThrow(
      UnsafeAddressError,
    );
    expect(target.connections).toBe(0);
  });

  test('IPv6 literal hosts (bracketed by undici) are checked and, when exempt, reached', async () => {
    const v6 = http.createServer((_req, res) => res.end('v6'));
    await new Promise<void>((resolve) => v6.listen(0, '::1', resolve));
    const port = (v6.address() as AddressInfo).port;
    let connections = 0;
    v6.on('connection', () => connections++);
    try {
      await expect(request(`http://[::1]:${port}/`, { dispatcher: agent(LIVE) })).rejects.toThrow(UnsafeAddressError);
      expect(connections).toBe(0);
      const exempt: UrlPolicy = { environment: 'sandbox', allowPrivateHosts: ['::1'], allowHttp: true };
      const response = await request(`http://[::1]:${port}/`, { dispatcher: agent(exempt) });
      expect(await response.body.text()).toBe('v6');
    } finally {
      v6.closeAllConnections();
      await new Promise((resolve) => v6.close(resolve));
    }
  });

  test('connects to the address the resolver gave, keeping the host name in the Host header', async () => {
    const resolver: Resolver = async (hostname) => (hostname === 'hook.test' ? ['127.0.0.1'] : []);
    const policy: UrlPolicy = { environment: 'sandbox', allowPrivateHosts: ['hook.test'], allowHttp: true };
    const response = await request(`http://hook.test:${target.port}/h`, { dispatcher: agent(policy, resolver) });
    expect(response.statusCode).toBe(200);
    await response.body.dump();
    expect(target.requests).toEqual([{ url: '/h', host: `hook.test:${target.port}` }]);
  });

  test('https keeps the original host name as TLS servername (SNI) while connecting to the checked address', async () => {
    const hello = new Promise<Buffer>((resolve) => {
      const raw = net.createServer((socket) => socket.once('data', (chunk: Buffer) => {
        resolve(chunk);
        socket.destroy();
      }));
      raw.listen(0, '127.0.0.1', () => {
        const { port } = raw.address() as AddressInfo;
        const resolver: Resolver = async () => ['127.0.0.1'];
        const policy: UrlPolicy = { environment: 'sandbox', allowPrivateHosts: ['sni.test'], allowHttp: false };
        request(`https://sni.test:${port}/`, { dispatcher: agent(policy, resolver) }).catch(() => undefined).finally(() => raw.close());
      });
    });
    expect((await hello).includes(Buffer.from('sni.test'))).toBe(true);
  });

  test('redirects are not followed', async () => {
    const elsewhere = await startServer();
    const redirecting = await startServer((res) => {
      res.writeHead(302, { location: `http://127.0.0.1:${elsewhere.port}/landed` });
      res.end();
    });
    try {
      const response = await request(`http://127.0.0.1:${redirecting.port}/`, { dispatcher: agent(DEV) });
      expect(response.statusCode).toBe(302);
      expect(response.headers.location).toBe(`http://127.0.0.1:${elsewhere.port}/landed`);
      await response.body.dump();
      expect(redirecting.requests).toHaveLength(1);
      expect(elsewhere.connections).toBe(0);
    } finally {
      await Promise.all([elsewhere.close(), redirecting.close()]);
    }
  });
});
