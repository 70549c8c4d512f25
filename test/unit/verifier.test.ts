import { createHmac } from 'node:crypto';
import {
  computeSignature,
  DEFAULT_TOLERANCE_SECONDS,
  verifyWebhook,
  WebhookVerificationError,
  type WebhookVerificationReason,
} from '../../src/verifier';
import { startTestReceiver } from '../support/webhook-receiver';

const SECRET = 'whsec_current';
const OLD_SECRET = 'whsec_previous';
const NOW_MS = 1_790_000_000_000;
const TS = String(NOW_MS / 1000);
const BODY =
  '{"id":"evt_1","object":"event","type":"transaction.succeeded","resource_type":"transaction","resource_id":"txn_1",' +
  '"transaction_id":"txn_1","sequence":7,"created_at":"2026-09-21T00:00:00.000Z","data":{"id":"txn_1","note":"Ama Mensah – ₵"}}';
const now = () => NOW_MS;

function headers(signature: string, timestamp = TS): Record<string, string> {
  return { 'x-service-signature': signature, 'x-service-timestamp': timestamp, 'x-service-event-id': 'evt_1' };
}

function reasonOf(fn: () => unknown): WebhookVerificationReason | 'passed' {
  try {
    fn();
    return 'passed';
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error.reason;
    throw error;
  }
}

describe('computeSignature', () => {
  test('is v1= and the lowercase hex HMAC-SHA256 of timestamp "." body', () => {
    const expected = createHmac('sha256', SECRET).update(`${TS}.${BODY}`, 'utf8').digest('hex');
    expect(computeSignature(SECRET, TS, BODY)).toBe(`v1=${expected}`);
    expect(computeSignature(SECRET, TS, Buffer.from(BODY))).toBe(`v1=${expected}`);
  });
});

describe('verifyWebhook', () => {
  const sig = computeSignature(SECRET, TS, BODY);
  const oldSig = computeSignature(OLD_SECRET, TS, BODY);

  test('a valid single signature returns the parsed event', () => {
    const event = verifyWebhook(Buffer.from(BODY), headers(sig), { secrets: SECRET, now });
    expect(event).toEqual(JSON.parse(BODY));
    expect(event.sequence).toBe(7);
  });

  test('rotation: two elements, only the second matches the secret → accepted', () => {
    expect(reasonOf(() => verifyWebhook(BODY, headers(`${sig},${oldSig}`), { secrets: OLD_SECRET, now }))).toBe('passed');
  });

  test('whitespace around the comma-separated elements is ignored', () => {
    expect(reasonOf(() => verifyWebhook(BODY, headers(`  ${oldSig} ,   ${sig}  `), { secrets: SECRET, now }))).toBe('passed');
  });

  test('unknown schemes are skipped', () => {
    expect(reasonOf(() => verifyWebhook(BODY, headers(`v2=abc,${sig}`), { secrets: SECRET, now }))).toBe('passed');
  });

  test('a tampered body matches no signature', () => {
    const tampered = BODY.replace('"sequence":7', '"sequence":8');
    expect(reasonOf(() => verifyWebhook(tampered, headers(sig), { secrets: SECRET, now }))).toBe('no_matching_signature');
  });

  test('the timestamp is signed too', () => {
    const later = String(Number(TS) + 1);
    expect(reasonOf(() => verifyWebhook(BODY, headers(sig, later), { secrets: SECRET, now }))).toBe('no_matching_signature');
  });

  test('a wrong secret matches no signature', () => {
    expect(reasonOf(() => verifyWebhook(BODY, headers(sig), { secrets: 'whsec_other', now }))).toBe('no_matching_signature');
  });

  test('several secrets: any of them may match', () => {
    expect(reasonOf(() => verifyWebhook(BODY, headers(oldSig), { secrets: ['whsec_other', OLD_SECRET], now }))).toBe('passed');
    expect(reasonOf(() => verifyWebhook(BODY, headers(sig), { secrets: ['whsec_a', 'whsec_b'], now }))).toBe('no_matching_signature');
  });

  test(`timestamp tolerance is ${DEFAULT_TOLERANCE_SECONDS} s either way`, () => {
    const at = (seconds: number) => {
      const ts = String(Number(TS) + seconds);
      return reasonOf(() => verifyWebhook(BODY, headers(computeSignature(SECRET, ts, BODY), ts), { secrets: SECRET, now }));
    };
    expect(at(-299)).toBe('passed');
    expect(at(-300)).toBe('passed');
    expect(at(-301)).toBe('timestamp_out_of_tolerance');
    expect(at(299)).toBe('passed');
    expect(at(301)).toBe('timestamp_out_of_tolerance');
  });

  test('toleranceSeconds overrides the default', () => {
    const ts = String(Number(TS) - 61);
    const h = headers(computeSignature(SECRET, ts, BODY), ts);
    expect(reasonOf(() => verifyWebhook(BODY, h, { secrets: SECRET, now, toleranceSeconds: 60 }))).toBe('timestamp_out_of_tolerance');
    expect(reasonOf(() => verifyWebhook(BODY, h, { secrets: SECRET, now, toleranceSeconds: 120 }))).toBe('passed');
  });

  test('the real clock is used by default', () => {
    const ts = String(Math.floor(Date.now() / 1000));
    expect(reasonOf(() => verifyWebhook(BODY, headers(computeSignature(SECRET, ts, BODY), ts), { secrets: SECRET }))).toBe('passed');
    expect(reasonOf(() => verifyWebhook(BODY, headers(sig), { secrets: SECRET }))).toBe('timestamp_out_of_tolerance');
  });

  test('missing headers', () => {
    expect(reasonOf(() => verifyWebhook(BODY, { 'x-service-timestamp': TS }, { secrets: SECRET, now }))).toBe('missing_header');
    expect(reasonOf(() => verifyWebhook(BODY, { 'x-service-signature': sig }, { secrets: SECRET, now }))).toBe('missing_header');
    expect(reasonOf(() => verifyWebhook(BODY, headers(''), { secrets: SECRET, now }))).toBe('missing_header');
    expect(reasonOf(() => verifyWebhook(BODY, {}, { secrets: SECRET, now }))).toBe('missing_header');
  });

  test.each([
    ['no v1= element', sig.slice(3)],
    ['only another scheme', sig.replace('v1=', 'v0=')],
    ['non-hex value', `v1=${'z'.repeat(64)}`],
    ['short value', sig.slice(0, 40)],
    ['empty value', 'v1='],
    ['only commas', ' , ,'],
  ])('malformed signature header: %s', (_name, value) => {
    expect(reasonOf(() => verifyWebhook(BODY, headers(value), { secrets: SECRET, now }))).toBe('malformed_header');
  });

  const badTimestamps = [['fraction', `${TS}.5`], ['negative', `-${TS}`], ['not a number', 'yesterday'], ['hex', '0x6a']];
  test.each(badTimestamps)('malformed timestamp: %s', (_name, ts) => {
    const h = headers(computeSignature(SECRET, ts, BODY), ts);
    expect(reasonOf(() => verifyWebhook(BODY, h, { secrets: SECRET, now }))).toBe('malformed_header');
  });

  test('header names are case-insensitive, in a plain object and in a Headers instance', () => {
    const mixed = { 'X-Service-Signature': sig, 'X-SERVICE-TIMESTAMP': TS };
    expect(reasonOf(() => verifyWebhook(BODY, mixed, { secrets: SECRET, now }))).toBe('passed');
    const fetchHeaders = new Headers({ 'X-Service-Signature': `${oldSig}, ${sig}`, 'X-Service-Timestamp': TS });
    expect(reasonOf(() => verifyWebhook(BODY, fetchHeaders, { secrets: SECRET, now }))).toBe('passed');
  });

  test('a repeated signature header (array value, as node:http may give it) is read as one list', () => {
    const h = { 'x-service-signature': [oldSig, sig], 'x-service-timestamp': TS };
    expect(reasonOf(() => verifyWebhook(BODY, h, { secrets: SECRET, now }))).toBe('passed');
  });

  test('a signed body that is not an event is refused', () => {
    const body = '{"hello":"world"}';
    const h = headers(computeSignature(SECRET, TS, body));
    expect(reasonOf(() => verifyWebhook(body, h, { secrets: SECRET, now }))).toBe('malformed_payload');
  });

  test('no usable secret is a programming error', () => {
    expect(() => verifyWebhook(BODY, headers(sig), { secrets: [], now })).toThrow(TypeError);
    expect(() => verifyWebhook(BODY, headers(sig), { secrets: '', now })).toThrow(TypeError);
  });
});

