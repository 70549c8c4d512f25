import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { BEHAVIOUR_BY_SUFFIX, behaviourOf, endingOf } from '../../src/rail/fake-partner/behaviours';
import { startFakePartner, type FakePartner } from '../../src/rail/fake-partner';
import { parseStatementCsv, parseStatementJson } from '../../src/rail/momo-statement';

/** The fake partner's behaviour table, in code and in docs/partner-rail.md: the same suffixes. */
describe("the fake partner's behaviour table", () => {
  test('a party id chooses its behaviour by its last four digits; anything else succeeds', () => {
    expect(behaviourOf('233241230001')).toBe('refuse_later');
    expect(behaviourOf('233241230007')).toBe('slow');
    expect(behaviourOf('GCB:10000009')).toBe('late_callback');
    expect(behaviourOf('233241230010')).toBe('statement_twice');
    expect(behaviourOf('233241230011')).toBe('statement_amount_plus_one');
    expect(behaviourOf('233241230012')).toBe('late_success');
    expect(behaviourOf('233241230013')).toBe('duplicate_refused');
    expect(behaviourOf('233241234567')).toBe('success');
    expect(behaviourOf('0000')).toBe('success');
    expect(behaviourOf('')).toBe('success');
  });

  test('docs/partner-rail.md lists every suffix of the code, and no other', () => {
    const doc = fs.readFileSync(path.resolve(__dirname, '../../docs/partner-rail.md'), 'utf8');
    const section = doc.slice(doc.indexOf('| partyId ends in |'));
    const table = section.slice(0, section.indexOf('\n\n'));
    const suffixes = [...table.matchAll(/^\| `(\d{4})` \|/gm)].map((m) => m[1]);
    expect(suffixes.sort()).toEqual(Object.keys(BEHAVIOUR_BY_SUFFIX).sort());
  });

  test('0012 succeeds only after the late delay: lateSuccessMs for a request-to-pay, latePayoutSuccessMs for a transfer', () => {
    const timing = { approveAfterMs: 100, lateCallbackMs: 500, lateSuccessMs: 7_000, latePayoutSuccessMs: 600_000 };
    expect(endingOf('late_success', timing, 'collection')).toEqual({ final: { status: 'SUCCESSFUL' }, finalAfterMs: 7_000, callbackDelaysMs: [7_000] });
    expect(endingOf('late_success', timing, 'disbursement')).toMatchObject({ finalAfterMs: 600_000 });
    expect(endingOf('statement_twice', timing)).toMatchObject({ final: { status: 'SUCCESSFUL' }, finalAfterMs: 100 });
  });
});

