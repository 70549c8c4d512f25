import fs from 'node:fs';
import path from 'node:path';
import { fundMerchant } from '../support/fund-merchant';
import { idempotencyKey, type TestMerchant } from '../support/harness';
import { startPartnerHarness, type PartnerHarness } from '../support/partner-harness';

/**
 * Issue 45, "the same request shapes in both environments": every charge, refund and payout request
 * of the README's sandbox examples (the `curl … localhost:3000/v1/{charges,refunds,payouts} … -d '…'`
 * lines, read from README.md itself) is sent unchanged to the sandbox listener with a test key and
 * to the live listener with a live key (the live partners behind it: the fake MoMo partner and the
 * fake aggregator); each is accepted and ends succeeded in both. `$CHARGE` is the charge the walk
 * made in the same environment.
 */

interface Example {
  path: string;
  body: string;
}

/** The README's sandbox request bodies, in order: the text inside `-d '…'`, `'"$CHARGE"'` kept as a placeholder. */
function readmeExamples(): Example[] {
  const readme = fs.readFileSync(path.join(__dirname, '..', '..', 'README.md'), 'utf8');
  const found: Example[] = [];
  const pattern = /curl -s localhost:3000(\/v1\/(?:charges|refunds|payouts))\b[\s\S]*?-d '((?:[^']|'"\$CHARGE"')*)'/g;
  for (const match of readme.matchAll(pattern)) found.push({ path: match[1], body: match[2] });
  return found;
}

let p: PartnerHarness;
let m: TestMerchant;

beforeAll(async () => {
  p = await startPartnerHarness({ aggregator: { fake: { approveAfterMs: 300 }, routes: 'mobile_money:*=momo,bank:*=aggregator,card:*=aggregator' } });
  m = await p.h.merchant({ verified: true });
  // The sandbox earns its balance from the walk's charge; live is funded for the payout as well.
  await fundMerchant(p.h, m.id, 100_000, 'GHS', 'live');
});
afterAll(async () => {
  await p?.close();
});

const ended = (id: string) => p.h.temporal.client.workflow.getHandle(id).result() as Promise<{ status: string }>;

test("the README's sandbox examples name a charge, a refund of it and a payout", () => {
  expect(readmeExamples().map((e) => e.path)).toEqual(['/v1/charges', '/v1/refunds', '/v1/payouts']);
});

test.each(['sandbox', 'live'] as const)("every request of the README's sandbox examples, unchanged, on the %s listener: accepted, and each ends succeeded", async (environment) => {
  let charge: string | undefined;
  const statuses: Array<[string, string]> = [];
  for (const example of readmeExamples()) {
    const text = example.body.replace(`'"$CHARGE"'`, charge ?? 'no charge yet');
    const res = await p.h.request(environment, 'POST', example.path, {
      key: environment === 'live' ? m.liveKey : m.testKey,
      body: JSON.parse(text),
      headers: { 'Idempotency-Key': idempotencyKey() },
    });
    expect([example.path, res.status, res.json.error ?? null]).toEqual([example.path, 200, null]);
    expect(res.json.livemode).toBe(environment === 'live');
    const finished = await ended(res.json.id);
    statuses.push([example.path, environment === 'live' ? `${finished.status} at ${res.json.rail}` : finished.status]);
    if (example.path === '/v1/charges') charge = res.json.id;
  }
  expect(statuses).toEqual(
    environment === 'live'
      ? [['/v1/charges', 'succeeded at momo'], ['/v1/refunds', 'succeeded at momo'], ['/v1/payouts', 'succeeded at momo']]
      : [['/v1/charges', 'succeeded'], ['/v1/refunds', 'succeeded'], ['/v1/payouts', 'succeeded']],
  );
});
