/**
 * `npm run topology` (src/topology/, docs/deployment.md) with `--temporal dev` (the CLI's dev server:
 * no Go build needed), in a folder of its own and on its own ports (a port offset), as `npm run chaos`
 * drives it:
 * - `up` returns once every piece is healthy; the status has each piece's pid, port and health;
 * - a sandbox charge made through the proxy's sandbox port succeeds (two workers, Worker Versioning on);
 * - SIGKILL to api-1 and worker-1: the supervisor starts them again (restarts 1, new pids, healthy),
 *   and reads through the proxy keep answering 200 meanwhile (the other API takes them);
 * - `down` leaves no process of the topology and no port open.
 * The server mode (the built Temporal server) needs `bash scripts/install-temporal-server.sh`, which
 * CI does not run: it is walked by hand in docs/deployment.md.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isPortFree } from '../../src/support/port-free';
import { topologyDown, topologyStatus, topologyUp, type TopologyState } from '../../src/topology';
import { allPorts, topologyPorts } from '../../src/topology/ports';
import { isAlive } from '../../src/topology/state';
import { chargeBody, idempotencyKey } from '../support/harness';
import { temporalCliPath } from '../support/binaries';

let dir: string;

/** The first port offset whose every port is free (another topology, npm start or a test may hold the default ones). */
async function freeOffset(): Promise<number> {
  for (let offset = 21_000; offset <= 24_500; offset += 500) {
    const ports = allPorts(topologyPorts(offset), 'dev');
    const free = await Promise.all(ports.map((p) => isPortFree('127.0.0.1', p)));
    if (free.every(Boolean)) return offset;
  }
  throw new Error('no port offset from 21000 to 24500 has every topology port free');
}

const piece = (state: TopologyState, name: string) => {
  const found = state.pieces.find((p) => p.name === name);
  if (!found) throw new Error(`no piece ${name} in ${JSON.stringify(state.pieces.map((p) => p.name))}`);
  return found;
};

async function until<T>(what: string, timeoutMs: number, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'payments-topology-'));
  if (process.getuid?.() === 0) fs.chmodSync(dir, 0o711);
  // The dev server's binary: the test fails, naming the install, when it is missing.
  process.env.TEMPORAL_CLI_PATH = temporalCliPath();
});

afterAll(async () => {
  await topologyDown(dir).catch(() => undefined);
  fs.rmSync(dir, { recursive: true, force: true });
});

test('up (dev): every piece healthy; a charge through the proxy; api-1 and worker-1 SIGKILLed come back while reads keep answering; down leaves nothing', async () => {
  const offset = await freeOffset();
  const ports = topologyPorts(offset);
  const { state: upState } = await topologyUp({ temporal: 'dev', dir, portOffset: offset, timeoutMs: 200_000 });
  expect(upState.ready).toBe(true);

  const status = (await topologyStatus(dir))!;
  expect(status.pieces.map((p) => p.name).sort()).toEqual(['api-1', 'api-2', 'fake-aggregator', 'fake-partner', 'proxy', 'service-postgres', 'temporal', 'temporal-ui', 'worker-1', 'worker-2']);
  for (const p of status.pieces) expect({ name: p.name, health: p.health, pid: typeof p.pid, restarts: p.restarts }).toEqual({ name: p.name, health: 'ok', pid: 'number', restarts: 0 });
  expect(piece(status, 'temporal')).toMatchObject({ kind: 'dev', version: '1.32.0', port: ports.temporal });
  expect(piece(status, 'proxy').port).toBe(ports.sandbox);
  expect(status.temporal_address).toBe(`127.0.0.1:${ports.temporal}`);

  const key = (JSON.parse(fs.readFileSync(path.join(dir, 'demo-merchant.json'), 'utf8')) as { test_key: string }).test_key;
  const api = (method: string, route: string, body?: unknown) =>
    fetch(`http://127.0.0.1:${ports.sandbox}${route}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...(body ? { 'idempotency-key': idempotencyKey() } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
  const chargeSucceeds = async (reference: string) => {
    const created = await api('POST', '/v1/charges', chargeBody({ reference }));
    expect(created.status).toBe(200);
    const id = ((await created.json()) as { id: string }).id;
    return until(`charge ${id} succeeded`, 30_000, async () => {
      const res = await api('GET', `/v1/charges/${id}`);
      const charge = (await res.json()) as { status: string };
      return charge.status === 'succeeded' ? charge.status : undefined;
    });
  };
  expect(await chargeSucceeds('topology-1')).toBe('succeeded');

  // SIGKILL an API process and a worker; reads keep going through the proxy meanwhile.
  const killed = { api: piece(status, 'api-1').pid!, worker: piece(status, 'worker-1').pid! };
  process.kill(killed.api, 'SIGKILL');
  process.kill(killed.worker, 'SIGKILL');
  const readStatuses: number[] = [];
  const back = await until('api-1 and worker-1 restarted and healthy', 90_000, async () => {
    readStatuses.push((await api('GET', '/v1/balances')).status);
    const now = await topologyStatus(dir);
    const [a, w] = [piece(now!, 'api-1'), piece(now!, 'worker-1')];
    return a.health === 'ok' && w.health === 'ok' && a.restarts >= 1 && w.restarts >= 1 ? now : undefined;
  });
  expect(piece(back, 'api-1').pid).not.toBe(killed.api);
  expect(piece(back, 'worker-1').pid).not.toBe(killed.worker);
  expect(isAlive(killed.api) || isAlive(killed.worker)).toBe(false);
  for (const p of back.pieces) expect({ name: p.name, health: p.health }).toEqual({ name: p.name, health: 'ok' });
  expect(readStatuses.length).toBeGreaterThan(3);
  expect(readStatuses.filter((s) => s !== 200)).toEqual([]);
  expect(await chargeSucceeds('topology-2')).toBe('succeeded');

  // down: the supervisor and every piece gone, every port closed.
  const pids = [back.supervisor.pid, ...back.pieces.map((p) => p.pid!)];
  const { stopped } = await topologyDown(dir);
  expect(stopped).toBe(new Set(back.pieces.map((p) => p.pid)).size);
  expect(pids.filter(isAlive)).toEqual([]);
  const open = [];
  for (const port of allPorts(ports, 'dev')) if (!(await isPortFree('127.0.0.1', port))) open.push(port);
  expect(open).toEqual([]);
  expect(await topologyStatus(dir)).toBeUndefined();
}, 360_000);
