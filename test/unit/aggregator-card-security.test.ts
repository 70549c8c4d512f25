import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { AggregatorRail } from '../../src/rail/aggregator/adapter';
import { AggregatorCards } from '../../src/rail/aggregator/card';
import { decryptCardPayload } from '../../src/rail/aggregator/card-crypto';
import type { AggregatorConfig } from '../../src/rail/aggregator/config';
import { card, cardRequest } from './aggregator-card-support';

/**
 * The card never leaks (docs/aggregator.md, "Cards"): against a broken aggregator that decrypts the
 * card and echoes it back in every way an answer can carry it, nothing the client throws, returns or
 * logs holds the card number or the CVV; and on the wire the card is in the encrypted body only.
 */
const KEY = 'EchoTestEncryptionKey024';
const CARD = card('4242', { cvv: '713' });
const DIGITS_GROUPED = CARD.number.replace(/(\d{4})(?=\d)/g, '$1 ');

type Echo = (payload: Record<string, unknown>, path: string) => { status: number; body: string; contentType?: string };
let echo: Echo = () => ({ status: 500, body: '' });
const seen: Array<{ method: string; url: string; headers: http.IncomingHttpHeaders; body: string }> = [];
let server: http.Server;
let config: AggregatorConfig;
const warnings: string[] = [];

