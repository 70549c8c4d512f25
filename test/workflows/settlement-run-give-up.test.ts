import { WorkflowFailedError } from '@temporalio/client';
import type { ApplicationFailure } from '@temporalio/common';
import { SA } from '../../src/domain/search-attributes';
import { randomBase62 } from '../../src/support/new-id';
import { SETTLEMENT_RUN_GAVE_UP } from '../../workflows/settlement-run';
import { startSettlementRunTestEnv, type SettlementRunTestEnv } from './support/settlement-run-env';

// Review finding 1 of issue 18 (a database outage stopped every later settlement): a run whose page
// step gives up fails instead of waiting for retryStep with no timer, which held the Schedule (its
// overlap policy skips every run while one is open). Its own file: it skips the test server's clock,
// which must not be locked by another test's handles.

let h: SettlementRunTestEnv;
beforeAll(async () => {
  h = await startSettlementRunTestEnv();
});
afterAll(async () => {
  await h?.close();
});

test('a page step that gives up (a long database outage) fails the run with NeedsAttention and the reason, so the next scheduled run can start; it never waits without a timer', async () => {
  const m = `mer_${randomBase62(24)}`;
  h.store.add({ merchantId: m, environment: 'sandbox', currency: 'GHS', hasAccount: true });
  h.store.failing = true;
  const handle = await h.start({ merchantId: m });
  // The step's retries (about 16 minutes of backoff) pass in short skips of the test server's clock
  // (a long one could pass while the worker is still busy).
  for (let minute = 0; minute < 60 && (await handle.describe()).status.name === 'RUNNING'; minute++) await h.env.sleep('1 minute');
  const error = await handle.result().catch((e: unknown) => e);
  expect(error).toBeInstanceOf(WorkflowFailedError);
  const cause = (error as WorkflowFailedError).cause as ApplicationFailure;
  expect(cause.type).toBe(SETTLEMENT_RUN_GAVE_UP);
  expect(cause.message).toMatch(/^settlement run page: gave up \(retries exhausted\): Error: connect ECONNREFUSED.*the next scheduled run starts afresh/);
  const description = await handle.describe();
  expect(description.status.name).toBe('FAILED');
  expect(description.typedSearchAttributes.get(SA.NeedsAttention)).toBe(true);
  // The next run, with the database back, settles the balance.
  h.store.failing = false;
  const next = await h.start({ merchantId: m });
  expect(await next.result()).toMatchObject({ started: 1 });
});
