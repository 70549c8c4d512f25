/**
 * Issue 31, finding 1: a bulk dry run's token (`bulk_selections`) serves one `--yes`: of two runs
 * that claim it, one gets it; an expired token is never claimed.
 */
import { claimSelection, findSelection, saveSelection } from '../../src/persistence/operators/bulk-selection-store';
import { newId } from '../../src/support/new-id';
import { startHarness, type Harness } from '../support/harness';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ worker: false });
});
afterAll(() => h?.close());

const payments = [
  { id: 'po_0123456789ABCDEFGHIJabcd', environment: 'live', merchant_id: 'mer_0123456789ABCDEFGHIJabcd' },
  { id: 'po_1123456789ABCDEFGHIJabcd', environment: 'sandbox', merchant_id: 'mer_0123456789ABCDEFGHIJabcd' },
];

const save = (ttlMs: number) =>
  saveSelection(h.orm, { token: newId('operatorSelection'), command: 'payouts approve', query: "ExecutionStatus = 'Running' AND (A = 1)", merchantId: null, params: { resolution: { as: 'succeeded' } }, payments, createdBy: 'cli:ama' }, ttlMs);

test('saved as shown (ids in order, environment and merchant), with its expiry; found by its token', async () => {
  const saved = await save(3_600_000);
  expect(saved).toMatchObject({ command: 'payouts approve', payments, params: { resolution: { as: 'succeeded' } }, createdBy: 'cli:ama', usedAt: null });
  expect(saved.expiresAt.getTime() - saved.createdAt.getTime()).toBe(3_600_000);
  expect(await findSelection(h.orm, saved.token)).toEqual(saved);
  expect(await findSelection(h.orm, newId('operatorSelection'))).toBeNull();
});

test('claimed once: of two claims at once, one wins; the row records who and the batch', async () => {
  const saved = await save(3_600_000);
  const claims = await Promise.all([claimSelection(h.orm, saved.token, 'cli:ama', 'opb_a'), claimSelection(h.orm, saved.token, 'cli:kofi', 'opb_b')]);
  expect(claims.filter(Boolean)).toHaveLength(1);
  const used = await findSelection(h.orm, saved.token);
  expect(used).toMatchObject({ usedAt: expect.any(Date), usedBy: claims[0] ? 'cli:ama' : 'cli:kofi', batchId: claims[0] ? 'opb_a' : 'opb_b' });
  expect(await claimSelection(h.orm, saved.token, 'cli:ama', 'opb_c')).toBe(false);
});

test('an expired token is never claimed', async () => {
  const saved = await save(1);
  await new Promise((r) => setTimeout(r, 20));
  expect(await claimSelection(h.orm, saved.token, 'cli:ama', 'opb_x')).toBe(false);
  expect((await findSelection(h.orm, saved.token))?.usedAt).toBeNull();
});
