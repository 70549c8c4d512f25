/**
 * Personal data in Temporal history: a charge run through the real dev server leaves no customer
 * name, identifier, description or metadata in clear in its history (read with a client that has no
 * codec, as anyone with access to the Temporal server or its database would); the codec endpoint
 * the Temporal UI calls decodes those payloads for an operator, for the UI's origin only.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { loadConfig } from '../../src/config';
import { startCodecServer, type CodecServer } from '../../src/runtime/codec-server';
import { CODEC_TOKEN_FILE, codecToken } from '../../src/runtime/codec-token';
import { freePort } from '../../src/support/free-port';
import { ENCRYPTED_ENCODING } from '../../src/temporal/payload-codec';
import { startDevServer } from '../../src/temporal/dev-server';
import { StartupError } from '../../src/support/startup-error';
import { temporalCliPath } from '../support/binaries';
import { chargeBody, idempotencyKey, startHarness, type Harness, SANDBOX_QUEUES } from '../support/harness';
import { testPayloadCodec } from '../support/payload-codec';

const UI_ORIGIN = 'http://127.0.0.1:8233';
const NAME = 'Efua Asantewaa-Boateng';
const IDENTIFIER = '233209876543';
const DESCRIPTION = 'Kente cloth, two yards';
const METADATA_VALUE = 'order-note-Zq81xT';
const TOKEN = 'codec-token-for-this-suite-0123456789';

let h: Harness;
let codec: CodecServer;
beforeAll(async () => {
  h = await startHarness({ queues: SANDBOX_QUEUES });
  codec = await startCodecServer({ codec: testPayloadCodec(), host: '127.0.0.1', port: 0, corsOrigins: [UI_ORIGIN], authToken: TOKEN });
});
afterAll(async () => {
  await codec?.close();
  await h?.close();
});

/** Every payload in a history (inputs, results, markers, ...). */
function payloadsOf(value: unknown, found: Payload[] = []): Payload[] {
  if (value === null || typeof value !== 'object' || ArrayBuffer.isView(value)) return found;
  const v = value as Record<string, unknown>;
  if (Array.isArray(v.payloads)) found.push(...(v.payloads as Payload[]));
  for (const child of Object.values(v)) payloadsOf(child, found);
  return found;
}

const b64 = (b: Uint8Array | null | undefined) => Buffer.from(b ?? new Uint8Array()).toString('base64');
const asJson = (p: Payload) => ({ metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, b64(v)])), data: b64(p.data) });

async function runCharge(): Promise<string> {
  const m = await h.merchant();
  const body = chargeBody({ customer: { identifier: IDENTIFIER, name: NAME }, description: DESCRIPTION, metadata: { note: METADATA_VALUE } });
  const created = await h.request('sandbox', 'POST', '/v1/charges', { key: m.testKey, body, headers: { 'Idempotency-Key': idempotencyKey() } });
  expect(created.status).toBe(200);
  const id = created.json.id as string;
  await h.settled(id);
  return id;
}

async function rawHistory(id: string) {
  // A client without the codec: what the Temporal server (and its database) holds.
  const bare = new Client({ connection: h.temporal.connection, namespace: 'default' });
  const history = await bare.workflow.getHandle(id).fetchHistory();
  return { bare, history, raw: Buffer.from(temporal.api.history.v1.History.encode(history).finish()) };
}

const isEncrypted = (p: Payload) => Buffer.from(p.metadata?.encoding ?? []).toString() === ENCRYPTED_ENCODING;

async function decodeThroughEndpoint(payloads: Payload[]): Promise<{ values: unknown[]; json: Array<{ metadata: Record<string, string>; data: string }> }> {
  // The Temporal UI's call: POST <its codec endpoint>/decode (the token as the path) from its origin, base64 JSON payloads.
  const response = await fetch(`${codec.uiEndpoint}/decode`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: UI_ORIGIN, 'x-namespace': 'default' },
    body: JSON.stringify({ payloads: payloads.map(asJson) }),
  });
  expect(response.status).toBe(200);
  expect(response.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN);
  const json = ((await response.json()) as { payloads: Array<{ metadata: Record<string, string>; data: string }> }).payloads;
  expect(json).toHaveLength(payloads.length);
  const values = json.map((p) =>
    defaultPayloadConverter.fromPayload({ metadata: Object.fromEntries(Object.entries(p.metadata).map(([k, v]) => [k, Buffer.from(v, 'base64')])), data: Buffer.from(p.data, 'base64') }),
  );
  return { values, json };
}

