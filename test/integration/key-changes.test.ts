import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../src/http/app';
import { hashSecret } from '../../src/persistence/merchants/merchant-store';
import type { Resolver } from '../../src/webhooks/url-policy';
import { startHarness, type Harness } from '../support/harness';
import { userInfo } from 'node:os';
import { cliEnv, execCli } from '../support/run-cli';

/**
 * Issue 20, "Keys": `keys roll` (a new secret with the same scopes, the old one until its expiry, at
 * most 7 days), `keys revoke` (401 at once, in every API process), `keys list` (never a secret), and
 * an audit row for every key change and every webhook endpoint change, through the operators' audit
 * path (`audit list`).
 */

const resolve: Resolver = async (host) => {
  if (host === 'hooks.example.com') return ['93.184.216.34'];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
};

let h: Harness;
let second: { url: string; close(): Promise<void> };

beforeAll(async () => {
  h = await startHarness({ worker: false, resolve });
  // A second API app on its own listener: another API process as far as keys go (revocation and
  // expiry are read from the database on every request; nothing about a known key is cached).
  const server = http.createServer(createApp(h.deps, { environment: 'sandbox', bodyLimitBytes: 64 * 1024 }).callback());
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  second = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((ok) => server.close(() => ok())) };
});
afterAll(async () => {
  await second?.close();
  await h?.close();
});

async function cli<T = any>(...args: string[]): Promise<T> {
  const r = await execCli(args, cliEnv(h.taskQueue));
  expect({ args, code: r.code, stderr: r.stderr }).toEqual({ args, code: 0, stderr: '' });
  return JSON.parse(r.stdout) as T;
}

async function cliError(...args: string[]): Promise<string> {
  const r = await execCli(args, cliEnv(h.taskQueue));
  expect({ args, code: r.code, stdout: r.stdout }).toEqual({ args, code: 1, stdout: '' });
  return r.stderr;
}

const balances = (key: string) => h.request('sandbox', 'GET', '/v1/balances', { key });
const balancesOnSecond = async (key: string) => (await fetch(`${second.url}/v1/balances`, { headers: { authorization: `Bearer ${key}` } })).status;

test('keys roll: a new secret with the same scopes; the old one works until its expiry, then 401', async () => {
  const m = await cli('merchants', 'create', '--name', 'Roll Co');
  const key = await cli('keys', 'create', '--merchant', m.id, '--env', 'test', '--scopes', 'balances:read,events:read');

  const rolled = await cli('keys', 'roll', key.id);
  expect(Object.keys(rolled).sort()).toEqual(['id', 'previous_expires_at', 'scopes', 'secret']);
  expect(rolled.id).not.toBe(key.id);
  expect(rolled.secret).toMatch(/^svc_test_[0-9A-Za-z]{32}$/);
  expect(rolled.scopes).toEqual(['balances:read', 'events:read']);
  // Default overlap: 24 hours.
  expect(Math.abs(Date.parse(rolled.previous_expires_at) - (Date.now() + 24 * 3600_000))).toBeLessThan(60_000);
  expect((await balances(key.secret)).status).toBe(200);
  expect((await balances(rolled.secret)).status).toBe(200);
  // Same scopes: what the old key could not do, the new one cannot either.
  expect((await h.request('sandbox', 'GET', '/v1/charges', { key: rolled.secret })).json.error.code).toBe('insufficient_scope');

  // A short overlap ends the old key; the new one keeps working.
  const again = await cli('keys', 'roll', rolled.id, '--expires-in', '1s');
  expect((await balances(rolled.secret)).status).toBe(200);
  await new Promise((r) => setTimeout(r, 1500));
  expect((await balances(rolled.secret)).json.error.code).toBe('invalid_api_key');
  expect(await balancesOnSecond(rolled.secret)).toBe(401);
  expect((await balances(again.secret)).status).toBe(200);
});

test('keys roll refuses what it cannot do, and changes nothing', async () => {
  const m = await cli('merchants', 'create', '--name', 'Roll Refusals');
  const key = await cli('keys', 'create', '--merchant', m.id, '--env', 'live');
  const before = (await cli('keys', 'list', '--merchant', m.id)).data.length;
  expect(await cliError('keys', 'roll', key.id, '--expires-in', '8d')).toMatch(/at most 7d/);
  expect(await cliError('keys', 'roll', key.id, '--expires-in', 'tomorrow')).toMatch(/duration/);
  expect(await cliError('keys', 'roll', 'key_doesnotexist00000000000')).toMatch(/does not exist/);
  const rolled = await cli('keys', 'roll', key.id, '--expires-in', '7d');
  expect(await cliError('keys', 'roll', key.id)).toMatch(/already rolled to key_/);
  await cli('keys', 'revoke', rolled.id);
  expect(await cliError('keys', 'roll', rolled.id)).toMatch(/revoked/);
  expect((await cli('keys', 'list', '--merchant', m.id)).data.length).toBe(before + 1);
});

