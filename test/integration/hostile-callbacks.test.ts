/**
 * Hostile bodies on the partner's callback route (issue 32, "Hostile bodies and headers"; the live
 * listener's `/partner/momo/callbacks/{product}/{referenceId}`, src/http/routes/partner-callbacks.ts).
 * A callback is a wake-up whose body is never acted on, and every callback is answered 200 with an
 * empty body whatever it says (the partner reads nothing of it). A hostile body is the exception: it is
 * refused before the token is even looked at, with a 4xx in the API's envelope, and claims no signal.
 * - over 16 KiB: 413; not UTF-8, nested deeper than 32, a duplicate key, a `__proto__` or
 *   `constructor` key, an integer beyond 2^53: 400;
 * - the callback's own numbers are the partner's, not the API's fields: a `1.5` is not refused;
 * - any other body that is not a transaction status is still `malformed`: 200, ignored.
 * Slow bodies on this route: hostile-connections.test.ts.
 */
import { callbackToken } from '../../src/rail/momo-callback';
import { expectError } from '../support/api-errors';
import { startHarness, type ApiResponse, type Harness } from '../support/harness';

const SECRET = 'hostile-callbacks-secret';
/** A reference no payment carries: a genuine token for it passes verification, and the route answers `unknown_reference`. */
const REFERENCE = '6f1d7a2e-3b4c-4d5e-8f60-718293a4b5c6';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ worker: false, partnerCallbacks: { callbackSecret: SECRET } });
});
afterAll(() => h?.close());

const signals = async () => Number((await h.orm.em.getConnection().execute<{ n: number }[]>('select coalesce(sum(signals), 0)::int as n from partner_callback_signals'))[0].n);

async function put(body: string | Buffer, token: string | null = callbackToken(SECRET, 'collection', REFERENCE)): Promise<ApiResponse> {
  const query = token === null ? '' : `?token=${token}`;
  const res = await fetch(`${h.urls.live}/partner/momo/callbacks/collection/${REFERENCE}${query}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json } as ApiResponse;
}

const status = (extra = '') => `{"externalId":"x","amount":"100","currency":"GHS","financialTransactionId":"1","status":"SUCCESSFUL"${extra}}`;

test.each([
  ['a body over 16 KiB', status(`,"pad":"${'x'.repeat(17 * 1024)}"`), 413, 'request_too_large', null],
  ['a byte 0xFF', Buffer.concat([Buffer.from(status(',"note":"')), Buffer.from([0xff]), Buffer.from('"}')]), 400, 'invalid_request', null],
  ['nesting 5,000 deep (within 16 KiB)', status(`,"x":${'['.repeat(5_000)}${']'.repeat(5_000)}`), 400, 'invalid_request', null],
  ['status given twice (FAILED, then SUCCESSFUL)', '{"status":"FAILED","externalId":"x","status":"SUCCESSFUL"}', 400, 'invalid_request', 'status'],
  ['a __proto__ key', status(',"__proto__":{"status":"SUCCESSFUL"}'), 400, 'invalid_request', '__proto__'],
  ['a constructor key', status(',"reason":{"constructor":{"prototype":{}}}'), 400, 'invalid_request', 'reason.constructor'],
  ['an integer beyond 2^53', status(',"financialTransactionId":12345678901234567890'), 400, 'invalid_request', 'financialTransactionId'],
] as const)('%s: refused in the envelope, no signal claimed', async (_name, body, code, errorCode, param) => {
  const before = await signals();
  const res = await put(body);
  expectError(res, code, errorCode, param);
  expect(await signals()).toBe(before);
  expect(({} as Record<string, unknown>).status).toBeUndefined();
});

test('the refusal comes before the token: a forged token with a hostile body gets the same 400', async () => {
  const res = await put('{"status":"FAILED","status":"SUCCESSFUL"}', 'not-the-token');
  expectError(res, 400, 'invalid_request', 'status');
});

test('what is not hostile is answered as before: 200 and an empty body (a genuine status, a float, a body that is no status)', async () => {
  for (const body of [status(), status(',"fee":1.5'), '{"not":"a status"}', 'not json at all', '']) {
    const res = await put(body);
    expect({ body, status: res.status, text: res.text }).toEqual({ body, status: 200, text: '' });
  }
});