beforeAll(async () => {
  let last: Record<string, unknown> = {};
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      if (req.method === 'POST' && req.url?.startsWith('/v3/charges')) last = (decryptCardPayload(KEY, (JSON.parse(body) as { client: string }).client) as Record<string, unknown>) ?? {};
      const answer = echo(last, req.url ?? '');
      res.writeHead(answer.status, { 'content-type': answer.contentType ?? 'application/json' }).end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  config = { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, secretKey: 'FLWSECK_TEST-echo-0123456789', webhookHash: 'h'.repeat(40), timeoutMs: 2_000, encryptionKey: KEY };
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

function cardsClient(): AggregatorCards {
  return new AggregatorCards(config, { logger: { warn: ((fields: unknown, message: string) => warnings.push(`${JSON.stringify(fields)} ${message}`)) as never } });
}

function expectNoCard(what: string, text: string): void {
  for (const secret of [CARD.number, DIGITS_GROUPED, CARD.number.slice(0, 12), CARD.cvv]) expect({ what, leaks: text.includes(secret) }).toEqual({ what, leaks: false });
}

/** Everything an outcome exposes: a thrown error's name, message, stack and fields, or the answer. */
function exposed(outcome: unknown): string {
  if (outcome instanceof Error) return `${outcome.name} ${outcome.message} ${outcome.stack ?? ''} ${JSON.stringify({ ...outcome })}`;
  return JSON.stringify(outcome);
}

const json = (status: number, value: unknown) => ({ status, body: JSON.stringify(value) });
const notFound = json(404, { status: 'error', code: 'TRANSACTION_NOT_FOUND', message: 'No transaction was found for this id', data: null });

/** Each broken answer to the card charge (and, where the client asks, to verify). */
const ECHOES: Array<[string, Echo]> = [
  ['a 500 echoing the payload', (p) => json(500, p)],
  ['a 500 error envelope echoing it in its message and code', (p) => json(500, { status: 'error', code: p.card_number, message: `Failed for ${String(p.card_number)} cvv ${String(p.cvv)}`, data: p })],
  ['a 400 that is not the aggregator\'s (a proxy page echoing the body)', (p) => ({ status: 400, body: `<html>bad request ${JSON.stringify(p)}</html>`, contentType: 'text/html' })],
  ['a 400 error with an unknown code and message echoing it, verify not found', (p, path) => (path.startsWith('/v3/transactions') ? notFound : json(400, { status: 'error', code: `CARD_${String(p.card_number)}`, message: `Card ${DIGITS_GROUPED} with CVV ${String(p.cvv)} refused`, data: null }))],
  ['a 400 error with an unknown message echoing it, verify echoing it in a 500', (p, path) => (path.startsWith('/v3/transactions') ? json(500, p) : json(400, { status: 'error', message: `Declined ${String(p.card_number)} ${String(p.cvv)}`, data: p }))],
  ['a 400 known refusal carrying the card in its data', (p) => json(400, { status: 'error', code: 'INVALID_CARD', message: `Invalid card number ${String(p.card_number)}`, data: p })],
  ['a 403 naming our configuration, echoing it', (p) => json(403, { status: 'error', code: 'IP_NOT_WHITELISTED', message: `Please whitelist your IP ${String(p.card_number)}`, data: p })],
  ['a 401 echoing it', (p) => json(401, { status: 'error', message: `Authorization required ${String(p.card_number)}`, data: p })],
  ['a 429 echoing it', (p) => json(429, { status: 'error', code: 'RATE_LIMITED', message: String(p.card_number), data: p })],
  ['a 200 that is not a success, echoing it', (p) => json(200, { status: 'weird', data: p })],
  ['a 200 success for another tx_ref, echoing it', (p) => json(200, { status: 'success', data: { ...p, tx_ref: 'someone-else' } })],
  ['a 200 success whose prompt, token and redirect carry the card', (p) => json(200, { status: 'success', message: 'Charge initiated', data: { tx_ref: p.tx_ref, flw_ref: 'FLW-1', status: 'pending', processor_response: `Enter the OTP for ${DIGITS_GROUPED}`, card: { last_4digits: '4242', type: 'VISA', token: String(p.card_number) } }, meta: { authorization: { mode: 'otp', endpoint: '/v3/validate-charge' } } })],
  ['a 200 success whose prompt names the CVV', (p) => json(200, { status: 'success', data: { tx_ref: p.tx_ref, flw_ref: 'FLW-1', status: 'pending', processor_response: `Enter the OTP; CVV ${String(p.cvv)} accepted` }, meta: { authorization: { mode: 'otp' } } })],
  ['a 200 success asking for a PIN, echoing the card', (p) => json(200, { status: 'success', data: { ...p, status: 'pending' }, meta: { authorization: { mode: 'pin', fields: [p.card_number] } } })],
  ['a 409 duplicate whose kept charge carries the card', (p) => json(409, { status: 'error', code: 'DUPLICATE_REFERENCE', message: 'A transaction with this reference already exists', data: { ...p, status: 'failed', processor_response: String(p.card_number) } })],
  ['a 400 asking for the status, verify answering a pending charge with the card everywhere', (p, path) => (path.startsWith('/v3/transactions') ? json(200, { status: 'success', data: { ...p, status: 'pending', processor_response: String(p.card_number), meta: { authorization: { mode: 'redirect', redirect: `https://acs.example/${String(p.card_number)}` } } } }) : json(400, { status: 'error', code: 'TRANSACTION_IN_PROGRESS', message: 'in progress', data: null }))],
];

describe('nothing the card client throws, returns or logs carries the card', () => {
  test.each(ECHOES)('%s', async (_name, answer) => {
    echo = answer;
    warnings.length = 0;
    const cards = cardsClient();
    try {
      const outcome = await cards.chargeCard(cardRequest(), CARD).catch((error: unknown) => error);
      expectNoCard('the outcome', exposed(outcome));
      expectNoCard('the warnings', warnings.join('\n'));
    } finally {
      await cards.close();
    }
  });

  test('the OTP step and the status of a card charge answered with the card: no card either', async () => {
    const cards = cardsClient();
    const rail = new AggregatorRail(config);
    try {
      const request = cardRequest();
      echo = (p) => json(200, { status: 'success', data: { ...p, status: 'pending', processor_response: String(p.card_number) }, meta: { authorization: { mode: 'otp' } } });
      await cards.chargeCard(request, CARD).catch(() => undefined);
      for (const respond of [
        (p: Record<string, unknown>) => json(500, p),
        (p: Record<string, unknown>) => ({ status: 502, body: `<html>bad gateway ${DIGITS_GROUPED} ${JSON.stringify(p)}</html>` }),
        (p: Record<string, unknown>) => json(400, { status: 'error', message: `OTP wrong for ${String(p.card_number)}`, data: p }),
        (p: Record<string, unknown>) => json(200, { status: 'success', data: { ...p, tx_ref: request.referenceId, status: 'failed', processor_response: `Declined ${DIGITS_GROUPED}` } }),
        (p: Record<string, unknown>) => json(200, { status: 'success', data: { ...p, tx_ref: request.referenceId, status: 'failed', failure_code: String(p.card_number) } }),
      ]) {
        echo = respond;
        expectNoCard('validateOtp', exposed(await cards.validateOtp(request.referenceId, 'FLW-1', '123456').catch((error: unknown) => error)));
        // The rail knows no CVV to hide: what it must never repeat is the number (a 3-digit CVV cannot be told from other digits).
        const status = exposed(await rail.status('collection', request.referenceId).catch((error: unknown) => error));
        for (const number of [CARD.number, DIGITS_GROUPED, CARD.number.slice(0, 12)]) expect({ leaks: status.includes(number) }).toEqual({ leaks: false });
      }
    } finally {
      await cards.close();
      await rail.close();
    }
  });
});

test('on the wire the card is in the encrypted body only: not in the path, the query or a header; the body is {client} and decrypts to the payload', async () => {
  echo = () => json(503, { status: 'error', code: 'PROCESSOR_ERROR', message: 'down', data: null });
  seen.length = 0;
  const cards = cardsClient();
  const request = cardRequest();
  try {
    await expect(cards.chargeCard(request, { ...CARD, number: DIGITS_GROUPED, expiryMonth: 3 })).rejects.toThrow('POST /v3/charges?type=card: HTTP 503 PROCESSOR_ERROR');
  } finally {
    await cards.close();
  }
  const [call] = seen;
  expect({ method: call.method, url: call.url }).toEqual({ method: 'POST', url: '/v3/charges?type=card' });
  expectNoCard('the headers', JSON.stringify(call.headers));
  // The body is {client: base64 ciphertext}: its random letters and digits may hold any three-digit
  // run, so the security code is not searched there; the number is, and the JSON holds nothing else.
  for (const secret of [CARD.number, DIGITS_GROUPED, CARD.number.slice(0, 12)]) expect({ what: 'the body', leaks: call.body.includes(secret) }).toEqual({ what: 'the body', leaks: false });
  const body = JSON.parse(call.body) as { client: string };
  expect(Object.keys(body)).toEqual(['client']);
  expect(decryptCardPayload(KEY, body.client)).toEqual({
    card_number: CARD.number,
    cvv: '713',
    expiry_month: '03',
    expiry_year: String(CARD.expiryYear % 100).padStart(2, '0'),
    currency: 'USD',
    amount: 42,
    tx_ref: request.referenceId,
    redirect_url: request.redirectUrl,
    narration: 'Order 42',
    meta: { external_id: request.externalId },
  });
});