test('keys revoke: 401 at once on every API process, even for a key inside its roll overlap', async () => {
  const m = await cli('merchants', 'create', '--name', 'Revoke Co');
  expect((await balances(m.test_key)).status).toBe(200);
  expect(await balancesOnSecond(m.test_key)).toBe(200);
  const list = await cli('keys', 'list', '--merchant', m.id);
  const testKeyId = list.data.find((k: { environment: string }) => k.environment === 'sandbox').id;
  const rolled = await cli('keys', 'roll', testKeyId, '--expires-in', '7d');

  await cli('keys', 'revoke', testKeyId, '--reason', 'leaked in a log');
  expect((await balances(m.test_key)).status).toBe(401);
  expect(await balancesOnSecond(m.test_key)).toBe(401);
  expect((await balances(rolled.secret)).status).toBe(200);
  expect(await balancesOnSecond(rolled.secret)).toBe(200);
});

test('keys list: id, prefix, scopes, created, last used, expiry; never a secret or its hash', async () => {
  const m = await cli('merchants', 'create', '--name', 'List Co');
  const extra = await cli('keys', 'create', '--merchant', m.id, '--env', 'test', '--scopes', 'charges:read');
  expect((await balances(m.test_key)).status).toBe(200);
  const rolled = await cli('keys', 'roll', extra.id, '--expires-in', '2h');

  const list = await cli('keys', 'list', '--merchant', m.id);
  expect(list.object).toBe('list');
  expect(list.data).toHaveLength(4);
  for (const k of list.data) {
    expect(Object.keys(k).sort()).toEqual(['created_at', 'environment', 'expires_at', 'id', 'last4', 'last_used_at', 'prefix', 'revoked_at', 'rolled_to', 'scopes', 'status']);
  }
  const text = JSON.stringify(list);
  for (const secret of [m.test_key, m.live_key, extra.secret, rolled.secret]) {
    expect(text).not.toContain(secret);
    expect(text).not.toContain(hashSecret(secret));
    expect(text).not.toContain(secret.slice(9, 25));
  }
  const byId = new Map(list.data.map((k: { id: string }) => [k.id, k]));
  const old = byId.get(extra.id) as Record<string, unknown>;
  expect(old).toMatchObject({ prefix: 'svc_test_', last4: extra.secret.slice(-4), scopes: ['charges:read'], status: 'expiring', rolled_to: rolled.id, revoked_at: null });
  expect(Math.abs(Date.parse(old.expires_at as string) - (Date.now() + 2 * 3600_000))).toBeLessThan(60_000);
  expect(byId.get(rolled.id)).toMatchObject({ status: 'active', expires_at: null, last_used_at: null });
  // The sandbox key was used just now: last_used_at is set (written off the request's path).
  const used = list.data.find((k: { environment: string; scopes: string[] }) => k.environment === 'sandbox' && k.scopes.length > 1);
  expect(used.last_used_at).not.toBeNull();
  expect(Math.abs(Date.parse(used.last_used_at) - Date.now())).toBeLessThan(60_000);
  expect(await cliError('keys', 'list')).toMatch(/--merchant is required/);
});

