/**
 * The entry points (API `npm start`, the worker, the admin CLI) refuse unsafe settings at start-up
 * with one line on stderr and exit code 1, before they touch a database or Temporal: NODE_ENV=production
 * without DATABASE_URL or TEMPORAL_ADDRESS, the documented default SECRETS_KEY outside a local run,
 * and a TRUSTED_PROXIES that means nothing.
 */
import { execFile } from 'node:child_process';
import net from 'node:net';
import { freePort } from '../../src/support/free-port';
import path from 'node:path';
import { DOCUMENTED_DEFAULT_SECRETS_KEY } from '../../src/runtime/secrets-key';

const ROOT = path.resolve(__dirname, '../..');
/**
 * Each entry's node arguments. The worker and the CLI start from the suite's bundles of the same code
 * (TEST_WORKER_BUNDLE, TEST_CLI_BUNDLE: the integration global setup's; a third of tsx's start-up
 * CPU), else through tsx as npm scripts start them; the API through tsx, as `npm start` does.
 */
const viaBundle = (bundle: string | undefined, entry: string, args: string[] = []) => (bundle ? ['--enable-source-maps', bundle, ...args] : ['--import', 'tsx', entry, ...args]);
const ENTRIES = {
  api: ['--import', 'tsx', 'src/main.ts'],
  worker: viaBundle(process.env.TEST_WORKER_BUNDLE, 'workers/main.ts'),
  cli: viaBundle(process.env.TEST_CLI_BUNDLE, 'src/cli.ts', ['payments', 'stuck']),
} as const;
// Nothing listens here: a start-up that got past the checks would fail differently (and slowly).
const UNREACHABLE = { DATABASE_URL: 'postgres://app:pw@127.0.0.1:1/payments', TEMPORAL_ADDRESS: '127.0.0.1:1' };

function run(entry: readonly string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const base: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: path.join(ROOT, '.data-startup-test-unused'), RUN_WORKER: 'false', CODEC_PORT: '0' };
  return new Promise((resolve) => {
    execFile(process.execPath, [...entry], { cwd: ROOT, env: { ...base, ...env }, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr });
    });
  });
}

const oneLine = (stderr: string) => stderr.replace(/^error: /, '').trim();

describe.each(Object.entries(ENTRIES))('%s', (_name, entry) => {
  test('NODE_ENV=production without DATABASE_URL and TEMPORAL_ADDRESS: one clear line, exit 1', async () => {
    const r = await run(entry, { NODE_ENV: 'production', SECRETS_KEY: Buffer.alloc(32, 7).toString('base64') });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(oneLine(r.stderr)).toBe('NODE_ENV=production requires DATABASE_URL and TEMPORAL_ADDRESS (no embedded PostgreSQL or Temporal dev server in production)');
  });

  test('the documented default SECRETS_KEY with an external database: one clear line, exit 1', async () => {
    const r = await run(entry, { ...UNREACHABLE, NODE_ENV: 'production', SECRETS_KEY: DOCUMENTED_DEFAULT_SECRETS_KEY });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(oneLine(r.stderr)).toMatch(/^SECRETS_KEY is the documented default key, which is public: set your own/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).not.toContain(DOCUMENTED_DEFAULT_SECRETS_KEY);
  });
});

test('issue 47: TRUSTED_PROXIES that is neither a hop count nor proxy addresses stops `npm start` with one line, exit 1', async () => {
  const r = await run(ENTRIES.api, { ...UNREACHABLE, TRUSTED_PROXIES: '10.0.0.0/8, proxy.internal' });
  expect(r.code).toBe(1);
  expect(r.stdout).toBe('');
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  expect(oneLine(r.stderr)).toMatch(/^TRUSTED_PROXIES must be a hop count \(a whole number such as 1: trust the last hop of X-Forwarded-For\) or a comma-separated list of proxy addresses or CIDR blocks .*; "proxy\.internal" is not an IP address$/);
});

test('a second `npm start` beside a running one: one clear line per port in use (port, setting, what to do), exit 1, no stack trace', async () => {
  const [codecPort, sandboxPort, docsPort] = [await freePort(), await freePort(), await freePort()];
  const held = await Promise.all(
    [codecPort, sandboxPort, docsPort].map(
      (port) =>
        new Promise<net.Server>((resolve) => {
          const server = net.createServer();
          server.listen(port, '127.0.0.1', () => resolve(server));
        }),
    ),
  );
  try {
    const r = await run(ENTRIES.api, { ...UNREACHABLE, CODEC_PORT: String(codecPort), PORT: String(sandboxPort), LIVE_PORT: String(await freePort()), METRICS_PORT: '0', DOCS_PORT: String(docsPort) });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(`port ${sandboxPort} on 127.0.0.1 (the sandbox API, PORT) is in use`);
    expect(r.stderr).toContain(`port ${codecPort} on 127.0.0.1 (the Temporal UI codec endpoint, CODEC_PORT) is in use`);
    // Issue 47: the reference site's own port too.
    expect(r.stderr).toContain(`port ${docsPort} on 127.0.0.1 (the reference site, DOCS_PORT) is in use`);
    expect(r.stderr).toMatch(/another `npm start` is probably running\. Stop it/);
    expect(r.stderr).not.toMatch(/EADDRINUSE|\n\s+at /);
  } finally {
    await Promise.all(held.map((s) => new Promise((resolve) => s.close(resolve))));
  }
});
