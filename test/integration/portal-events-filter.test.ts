/**
 * The portal's filters by event type (issue 49, "Filters merchants expect"): the Events page's form of
 * type checkboxes (GET /events?type=…&type=…, as GET /v1/events?type= filters), kept by every link of
 * its walk, and the endpoint page's event-type select over its deliveries. Events are written as a
 * state change writes them (test/support/webhook-fixtures.ts emitEvent); real PostgreSQL, no worker.
 */
import { EVENT_TYPES } from '../../src/domain/event-types';
import type { Caller } from '../../src/services/context';
import { newId } from '../../src/support/new-id';
import { startHarness, type Harness, type TestMerchant } from '../support/harness';
import type { PortalClient } from '../support/portal-client';
import { signedInUser, startPortalWeb, type PortalWeb } from '../support/portal-web';
import { emitEvent } from '../support/webhook-fixtures';

let h: Harness;
let web: PortalWeb;
let m: TestMerchant;
let client: PortalClient;
/** The merchant's sandbox events: 60, their types cycling created, succeeded, refund.succeeded (20 of each). */
const events: Array<{ sequence: number; id: string; type: string }> = [];
const CYCLE = ['transaction.created', 'transaction.succeeded', 'refund.succeeded'];

beforeAll(async () => {
  h = await startHarness({ worker: false, resolve: async () => ['93.184.215.14'] });
  web = await startPortalWeb(h);
  m = await h.merchant();
  const caller: Caller = { merchantId: m.id, environment: 'sandbox', keyId: 'key_test', merchantVerified: false };
  for (let i = 0; i < 60; i++) events.push({ sequence: i + 1, id: await emitEvent(h.orm, caller, CYCLE[i % 3]), type: CYCLE[i % 3] });
  // Written before any relay could fan them out: nothing is sent for them.
  await h.orm.em.getConnection().execute(`update events set dispatched_at = now() where merchant_id = ?`, [m.id]);
  ({ client } = await signedInUser(web.url, h.orm, m.id));
});
afterAll(async () => {
  await web?.close();
  await h?.close();
});

const unescape = (text: string) => text.replace(/&amp;/g, '&');
/** The rows (`data-sequence`, first link) of the events table. */
const eventRows = (page: string) => [...page.matchAll(/<tr data-sequence="(\d+)"><td>\d+<\/td><td><a href="\/events\/([^"]+)">/g)].map((r) => ({ sequence: Number(r[1]), id: r[2]! }));
const link = (page: string, id: string) => {
  const href = new RegExp(`<a href="([^"]+)" id="${id}"`).exec(page)?.[1];
  return href === undefined ? undefined : unescape(href);
};
const typesOf = (href: string) => new URL(href, 'http://x').searchParams.getAll('type');
const ticked = (page: string) => [...page.matchAll(/<input type="checkbox" name="type" value="([^"]+)" checked>/g)].map((r) => r[1]);

test('the Events page has a type filter form: a checkbox for every event type, sent by GET as repeated `type`', async () => {
  const page = await client.get('/events');
  expect(page.status).toBe(200);
  const form = /<form method="get" action="\/events" class="inline-filter" id="events-filter">([\s\S]*?)<\/form>/.exec(page.text)?.[1];
  expect(form).toBeDefined();
  expect(form).toMatch(/<fieldset id="event-types"><legend>Event types \(none ticked: every type\)<\/legend>/);
  const boxes = [...form!.matchAll(/<label class="check ev-type"><input type="checkbox" name="type" value="([^"]+)"> ([^<]+)<\/label>/g)];
  expect(boxes.map((b) => b[1])).toEqual(EVENT_TYPES.map((t) => t.type));
  expect(boxes.map((b) => b[2])).toEqual(EVENT_TYPES.map((t) => t.type));
  expect(form).toContain('name="from" id="from-sequence" value="1"');
  expect(ticked(page.text)).toEqual([]);
  // Unfiltered: every type, the links without `type`.
  expect(eventRows(page.text).map((r) => r.sequence)).toEqual(events.slice(0, 25).map((e) => e.sequence));
  expect(link(page.text, 'next')).toBe('/events?from=26');
  expect(page.text).not.toContain('id="every-type"');
});

test('two types ticked: only their events, oldest first across pages; every link of the walk keeps the types', async () => {
  const chosen = ['transaction.succeeded', 'refund.succeeded'];
  const want = events.filter((e) => chosen.includes(e.type));
  expect(want).toHaveLength(40);
  const first = await client.get(`/events?from=1&type=${chosen[0]}&type=${chosen[1]}`);
  expect(first.status).toBe(200);
  expect(ticked(first.text)).toEqual(chosen);
  expect(first.text).toContain('<caption>Events from sequence 1, oldest first: transaction.succeeded, refund.succeeded only</caption>');
  const seen = eventRows(first.text);
  expect(seen).toEqual(want.slice(0, 25).map(({ sequence, id }) => ({ sequence, id })));
  // Next, first, newest and check-again keep both types; "every type" drops them.
  const next = link(first.text, 'next')!;
  expect(next).toBe(`/events?from=${want[24].sequence + 1}&type=transaction.succeeded&type=refund.succeeded`);
  expect(typesOf(link(first.text, 'first')!)).toEqual(chosen);
  expect(link(first.text, 'latest')).toBe(`/events?from=${want[want.length - 25].sequence}&type=transaction.succeeded&type=refund.succeeded`);
  expect(link(first.text, 'every-type')).toBe('/events?from=1');
  const second = await client.get(next);
  expect(second.status).toBe(200);
  seen.push(...eventRows(second.text));
  expect(seen).toEqual(want.map(({ sequence, id }) => ({ sequence, id })));
  expect(link(second.text, 'next')).toBeUndefined();
  expect(typesOf(link(second.text, 'check-again')!)).toEqual(chosen);
  expect(ticked(second.text)).toEqual(chosen);
  // The newest page of the filter: its last 25 events.
  const newest = await client.get(link(first.text, 'latest')!);
  expect(eventRows(newest.text)).toEqual(want.slice(-25).map(({ sequence, id }) => ({ sequence, id })));
});

