/**
 * RailMisconfigured is not retried (docs/partner-rail.md, "Errors"): through the worker's own wiring
 * (activities/index.ts wraps the rail with nonRetryableRail), a live charge whose partner refuses our
 * target environment fails its rail activity once, as a non-retryable ApplicationFailure of type
 * RailMisconfigured, and the charge is not failed for it.
 */
import type { temporal } from '@temporalio/proto';
import type { FakePartner } from '../../src/rail/fake-partner';
import { chargeBody, idempotencyKey, type Harness, PAYMENT_QUEUES } from '../support/harness';
import { startPartnerHarness, type PartnerHarness } from '../support/partner-harness';

let partner: PartnerHarness;
let fake: FakePartner;
let h: Harness;

beforeAll(async () => {
  // The partner plays `sandbox`; we point at another market: every call is refused as our configuration's fault.
  partner = await startPartnerHarness({ queues: PAYMENT_QUEUES, timeoutMs: 500, config: { targetEnvironment: 'mtnghana' } });
  ({ h, fake } = partner);
});
afterAll(async () => {
  await partner?.close();
});

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

async function railFailures(workflowId: string, within = 15_000): Promise<{ events: HistoryEvent[]; failed: HistoryEvent[] }> {
  const until = Date.now() + within;
  for (;;) {
    const events = (await h.temporal.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
    const failed = events.filter((e) => e.activityTaskFailedEventAttributes);
    if (failed.length > 0 || Date.now() > until) return { events, failed };
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

test('a live charge against a partner that refuses our configuration: the rail activity fails once, non-retryable, typed RailMisconfigured; the charge is not failed', async () => {
  const m = await h.merchant({ verified: true });
  const res = await h.request('live', 'POST', '/v1/charges', {
    key: m.liveKey,
    body: chargeBody({ customer: { identifier: '233240005678', name: 'Ama Mensah' }, reference: `misconf-${idempotencyKey()}` }),
    headers: { 'Idempotency-Key': idempotencyKey() },
  });
  expect(res.status).toBe(200);
  const id: string = res.json.id;

  const { events, failed } = await railFailures(id);
  expect(failed.length).toBeGreaterThan(0);
  const scheduled = new Map(events.filter((e) => e.activityTaskScheduledEventAttributes).map((e) => [String(e.eventId), e.activityTaskScheduledEventAttributes!.activityType?.name]));
  const first = failed[0].activityTaskFailedEventAttributes!;
  expect(scheduled.get(String(first.scheduledEventId))).toMatch(/^rail(Submit|Status)$/);
  expect(first.failure?.applicationFailureInfo).toMatchObject({ type: 'RailMisconfigured', nonRetryable: true });
  expect(first.failure?.message).toMatch(/the partner refused our configuration \(HTTP 403 NOT_ALLOWED_TARGET_ENVIRONMENT\)/);
  // Failed at its first attempt: Temporal did not retry it.
  const started = events.find((e) => String(e.eventId) === String(first.startedEventId))?.activityTaskStartedEventAttributes;
  expect(started?.attempt).toBe(1);
  // One submission reached the partner, refused and kept by nothing (not sent again by a retry); the
  // charge is still open: the workflow never fails a payment on our configuration.
  const submissions = fake.requests.filter((r) => r.method === 'POST' && r.path === '/collection/v1_0/requesttopay' && (r.body as { externalId?: string } | undefined)?.externalId === id);
  expect(submissions).toHaveLength(1);
  expect(fake.transaction('collection', String(submissions[0].headers['x-reference-id']))).toBeUndefined();
  const rows = await h.orm.em.getConnection().execute<Array<{ status: string }>>(`select status from charges where id = ?`, [id]);
  expect(rows[0].status).toBe('awaiting_action');
  await h.temporal.client.workflow.getHandle(id).terminate('test finished');
});
