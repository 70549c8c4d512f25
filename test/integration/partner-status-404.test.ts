/**
 * Issue 43 (Medium: "any 404 is unknown, whatever its body"): the live rail's adapter against the fake
 * partner over real HTTP, through a small proxy in front of it that answers some status requests
 * with a 404 of its own (a proxy's HTML page, an empty body), as a misrouted or misconfigured hop
 * does. Only the partner's own RESOURCE_NOT_FOUND is `unknown`; the proxy's 404s are no answer
 * (RailUnavailable, retried: the engine keeps asking), with the body's first bytes in the message
 * and the log. No database and no Temporal are used here.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes, randomUUID } from 'node:crypto';
import { startFakePartner, type FakePartner } from '../../src/rail/fake-partner';
import { MomoPartnerRail } from '../../src/rail/momo-adapter';
import { RailUnavailable } from '../../src/rail/partner-rail';

let fake: FakePartner;
let proxy: http.Server;
let rail: MomoPartnerRail;
const warnings: Array<{ fields: unknown; message: string }> = [];
/** Reference → what the proxy answers to its status request instead of the partner. */
const intercepted = new Map<string, { contentType?: string; body: string }>();

beforeAll(async () => {
  fake = await startFakePartner({ approveAfterMs: 200 });
  const target = new URL(fake.url);
  proxy = http.createServer((req, res) => {
    const reference = decodeURIComponent((req.url ?? '').split('/').pop() ?? '');
    const own = req.method === 'GET' ? intercepted.get(reference) : undefined;
    if (own) {
      res.writeHead(404, { ...(own.contentType ? { 'content-type': own.contentType } : {}), 'content-length': Buffer.byteLength(own.body) }).end(own.body);
      req.resume();
      return;
    }
    const forward = http.request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const config = fake.partnerConfig({ callbackBaseUrl: 'http://127.0.0.1:9', callbackSecret: randomBytes(32).toString('base64url'), timeoutMs: 2_500 });
  rail = new MomoPartnerRail({ ...config, baseUrl: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}` }, { logger: { warn: (fields: unknown, message: string) => void warnings.push({ fields, message }) } as never });
});

afterAll(async () => {
  await rail?.close();
  await new Promise((resolve) => (proxy ? proxy.close(resolve) : resolve(undefined)));
  await fake?.close();
});

test("the partner's own 404 (RESOURCE_NOT_FOUND) through the proxy is unknown", async () => {
  expect(await rail.status('collection', randomUUID())).toEqual({ status: 'unknown' });
});

test.each([
  ["a proxy's HTML page", { contentType: 'text/html', body: '<html><body><h1>404 Not Found</h1><p>nginx</p></body></html>' }, /body starts "<html><body><h1>404 Not Found<\/h1>/],
  ['an empty 404', { body: '' }, /empty body/],
])('%s for a reference the partner keeps is no answer (RailUnavailable), never unknown', async (_what, own, says) => {
  const referenceId = randomUUID();
  expect(await rail.submit('disbursement', { referenceId, amount: 1_000, currency: 'GHS', externalId: `po_${referenceId.slice(0, 8)}`, party: { partyIdType: 'MSISDN', partyId: '233240000004' }, message: 'test' })).toEqual({ kind: 'accepted' });
  intercepted.set(referenceId, own);
  const error = await rail.status('disbursement', referenceId).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(RailUnavailable);
  expect(error).toMatchObject({ status: 404, retryable: true });
  expect((error as Error).message).toMatch(says);
  expect((error as Error).message).toMatch(/does not say the partner does not know the reference/);
  expect(warnings.some((w) => says.test(w.message))).toBe(true);
  // The partner itself still has it: once the proxy steps aside, the status is the partner's.
  intercepted.delete(referenceId);
  expect((await rail.status('disbursement', referenceId)).status).toBe('pending');
});