test('a charge run through the dev server: every payload of its history is encrypted, none of its data in clear; the codec endpoint decodes them', async () => {
  const id = await runCharge();
  const { bare, history, raw } = await rawHistory(id);
  // (Search attribute values such as PaymentStatus stay readable by design: they are not payloads.)
  for (const secret of [NAME, 'Asantewaa', IDENTIFIER, DESCRIPTION, METADATA_VALUE, '"currency":"GHS"', '"amount":15000']) {
    expect({ secret, inHistory: raw.includes(Buffer.from(secret)) }).toEqual({ secret, inHistory: false });
  }
  const payloads = payloadsOf(history);
  const encrypted = payloads.filter(isEncrypted);
  expect(encrypted.length).toBeGreaterThan(0);
  // Only core's own marker data is left unencoded: local-activity markers (activity type, attempt,
  // times) and patch markers (the patch id).
  for (const p of payloads.filter((q) => !isEncrypted(q))) {
    const keys = Object.keys(JSON.parse(Buffer.from(p.data ?? []).toString()));
    expect(keys.includes('activity_type') || (keys.includes('id') && keys.includes('deprecated'))).toBe(true);
  }
  // What a client without the codec cannot read, the service's own client can.
  await expect(bare.workflow.getHandle(id).result()).rejects.toThrow();
  expect(await h.temporal.client.workflow.getHandle(id).result()).toMatchObject({ id, status: 'succeeded' });

  const { values, json } = await decodeThroughEndpoint(encrypted);
  const text = JSON.stringify(values);
  expect(text).toContain(`"chargeId":"${id}"`);
  expect(text).toContain('"currency":"GHS"');

  // /encode is the inverse.
  const encoded = await fetch(`${codec.uiEndpoint}/encode`, { method: 'POST', headers: { origin: UI_ORIGIN }, body: JSON.stringify({ payloads: json }) });
  const back = ((await encoded.json()) as { payloads: Array<{ metadata: Record<string, string> }> }).payloads;
  expect(Buffer.from(back[0].metadata.encoding, 'base64').toString()).toBe(ENCRYPTED_ENCODING);
});

test('personal data given to any workflow through the service client is not in history in clear, and decodes for the operator', async () => {
  // A workflow input carrying a customer (as a future payment type's might): started on a queue no
  // worker polls, so only the start event holds it.
  const workflowId = `pii-${Date.now()}`;
  const handle = await h.temporal.client.workflow.start('chargeWorkflow', {
    workflowId,
    taskQueue: `nobody-${workflowId}`,
    args: [{ chargeId: workflowId, customer: { name: NAME, identifier: IDENTIFIER }, description: DESCRIPTION, metadata: { note: METADATA_VALUE } }],
  });
  try {
    const { history, raw } = await rawHistory(workflowId);
    for (const secret of [NAME, IDENTIFIER, DESCRIPTION, METADATA_VALUE]) {
      expect({ secret, inHistory: raw.includes(Buffer.from(secret)) }).toEqual({ secret, inHistory: false });
    }
    const input = history.events![0].workflowExecutionStartedEventAttributes!.input!.payloads!;
    expect(input.every(isEncrypted)).toBe(true);
    const { values } = await decodeThroughEndpoint(input);
    expect(values[0]).toMatchObject({ customer: { name: NAME, identifier: IDENTIFIER }, description: DESCRIPTION, metadata: { note: METADATA_VALUE } });
  } finally {
    await handle.terminate('test done');
  }
});

test('the codec endpoint answers CORS for the UI origin only, and refuses malformed bodies', async () => {
  const preflight = await fetch(`${codec.url}/decode`, { method: 'OPTIONS', headers: { origin: UI_ORIGIN, 'access-control-request-method': 'POST' } });
  expect(preflight.status).toBe(204);
  expect(preflight.headers.get('access-control-allow-origin')).toBe(UI_ORIGIN);
  expect(preflight.headers.get('access-control-allow-headers')).toMatch(/X-Namespace/);

  const evil = await fetch(`${codec.url}/decode`, { method: 'POST', headers: { origin: 'https://evil.example' }, body: JSON.stringify({ payloads: [] }) });
  expect(evil.status).toBe(403);
  expect(evil.headers.get('access-control-allow-origin')).toBeNull();

  for (const body of ['not json', '{"payloads":"x"}', '{"payloads":[{"data":5}]}']) {
    const bad = await fetch(`${codec.uiEndpoint}/decode`, { method: 'POST', headers: { origin: UI_ORIGIN }, body });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: string } }).error.code).toMatch(/invalid_/);
  }
  expect((await fetch(`${codec.url}/other`, { method: 'POST', body: '{}' })).status).toBe(404);
  expect((await fetch(`${codec.url}/decode`)).status).toBe(405);
});

