import { Agent, fetch as undiciFetch } from 'undici';
import { startHarness, type Harness } from '../support/harness';
import { newPortalUser, startPortalWeb, type PortalWeb } from '../support/portal-web';
import { PortalClient } from '../support/portal-client';
import { randomBase62 } from '../../src/support/new-id';
import { attemptKeyOf, LOCKOUT_FAILURES, pruneAttempts } from '../../src/persistence/portal/sign-in-attempts';

/**
 * The portal's sign-in under attack (issue 30; docs/security.md "Merchant portal"), against the real
 * portal router on real PostgreSQL: a burst of guesses cannot pass the lock-out, a known and an
 * unknown email answer on the same schedule, and the per-address limit. Each test signs in from its
 * own loopback address (127.x.y.z), so the per-address limit of one test never meets another's.
 */

let h: Harness;
let web: PortalWeb;
beforeAll(async () => {
  h = await startHarness({ worker: false });
  web = await startPortalWeb(h);
});
afterAll(async () => {
  await web?.close();
  await h?.close();
});

/** A loopback address of its own (the whole 127/8 is the loopback interface on Linux). */
const ownAddress = () => `127.${1 + Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${1 + Math.floor(Math.random() * 250)}`;

/** A sign-in form posted from `from`: GET /sign-in for its cookie and token, then POST. */
async function signInFrom(url: string, from: string, email: string, password: string): Promise<{ status: number; text: string; headers: Headers; signedIn: boolean }> {
  const dispatcher = new Agent({ localAddress: from });
  try {
    const page = await undiciFetch(`${url}/sign-in`, { dispatcher });
    const cookie = page.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
    const csrf = PortalClient.csrfOf(await page.text());
    const res = await undiciFetch(`${url}/sign-in`, {
      dispatcher,
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf, email, password }).toString(),
    });
    const signedIn = res.headers.getSetCookie().some((c) => c.startsWith('__Host-portal_session=') && !c.startsWith('__Host-portal_session=;'));
    return { status: res.status, text: await res.text(), headers: res.headers as unknown as Headers, signedIn };
  } finally {
    await dispatcher.close();
  }
}

const attemptsRow = async (email: string) =>
  (await h.orm.em.getConnection().execute<{ attempts: number; locked: boolean }[]>(`select attempts, coalesce(locked_until > now(), false) as locked from portal_sign_in_attempts where key = ?`, [attemptKeyOf(email)]))[0];

const failureAudits = async (email: string) =>
  Number((await h.orm.em.getConnection().execute<{ n: string }[]>(`select count(*) as n from operator_audit where operator = ? and action = 'portal.sign_in_failed'`, [`portal:${email}`]))[0]!.n);

const sessions = async (email: string) =>
  Number((await h.orm.em.getConnection().execute<{ n: string }[]>(`select count(*) as n from portal_sessions s join portal_users u on u.id = s.user_id where u.email = ?`, [email]))[0]!.n);

test('a burst of 20 wrong guesses and the right password: the account ends locked, the right password does not sign in, and every attempt is recorded', async () => {
  const m = await h.merchant();
  const { email, password } = await newPortalUser(h.orm, m.id);
  const from = ownAddress();
  // Slots for every attempt at once, so that all 21 race (the default slots would queue them).
  const wide = await startPortalWeb(h, { hashSlots: { slots: 32, queue: 0 } });
  const guesses = Array.from({ length: 20 }, (_, i) => signInFrom(wide.url, from, email, `wrong-${i}-${randomBase62(6)}`));
  const right = signInFrom(wide.url, from, email, password);
  const answers = await Promise.all([...guesses, right]).finally(() => wide.close());
  const rightAnswer = answers[20]!;

  // Every attempt was refused: at most LOCKOUT_FAILURES of them had their password checked (401 or the lock's 429), the rest were locked out (429).
  expect(answers.filter((a) => a.signedIn)).toEqual([]);
  expect(rightAnswer.status).toBe(429);
  expect(answers.every((a) => a.status === 401 || a.status === 429)).toBe(true);
  expect(answers.filter((a) => a.status === 401).length).toBeLessThan(LOCKOUT_FAILURES);
  expect(await sessions(email)).toBe(0);
  expect(await attemptsRow(email)).toEqual({ attempts: 21, locked: true });
  expect(await failureAudits(email)).toBe(21);

  // Still locked afterwards, even with the right password from another address.
  const after = await signInFrom(web.url, ownAddress(), email, password);
  expect(after.status).toBe(429);
  expect(after.text).toMatch(/locked for 15 more minutes/);
  expect(await sessions(email)).toBe(0);
});

test('the right password before the lock signs in and clears the count', async () => {
  const m = await h.merchant();
  const { email, password } = await newPortalUser(h.orm, m.id);
  const from = ownAddress();
  for (let i = 0; i < LOCKOUT_FAILURES - 1; i++) expect((await signInFrom(web.url, from, email, `wrong-${i}`)).status).toBe(401);
  const ok = await signInFrom(web.url, from, email, password);
  expect({ status: ok.status, signedIn: ok.signedIn }).toEqual({ status: 303, signedIn: true });
  expect(await attemptsRow(email)).toEqual({ attempts: 0, locked: false });
});

