/**
 * Issue 46, the fakes' fault controls for a fake in its own process (the chaos run's
 * `partner_declining` and `partner_down`): declining turned on and off over HTTP
 * (`POST /{product}/_fake/declining`, `POST /_fake/declining`), and the port closed then opened again
 * on the same address with the books kept (setListening, what SIGUSR1/SIGUSR2 do to the topology's
 * fake processes). Through the real adapters: a refusal marked retry-elsewhere, then a request that
 * never reached the partner (RailUnavailable.notReached).
 */
import { RailUnavailable } from '../../src/rail/partner-rail';
import { chargeRequest as momoCharge, startRefundWorld, type RefundWorld } from './momo-refund-support';
import { chargeRequest as aggregatorCharge, rawCall, startAggregatorWorld, type AggregatorWorld } from './aggregator-support';

let momo: RefundWorld;
let aggregator: AggregatorWorld;
beforeAll(async () => {
  momo = await startRefundWorld({ approveAfterMs: 200 });
  aggregator = await startAggregatorWorld({ approveAfterMs: 200 });
});
afterAll(async () => {
  await momo?.close();
  await aggregator?.close();
});

async function momoControl(body: unknown): Promise<number> {
  const { apiUser, apiKey, subscriptionKey } = momo.fake.config;
  const { access_token: token } = (await (await fetch(`${momo.fake.url}/collection/token/`, { method: 'POST', headers: { authorization: `Basic ${Buffer.from(`${apiUser}:${apiKey}`).toString('base64')}`, 'ocp-apim-subscription-key': subscriptionKey } })).json()) as { access_token: string };
  const res = await fetch(`${momo.fake.url}/collection/_fake/declining`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'ocp-apim-subscription-key': subscriptionKey, 'x-target-environment': 'sandbox', 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  await res.body?.cancel();
  return res.status;
}

test('MoMo fake: POST /{product}/_fake/declining turns the partner_declining mode on and off', async () => {
  expect(await momoControl({ on: 'yes' })).toBe(400);
  expect(await momoControl({ on: true })).toBe(204);
  const refused = momoCharge('5678');
  expect(await momo.rail.submit('collection', refused)).toMatchObject({ kind: 'refused', reason: 'COULD_NOT_PERFORM_TRANSACTION', retryElsewhere: true });
  expect(momo.fake.transaction('collection', refused.referenceId)).toBeUndefined();
  expect(await momoControl({ on: false })).toBe(204);
  expect(await momo.rail.submit('collection', momoCharge('5678'))).toEqual({ kind: 'accepted' });
});

test('aggregator fake: POST /_fake/declining (the secret key) turns the partner_declining mode on and off', async () => {
  expect((await rawCall(aggregator, 'POST', '/_fake/declining', { on: true }, 'wrong')).status).toBe(401);
  expect((await rawCall(aggregator, 'POST', '/_fake/declining', {})).status).toBe(400);
  expect((await rawCall(aggregator, 'POST', '/_fake/declining', { on: true })).status).toBe(204);
  const refused = aggregatorCharge('5678');
  expect(await aggregator.rail.submit('collection', refused)).toMatchObject({ kind: 'refused', reason: 'SERVICE_DECLINING', retryElsewhere: true });
  expect(aggregator.fake.transaction('collection', refused.referenceId)).toBeUndefined();
  expect((await rawCall(aggregator, 'POST', '/_fake/declining', { on: false })).status).toBe(204);
  expect(await aggregator.rail.submit('collection', aggregatorCharge('5678'))).toMatchObject({ kind: 'accepted' });
});

test.each(['momo', 'aggregator'] as const)('%s fake: setListening(false) closes the port (not reached), setListening(true) opens it again on the same address, its books kept', async (which) => {
  const world = which === 'momo' ? momo : aggregator;
  const charge = which === 'momo' ? momoCharge : aggregatorCharge;
  const kept = charge('5678');
  expect(await world.rail.submit('collection', kept)).toMatchObject({ kind: 'accepted' });
  await world.fake.setListening(false);
  // The client's kept-alive connection is closed under it: a request racing that close would end
  // "other side closed" (maybe reached, never failed over); once the client saw it, a new connection is refused.
  await new Promise((resolve) => setTimeout(resolve, 100));
  const lost = await world.rail.submit('collection', charge('5678')).then(
    () => null,
    (error: unknown) => error,
  );
  expect(lost).toBeInstanceOf(RailUnavailable);
  expect((lost as RailUnavailable).notReached).toBe(true);
  await world.fake.setListening(true);
  expect(world.fake.transaction('collection', kept.referenceId)).toBeDefined();
  // Its status answered again, on the same address.
  expect(await world.rail.status('collection', kept.referenceId)).toHaveProperty('status');
});