describe("the fake partner's statement and new behaviours (over HTTP)", () => {
  let fake: FakePartner;
  let token: string;
  const today = () => new Date().toISOString().slice(0, 10);
  beforeAll(async () => {
    fake = await startFakePartner({ approveAfterMs: 50, lateSuccessMs: 60_000 });
    const { apiUser, apiKey, subscriptionKey } = fake.config;
    const res = await fetch(`${fake.url}/collection/token/`, { method: 'POST', headers: { authorization: `Basic ${Buffer.from(`${apiUser}:${apiKey}`).toString('base64')}`, 'ocp-apim-subscription-key': subscriptionKey } });
    token = ((await res.json()) as { access_token: string }).access_token;
  });
  afterAll(() => fake?.close());

  const headers = (extra: Record<string, string> = {}) => ({ authorization: `Bearer ${token}`, 'ocp-apim-subscription-key': fake.config.subscriptionKey, 'x-target-environment': 'sandbox', ...extra });
  const submit = (ref: string, partyId: string, amount = '150.00') =>
    fetch(`${fake.url}/collection/v1_0/requesttopay`, {
      method: 'POST',
      headers: headers({ 'x-reference-id': ref, 'content-type': 'application/json' }),
      body: JSON.stringify({ amount, currency: 'GHS', externalId: `txn_${ref.slice(0, 8)}`, payer: { partyIdType: 'MSISDN', partyId }, payerMessage: 'm', payeeNote: 'n' }),
    });
  const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

  test('0013: a second submission of the reference is answered 400 NOT_ALLOWED, and the first still succeeds', async () => {
    const ref = randomUUID();
    expect((await submit(ref, '233240000013')).status).toBe(202);
    const again = await submit(ref, '233240000013');
    expect(again.status).toBe(400);
    expect(await again.json()).toMatchObject({ code: 'NOT_ALLOWED' });
    await wait(150);
    expect(fake.transaction('collection', ref)?.state.status).toBe('SUCCESSFUL');
  });

  test('0012: PENDING past approveAfterMs; settle() makes it final now, with or without a callback', async () => {
    const ref = randomUUID();
    expect((await submit(ref, '233240000012')).status).toBe(202);
    await wait(150);
    expect(fake.transaction('collection', ref)?.state.status).toBe('PENDING');
    expect(fake.settle('collection', ref, { status: 'SUCCESSFUL' }, { callback: false })).toBe(true);
    expect(fake.transaction('collection', ref)?.state).toMatchObject({ status: 'SUCCESSFUL', financialTransactionId: expect.any(String) });
    expect(fake.settle('collection', randomUUID(), { status: 'SUCCESSFUL' })).toBe(false);
  });

  test("the day's statement, as JSON and CSV: 0010 listed twice, 0011 one minor unit more, amendments and added lines", async () => {
    const [plain, twice, plusOne, omitted, otherCurrency] = [randomUUID(), randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    await submit(plain, '233240004567');
    await submit(twice, '233240000010');
    await submit(plusOne, '233240000011', '10.05');
    await submit(omitted, '233240004567');
    await submit(otherCurrency, '233240004567');
    await wait(150);
    fake.amendStatement('collection', omitted, { omit: true });
    fake.amendStatement('collection', otherCurrency, { currency: 'NGN' });
    const stranger = randomUUID();
    const now = new Date().toISOString();
    fake.addStatementLine('collection', { referenceId: stranger, financialTransactionId: '123456789', externalId: '', amount: '5.00', currency: 'GHS', status: 'SUCCESSFUL', reason: null, party: '****9999', time: now, completedAt: now });

    expect((await fetch(`${fake.url}/collection/v1_0/statement?date=${today()}`)).status).toBe(401);
    expect((await fetch(`${fake.url}/collection/v1_0/statement?date=yesterday`, { headers: headers() })).status).toBe(400);
    const res = await fetch(`${fake.url}/collection/v1_0/statement?date=${today()}`, { headers: headers() });
    expect(res.status).toBe(200);
    const statement = parseStatementJson(await res.json());
    const of = (ref: string) => statement.lines.filter((l) => l.referenceId === ref);
    expect(of(plain)).toEqual([expect.objectContaining({ amount: '150.00', currency: 'GHS', status: 'SUCCESSFUL', party: '****4567', financialTransactionId: expect.any(String), completedAt: expect.any(String) })]);
    expect(of(twice)).toHaveLength(2);
    expect(of(plusOne)).toEqual([expect.objectContaining({ amount: '10.06' })]);
    expect(of(omitted)).toEqual([]);
    expect(of(otherCurrency)).toEqual([expect.objectContaining({ currency: 'NGN' })]);
    expect(of(stranger)).toHaveLength(1);

    const file = await fetch(`${fake.url}/collection/v1_0/statement.csv?date=${today()}`, { headers: headers() });
    expect(file.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(file.headers.get('content-disposition')).toContain(`statement-collection-${today()}.csv`);
    expect(parseStatementCsv(await file.text())).toEqual(statement);
    // Another day: empty.
    const other = parseStatementJson(await (await fetch(`${fake.url}/collection/v1_0/statement?date=2020-01-01`, { headers: headers() })).json());
    expect(other.lines).toEqual([]);
  });

  test('the test controls over HTTP: settle, amend a statement line, add one; authenticated like every call', async () => {
    const ref = randomUUID();
    await submit(ref, '233240000004'); // PENDING forever
    const control = (p: string, body: unknown, auth = true) => fetch(`${fake.url}/collection/_fake/${p}`, { method: 'POST', headers: auth ? headers({ 'content-type': 'application/json' }) : { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect((await control(`settle/${ref}`, { status: 'SUCCESSFUL' }, false)).status).toBe(401);
    expect((await control(`settle/${ref}`, { status: 'MAYBE' })).status).toBe(400);
    expect((await control(`settle/${randomUUID()}`, { status: 'SUCCESSFUL' })).status).toBe(404);
    expect((await control(`settle/${ref}`, { status: 'SUCCESSFUL', callback: false })).status).toBe(204);
    expect(fake.transaction('collection', ref)?.state.status).toBe('SUCCESSFUL');
    expect((await control(`statement/amend/${ref}`, { amount: '1.00', status: 'FAILED' })).status).toBe(204);
    const stranger = randomUUID();
    const now = new Date().toISOString();
    expect((await control('statement/lines', { referenceId: stranger, amount: '2.00', currency: 'GHS', status: 'SUCCESSFUL', time: now })).status).toBe(204);
    expect((await control('statement/lines', { referenceId: stranger })).status).toBe(400);
    const lines = fake.statement('collection', today()).lines;
    expect(lines.find((l) => l.referenceId === ref)).toMatchObject({ amount: '1.00', status: 'FAILED' });
    expect(lines.find((l) => l.referenceId === stranger)).toMatchObject({ amount: '2.00', financialTransactionId: null });
  });
});
