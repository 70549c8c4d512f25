import { LIVE_PAYOUT_DEADLINE_MS } from '../../src/domain/live-rail';
import { SA } from '../../src/domain/search-attributes';
import { startPayoutTestEnv, type PayoutTestEnv } from './support/payout-env';

// A live payout on the partner rail whose partner acknowledged the transfer, then answers `unknown`
// for a day and a half (workflows/payout-rail.ts), on the time-skipping server with the rail's
// activities scripted. Split from payout-live-rail-days.test.ts, which took 60.6 s in a cold npm test,
// over the fast tier's 60 s per file.

let h: PayoutTestEnv;
beforeAll(async () => {
  h = await startPayoutTestEnv();
});
afterAll(async () => {
  await h?.close();
});

const DAY_MS = 24 * 3600_000;
const details = async (payoutId: string) => (await h.handle(payoutId).query<{ currentDetails: string }>('__temporal_workflow_metadata')).currentDetails;

test('issue 43: unknown after the partner acknowledged the transfer is not final: the payout stays pending and flagged past its submit window, then ends on SUCCESSFUL', async () => {
  // Before the patch this payout failed (partner_unavailable, reservation released) after 24 h; with
  // the status gate the run failed instead, the money stuck.
  const record = await h.payout({ environment: 'live' });
  const startedMs = await h.env.currentTimeMs();
  const paidAtMs = startedMs + 1.5 * DAY_MS;
  h.rail
    .partner({ kind: 'accepted' }, [])
    .statusBy((now) => (now < startedMs + 60_000 ? { status: 'pending' } : now < paidAtMs ? { status: 'unknown' } : { status: 'succeeded', financialTransactionId: 'ft-ack' }));
  await h.start(record);

  await h.env.sleep(LIVE_PAYOUT_DEADLINE_MS + 3600_000);
  expect((await h.handle(record.id).describe()).status.name).toBe('RUNNING');
  expect(h.store.transitionsOf(record.id)).toEqual([]);
  expect((await h.searchAttributes(record.id)).get(SA.NeedsAttention)).toBe(true);
  expect(await details(record.id)).toContain('which it acknowledged before: that is not final');
  // Resubmitted with the same reference while the window was open, never after it.
  const submits = h.rail.timeline.filter((c) => c.paymentId === record.id && c.kind === 'submit');
  expect(submits.length).toBeGreaterThan(1);
  expect(Math.max(...submits.map((c) => c.scheduledMs))).toBeLessThanOrEqual(startedMs + LIVE_PAYOUT_DEADLINE_MS);

  const result = await h.handle(record.id).result();
  expect(result).toMatchObject({ status: 'succeeded' });
  const transitions = h.store.transitionsOf(record.id);
  expect(transitions.map(({ to }) => to)).toEqual(['succeeded']);
  expect(Date.parse(transitions[0].at)).toBeGreaterThanOrEqual(paidAtMs);
});