describe('the test receiver and src/verifier agree', () => {
  test('validFor lists the secrets that made each signature, and the verifier accepts the same delivery', async () => {
    const receiver = await startTestReceiver();
    try {
      receiver.setSecrets([OLD_SECRET, SECRET]);
      const ts = String(Math.floor(Date.now() / 1000));
      const signature = [SECRET, 'whsec_unknown', OLD_SECRET].map((s) => computeSignature(s, ts, BODY)).join(', ');
      const res = await fetch(receiver.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-signature': signature, 'x-service-timestamp': ts },
        body: BODY,
      });
      expect(res.status).toBe(200);
      expect(await res.text()).toBe('ok');

      const [d] = await receiver.waitFor((ds) => ds.length === 1);
      expect(d.body).toBe(BODY);
      expect(d.signatures).toHaveLength(3);
      expect(d.validFor).toEqual([SECRET, OLD_SECRET]);
      expect(verifyWebhook(d.body, d.headers, { secrets: SECRET }).id).toBe('evt_1');
      expect(verifyWebhook(d.body, d.headers, { secrets: OLD_SECRET }).id).toBe('evt_1');
      expect(reasonOf(() => verifyWebhook(d.body, d.headers, { secrets: 'whsec_other' }))).toBe('no_matching_signature');

      await fetch(receiver.url, { method: 'POST', headers: { 'x-service-signature': 'v1=00', 'x-service-timestamp': ts }, body: BODY });
      const ds = await receiver.waitFor((all) => all.length === 2);
      expect(ds[1].validFor).toEqual([]);
    } finally {
      await receiver.close();
    }
  });

  test('waitFor times out with a description of what arrived; close() does not wait for a slow response', async () => {
    const receiver = await startTestReceiver();
    receiver.respond(() => ({ status: 200, delayMs: 60_000 }));
    const pending = fetch(receiver.url, { method: 'POST', body: BODY }).then(() => 'answered', () => 'dropped');
    await receiver.waitFor((ds) => ds.length === 1);
    await expect(receiver.waitFor((ds) => ds.length === 2, 50))
      .rejects.toThrow(/within 50 ms; received 1:\n {2}#0: transaction.succeeded evt_1 seq 7/);
    const started = Date.now();
    await receiver.close();
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await pending).toBe('dropped');
  });
});