test('a known and an unknown email answer on the same schedule: 401 four times, then 429 locked, with the same words; the lock-out is kept for both', async () => {
  const m = await h.merchant();
  const { email: known } = await newPortalUser(h.orm, m.id);
  const unknown = `nobody-${randomBase62(8).toLowerCase()}@shop.example`;
  const from = ownAddress();
  const answers: Record<string, { status: number; message: string }[]> = { known: [], unknown: [] };
  for (let i = 0; i < LOCKOUT_FAILURES + 2; i++) {
    for (const [who, email] of [['known', known], ['unknown', unknown]] as const) {
      const res = await signInFrom(web.url, from, email, `wrong-${i}`);
      answers[who]!.push({ status: res.status, message: /id="sign-in-error">([^<]*)</.exec(res.text)![1]! });
    }
  }
  expect(answers.unknown).toEqual(answers.known);
  expect(answers.known.map((a) => a.status)).toEqual([401, 401, 401, 401, 429, 429, 429]);
  expect(answers.known[4]!.message).toMatch(/locked for 15 more minutes/);
  expect(await attemptsRow(unknown)).toEqual({ attempts: LOCKOUT_FAILURES + 2, locked: true });
  // The rows hold no email: only its sha256.
  const stored = JSON.stringify(await h.orm.em.getConnection().execute(`select * from portal_sign_in_attempts where key in (?, ?)`, [attemptKeyOf(known), attemptKeyOf(unknown)]));
  expect(stored).not.toContain(unknown);
  expect(stored).not.toContain(known);
});

test('the per-address limit: past N attempts from one address, 429 with Retry-After before any password check; another address still signs in', async () => {
  const limited = await startPortalWeb(h, { signInLimits: { perAddress: 3, perAccount: 100, windowSeconds: 60 } });
  try {
    const m = await h.merchant();
    const { email, password } = await newPortalUser(h.orm, m.id);
    const from = ownAddress();
    for (let i = 0; i < 3; i++) {
      const res = await signInFrom(limited.url, from, `someone-${randomBase62(8).toLowerCase()}@shop.example`, 'wrong-password');
      expect({ status: res.status, message: /id="sign-in-error">([^<]*)</.exec(res.text)?.[1] }).toEqual({ status: 401, message: 'The email or password is not right.' });
    }
    const refused = await signInFrom(limited.url, from, email, password);
    expect(refused.status).toBe(429);
    expect(refused.signedIn).toBe(false);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.text).toContain('Too many sign-in attempts.');
    // Refused before the lock-out counted it.
    expect(await attemptsRow(email)).toBeUndefined();
    const elsewhere = await signInFrom(limited.url, ownAddress(), email, password);
    expect(elsewhere.status).toBe(303);
  } finally {
    await limited.close();
  }
});

test('the per-email limit counts every address, known email or not; a success gives its point back', async () => {
  const limited = await startPortalWeb(h, { signInLimits: { perAddress: 100, perAccount: 2, windowSeconds: 60 } });
  try {
    const m = await h.merchant();
    const { email, password } = await newPortalUser(h.orm, m.id);
    for (let i = 0; i < 4; i++) expect((await signInFrom(limited.url, ownAddress(), email, password)).status).toBe(303);
    const unknown = `nobody-${randomBase62(8).toLowerCase()}@shop.example`;
    expect((await signInFrom(limited.url, ownAddress(), unknown, 'wrong-password')).status).toBe(401);
    expect((await signInFrom(limited.url, ownAddress(), unknown, 'wrong-password')).status).toBe(401);
    expect((await signInFrom(limited.url, ownAddress(), unknown, 'wrong-password')).status).toBe(429);
  } finally {
    await limited.close();
  }
});

test('every password-hash slot and queue place taken: 503 with Retry-After at once, the attempt not counted', async () => {
  const tight = await startPortalWeb(h, { hashSlots: { slots: 1, queue: 0 } });
  try {
    const from = ownAddress();
    const emails = Array.from({ length: 6 }, () => `nobody-${randomBase62(8).toLowerCase()}@shop.example`);
    const answers = await Promise.all(emails.map((e) => signInFrom(tight.url, from, e, 'wrong-password')));
    const busy = answers.filter((a) => a.status === 503);
    expect(busy.length).toBeGreaterThan(0);
    expect(answers.every((a) => a.status === 503 || a.status === 401)).toBe(true);
    for (const [i, a] of answers.entries()) {
      if (a.status !== 503) continue;
      expect(a.headers.get('retry-after')).toBe('1');
      expect(a.text).toContain('The portal is busy.');
      expect(await attemptsRow(emails[i]!)).toBeUndefined();
    }
  } finally {
    await tight.close();
  }
});

test('counts untouched for a day and under no lock are pruned; a lock in force is kept', async () => {
  const stale = `nobody-${randomBase62(8).toLowerCase()}@shop.example`;
  const locked = `nobody-${randomBase62(8).toLowerCase()}@shop.example`;
  const fresh = `nobody-${randomBase62(8).toLowerCase()}@shop.example`;
  const conn = h.orm.em.getConnection();
  await conn.execute(
    `insert into portal_sign_in_attempts (key, attempts, locked_until, updated_at) values
       (?, 3, null, now() - interval '25 hours'), (?, 9, now() + interval '5 minutes', now() - interval '25 hours'), (?, 2, null, now())`,
    [attemptKeyOf(stale), attemptKeyOf(locked), attemptKeyOf(fresh)],
  );
  expect(await pruneAttempts(h.orm)).toBeGreaterThanOrEqual(1);
  expect(await attemptsRow(stale)).toBeUndefined();
  expect(await attemptsRow(locked)).toEqual({ attempts: 9, locked: true });
  expect(await attemptsRow(fresh)).toEqual({ attempts: 2, locked: false });
});