test('issue 47: every call needs the token, loopback callers included (bearer header or the path the UI is given); a non-loopback address needs CODEC_AUTH_TOKEN', async () => {
  const [encrypted] = await testPayloadCodec().encode([defaultPayloadConverter.toPayload({ customer: { name: NAME } })]);
  const body = JSON.stringify({ payloads: [asJson(encrypted!)] });
  const post = (url: string, headers: Record<string, string> = {}) => fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
  // A local process on 127.0.0.1 without the token: 401, nothing decoded.
  for (const refused of [
    await post(`${codec.url}/decode`),
    await post(`${codec.url}/encode`),
    await post(`${codec.url}/decode`, { authorization: 'Bearer codec-token-for-this-suite-012345678X' }),
    await post(`${codec.url}/decode`, { authorization: `Basic ${TOKEN}` }),
    await post(`${codec.url}/wrong-token/decode`),
    await post(`${codec.url}/${TOKEN}x/decode`),
    await post(`${codec.url}/${TOKEN}/decode`, { origin: 'https://evil.example' }),
  ]) {
    expect(refused.status).toBeGreaterThanOrEqual(401);
    expect(refused.status).toBeLessThanOrEqual(403);
    expect(await refused.text()).not.toContain(NAME);
  }
  expect((await post(`${codec.url}/decode`)).status).toBe(401);
  // With it, either way: decoded.
  for (const allowed of [await post(`${codec.url}/decode`, { authorization: `Bearer ${TOKEN}` }), await post(`${codec.uiEndpoint}/decode`)]) {
    expect(allowed.status).toBe(200);
    const [decoded] = ((await allowed.json()) as { payloads: Array<{ metadata: Record<string, string>; data: string }> }).payloads;
    expect(Buffer.from(decoded!.data, 'base64').toString()).toContain(NAME);
  }
  expect(codec.uiEndpoint).toBe(`${codec.url}/${TOKEN}`);

  expect(() => startCodecServer({ codec: testPayloadCodec(), host: '127.0.0.1', port: 0, corsOrigins: [], authToken: '' })).toThrow(StartupError);
  // Off loopback a generated token is not enough (a remote UI must be configured with the operator's own).
  expect(() => startCodecServer({ codec: testPayloadCodec(), host: '0.0.0.0', port: 0, corsOrigins: [], authToken: TOKEN })).toThrow(StartupError);
});

test('issue 47: npm start generates the token when CODEC_AUTH_TOKEN is unset, into DATA_DIR/codec-token (mode 0600), a new one each start; CODEC_AUTH_TOKEN is used as given', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'codec-token-'));
  try {
    const config = loadConfig({ DATA_DIR: dataDir });
    const first = codecToken(config);
    expect(first.fromSettings).toBe(false);
    expect(first.token).toMatch(/^[0-9a-f]{64}$/);
    expect(first.file).toBe(path.join(dataDir, CODEC_TOKEN_FILE));
    expect(fs.readFileSync(first.file!, 'utf8').trim()).toBe(first.token);
    expect(fs.statSync(first.file!).mode & 0o777).toBe(0o600);
    const second = codecToken(config);
    expect(second.token).not.toBe(first.token);
    expect(fs.readFileSync(first.file!, 'utf8').trim()).toBe(second.token);
    expect(codecToken(loadConfig({ DATA_DIR: dataDir, CODEC_AUTH_TOKEN: TOKEN }))).toEqual({ token: TOKEN, fromSettings: true });
    expect(() => loadConfig({ CODEC_AUTH_TOKEN: 'short' })).toThrow(/CODEC_AUTH_TOKEN must be at least 16/);
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

test('the dev server of npm start points its Web UI at the codec endpoint (--ui-codec-endpoint)', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'codec-ui-'));
  const server = await startDevServer({ dataDir, cliPath: temporalCliPath(), port: await freePort(), uiPort: await freePort(), persistent: false, uiCodecEndpoint: codec.uiEndpoint });
  try {
    const settings = (await (await fetch(`${server.uiUrl}/api/v1/settings`)).json()) as { Codec?: { Endpoint?: string } };
    expect(settings.Codec?.Endpoint).toBe(codec.uiEndpoint);
    // What the UI's browser does with it: POST <endpoint>/decode, which the token in the path lets through.
    const res = await fetch(`${settings.Codec!.Endpoint}/decode`, { method: 'POST', headers: { origin: UI_ORIGIN }, body: JSON.stringify({ payloads: [] }) });
    expect(res.status).toBe(200);
  } finally {
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