test('one type from a sequence; a type with no events; an unknown type is refused with a message and nothing shown', async () => {
  const created = events.filter((e) => e.type === 'transaction.created' && e.sequence >= 30);
  const from = await client.get('/events?from=30&type=transaction.created');
  expect(eventRows(from.text).map((r) => r.sequence)).toEqual(created.map((e) => e.sequence));
  const none = await client.get('/events?type=payout.failed');
  expect(none.status).toBe(200);
  expect(none.text).toContain('<p id="no-events">No events of the chosen types from sequence 1 in this environment.</p>');
  expect(none.text).not.toContain('id="latest"');
  for (const bad of ['nope', 'transaction.created,refund.succeeded', '%3Cscript%3E']) {
    const res = await client.get(`/events?type=${bad}`);
    expect({ bad, status: res.status }).toEqual({ bad, status: 400 });
    expect(res.text).toContain('<p class="error" role="alert" id="message">Choose the event types from the list.</p>');
    expect(eventRows(res.text)).toEqual([]);
  }
});

test('the endpoint page filters its deliveries by event type; its links keep the filter', async () => {
  const endpoint = await h.request('sandbox', 'POST', '/v1/webhook-endpoints', { key: m.testKey, body: { url: 'https://hooks.example.com/portal-filter' } });
  expect(endpoint.status).toBe(201);
  const endpointId = endpoint.json.id as string;
  const conn = h.orm.em.getConnection();
  // One failed delivery per event (20 of each type), a second apart, and a succeeded replay of the first (transaction.created): 21 of that type.
  const deliveryIds: string[] = [];
  for (const e of events) {
    const id = newId('delivery');
    deliveryIds.push(id);
    await conn.execute(
      `insert into webhook_deliveries (id, endpoint_id, event_id, merchant_id, environment, event_type, status, created_at, updated_at, workflow_started_at)
       values (?, ?, ?, ?, 'sandbox', ?, 'failed', date_trunc('milliseconds', now()) - make_interval(secs => ?), now(), now())`,
      [id, endpointId, e.id, m.id, e.type, 100 - e.sequence],
    );
  }
  await conn.execute(
    `insert into webhook_deliveries (id, endpoint_id, event_id, merchant_id, environment, event_type, replay_of, status, created_at, updated_at, workflow_started_at)
     values (?, ?, ?, ?, 'sandbox', 'transaction.created', ?, 'succeeded', date_trunc('milliseconds', now()), now(), now())`,
    [newId('delivery'), endpointId, events[0].id, m.id, deliveryIds[0]],
  );
  const typesShown = (page: string) => [...page.matchAll(/<tr id="dlv_[^"]+">\s*<td><a href="\/webhooks\/deliveries\/[^"]+">([^<]+)</g)].map((r) => r[1]);

  const first = await client.get(`/webhooks/${endpointId}?event_type=transaction.created`);
  expect(first.status).toBe(200);
  expect(first.text).toMatch(/<label for="event-type-filter">[^<]+<\/label>\s*<select name="event_type" id="event-type-filter">/);
  expect(first.text).toContain('<option value="transaction.created" selected>transaction.created</option>');
  expect(typesShown(first.text)).toEqual(Array(20).fill('transaction.created'));
  const older = link(first.text, 'older-deliveries')!;
  expect(new URL(older, 'http://x').searchParams.get('event_type')).toBe('transaction.created');
  const second = await client.get(older);
  expect(typesShown(second.text)).toEqual(['transaction.created']);
  expect(link(second.text, 'newest-deliveries')).toBe(`/webhooks/${endpointId}?event_type=transaction.created`);
  expect(link(second.text, 'older-deliveries')).toBeUndefined();

  // With a status: both kept on the form; the replay is the only succeeded one.
  const succeeded = await client.get(`/webhooks/${endpointId}?status=succeeded&event_type=transaction.created`);
  expect(typesShown(succeeded.text)).toEqual(['transaction.created']);
  expect(succeeded.text).toContain('<option value="succeeded" selected>succeeded</option>');
  const none = await client.get(`/webhooks/${endpointId}?status=pending&event_type=refund.succeeded`);
  expect(none.text).toContain('<p id="no-deliveries">No pending deliveries of refund.succeeded.</p>');
  // An unknown type shows every type, as an unknown status does; its older link carries no type.
  const unknown = await client.get(`/webhooks/${endpointId}?event_type=nope`);
  expect(unknown.status).toBe(200);
  expect(new Set(typesShown(unknown.text))).toEqual(new Set(CYCLE));
  expect(new URL(link(unknown.text, 'older-deliveries')!, 'http://x').searchParams.get('event_type')).toBeNull();
});