test('every key change writes an audit row: who, why, before and after, never a secret', async () => {
  const m = await cli('merchants', 'create', '--name', 'Audit Keys');
  const key = await cli('keys', 'create', '--merchant', m.id, '--env', 'test', '--scopes', 'balances:read', '--reason', 'reporting job');
  const rolled = await cli('keys', 'roll', key.id, '--expires-in', '1h', '--operator', 'alice');
  await cli('keys', 'revoke', rolled.id, '--reason', 'job retired');

  const rows = async (subject: string) => (await cli('audit', 'list', '--payment', subject)).data;
  const created = await rows(key.id);
  expect(created.map((r: { action: string }) => r.action).sort()).toEqual(['api_key.create', 'api_key.roll']);
  const create = created.find((r: { action: string }) => r.action === 'api_key.create');
  expect(create).toMatchObject({ operator: `cli:${userInfo().username}`, reason: 'reporting job', merchant_id: m.id, environment: 'sandbox', state_before: null });
  expect(create.state_after).toMatchObject({ scopes: ['balances:read'], revoked_at: null });
  const roll = created.find((r: { action: string }) => r.action === 'api_key.roll');
  expect(roll).toMatchObject({ operator: 'alice', reason: 'npm run cli -- keys roll' });
  expect(roll.state_before.rolled_to).toBeNull();
  expect(roll.state_after.rolled_to).toBe(rolled.id);
  expect(roll.state_after.new_key.id).toBe(rolled.id);

  const revoked = await rows(rolled.id);
  expect(revoked.map((r: { action: string }) => r.action).sort()).toEqual(['api_key.revoke']);
  expect(revoked[0]).toMatchObject({ reason: 'job retired', state_before: { revoked_at: null } });
  expect(revoked[0].state_after.revoked_at).not.toBeNull();
  // merchants create wrote one row per key it issued; a second revoke writes none.
  await cli('keys', 'revoke', rolled.id);
  expect(await rows(rolled.id)).toHaveLength(1);
  expect((await cli('audit', 'list', '--action', 'api_key.create', '--limit', '100')).data.filter((r: { merchant_id: string }) => r.merchant_id === m.id)).toHaveLength(3);

  const text = JSON.stringify([created, revoked]);
  for (const secret of [key.secret, rolled.secret]) {
    expect(text).not.toContain(secret);
    expect(text).not.toContain(hashSecret(secret));
  }
});

test('every webhook endpoint change through the API writes an audit row naming the key and the request', async () => {
  const m = await h.merchant();
  const keyId = (await cli('keys', 'list', '--merchant', m.id)).data.find((k: { environment: string }) => k.environment === 'sandbox').id;
  const created = await h.request('sandbox', 'POST', '/v1/webhook-endpoints', { key: m.testKey, body: { url: 'https://hooks.example.com/a', subscribed_events: ['transaction.succeeded'] } });
  expect(created.status).toBe(201);
  const id = created.json.id;
  const patched = await h.request('sandbox', 'PATCH', `/v1/webhook-endpoints/${id}`, { key: m.testKey, body: { status: 'disabled', description: 'paused' } });
  const rotated = await h.request('sandbox', 'POST', `/v1/webhook-endpoints/${id}/rotate-secret`, { key: m.testKey });
  const deleted = await h.request('sandbox', 'DELETE', `/v1/webhook-endpoints/${id}`, { key: m.testKey });
  expect([patched.status, rotated.status, deleted.status]).toEqual([200, 200, 200]);
  // A refused change (unknown endpoint) writes nothing.
  expect((await h.request('sandbox', 'PATCH', `/v1/webhook-endpoints/${id}`, { key: m.testKey, body: { description: 'x' } })).status).toBe(404);

  const rows = (await cli('audit', 'list', '--payment', id)).data.reverse();
  expect(rows.map((r: { action: string }) => r.action)).toEqual(['webhook_endpoint.create', 'webhook_endpoint.update', 'webhook_endpoint.rotate_secret', 'webhook_endpoint.delete']);
  const requests = [created, patched, rotated, deleted];
  rows.forEach((r: Record<string, any>, i: number) => {
    expect(r).toMatchObject({ operator: `api_key:${keyId}`, merchant_id: m.id, environment: 'sandbox', request_id: requests[i].headers.get('request-id') });
  });
  expect(rows.map((r: { reason: string }) => r.reason)).toEqual([
    'POST /v1/webhook-endpoints',
    `PATCH /v1/webhook-endpoints/${id}`,
    `POST /v1/webhook-endpoints/${id}/rotate-secret`,
    `DELETE /v1/webhook-endpoints/${id}`,
  ]);
  expect(rows[0].state_before).toBeNull();
  expect(rows[0].state_after).toMatchObject({ url: 'https://hooks.example.com/a', status: 'active', subscribed_events: ['transaction.succeeded'] });
  expect(rows[1].state_before).toMatchObject({ status: 'active', description: null });
  expect(rows[1].state_after).toMatchObject({ status: 'disabled', description: 'paused' });
  expect(rows[3].state_after).toBeNull();
  const text = JSON.stringify(rows);
  expect(text).not.toContain(created.json.secret);
  expect(text).not.toContain(rotated.json.secret);
  expect(text).not.toContain('whsec_');
});
