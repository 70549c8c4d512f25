/**
 * What the aggregator tests share (test/unit/aggregator-*.test.ts): the fake aggregator and the real
 * adapter over real HTTP on 127.0.0.1, and a small local server taking the webhooks the way the
 * engine's route would (checked with verifyAggregatorWebhook). No database, no Temporal, no mock.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes, randomUUID } from 'node:crypto';
import { startFakeAggregator, type FakeAggregator, type FakeAggregatorOptions } from '../../src/rail/aggregator/fake';
import { AggregatorRail } from '../../src/rail/aggregator/adapter';
import { verifyAggregatorWebhook } from '../../src/rail/aggregator/webhook';
import type { AggregatorConfig } from '../../src/rail/aggregator/config';
import type { RailCallback, RailRequest, RailResource, RailStatus } from '../../src/rail/partner-rail';

export interface ReceivedWebhook {
  at: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** What verifyAggregatorWebhook made of it with the fake's hash. */
  verified: RailCallback | { refused: 'forged' | 'malformed' };
}

export interface AggregatorWorld {
  fake: FakeAggregator;
  rail: AggregatorRail;
  config: AggregatorConfig;
  received: ReceivedWebhook[];
  warnings: Array<{ fields: unknown; message: string }>;
  close(): Promise<void>;
}

export async function startAggregatorWorld(options: FakeAggregatorOptions & { timeoutMs?: number } = {}): Promise<AggregatorWorld> {
  const { timeoutMs, ...fakeOptions } = options;
  const fake = await startFakeAggregator(fakeOptions);
  const received: ReceivedWebhook[] = [];
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      received.push({ at: Date.now(), headers: req.headers, body, verified: verifyAggregatorWebhook(fake.webhookHash, req.headers, body) });
      res.writeHead(200, { 'content-length': '0' }).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  fake.setWebhookUrl(`http://127.0.0.1:${(receiver.address() as AddressInfo).port}/partner/aggregator/webhooks`);
  const config = fake.config({ timeoutMs: timeoutMs ?? 2_500 });
  const warnings: AggregatorWorld['warnings'] = [];
  const rail = new AggregatorRail(config, { logger: { warn: ((fields: unknown, message: string) => warnings.push({ fields, message })) as never } });
  return {
    fake,
    rail,
    config,
    received,
    warnings,
    async close() {
      await rail.close();
      await fake.close();
      await new Promise((resolve) => receiver.close(resolve));
    },
  };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function waitFor<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 5_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** Polls the status until it is no longer pending (the workflow's timer, fast). */
export function finalStatus(rail: AggregatorRail, resource: RailResource, referenceId: string, timeoutMs = 5_000): Promise<RailStatus> {
  return waitFor(`a final status of ${resource} ${referenceId}`, async () => {
    const s = await rail.status(resource, referenceId);
    return s.status === 'pending' ? undefined : s;
  }, timeoutMs);
}

/** A mobile-money charge in GHS from an MTN number ending in `suffix` (`5678`: plain success). */
export function chargeRequest(suffix = '5678', overrides: Partial<RailRequest> = {}): RailRequest {
  return {
    referenceId: randomUUID(),
    amount: 15_005,
    currency: 'GHS',
    externalId: `txn_${randomBytes(6).toString('hex')}`,
    party: { partyIdType: 'MSISDN', partyId: `23324123${suffix}` },
    message: 'Order 42',
    ...overrides,
  };
}

/** A bank-transfer charge from a payer account ending in `suffix`. */
export function bankChargeRequest(suffix = '5678', overrides: Partial<RailRequest> = {}): RailRequest {
  return chargeRequest(suffix, { party: { partyIdType: 'BANK_ACCOUNT', partyId: `GCB:100200${suffix}` }, ...overrides });
}

/** A transfer to a bank account ending in `suffix` (a settlement's or a bank payout's). */
export function transferRequest(suffix = '5678', overrides: Partial<RailRequest> = {}): RailRequest {
  return {
    referenceId: randomUUID(),
    amount: 250_000,
    currency: 'GHS',
    externalId: `po_${randomBytes(6).toString('hex')}`,
    party: { partyIdType: 'BANK_ACCOUNT', partyId: `GCB:300400${suffix}` },
    message: 'Settlement of 2026-12-16',
    ...overrides,
  };
}

/** A refund of `charge` (its payer as the party), for `amount` minor units (default: all of it). */
export function refundRequest(charge: RailRequest, overrides: Partial<RailRequest> = {}): RailRequest {
  return {
    referenceId: randomUUID(),
    amount: charge.amount,
    currency: charge.currency,
    externalId: `re_${randomBytes(12).toString('hex')}`,
    party: charge.party,
    message: 'Refund of order 42',
    referenceIdToRefund: charge.referenceId,
    ...overrides,
  };
}

/** A charge through the adapter, waited for until final. */
export async function paidCharge(world: AggregatorWorld, suffix = '5678', overrides: Partial<RailRequest> = {}): Promise<{ charge: RailRequest; final: RailStatus }> {
  const charge = chargeRequest(suffix, overrides);
  const submitted = await world.rail.submit('collection', charge);
  if (submitted.kind !== 'accepted') throw new Error(`the charge was not accepted: ${JSON.stringify(submitted)}`);
  return { charge, final: await finalStatus(world.rail, 'collection', charge.referenceId) };
}

export function webhooksOf(world: AggregatorWorld, referenceId: string): ReceivedWebhook[] {
  return world.received.filter((r) => 'referenceId' in r.verified && r.verified.referenceId === referenceId.toLowerCase());
}

/** A raw call to the fake with its key (for what the adapter never sends). */
export async function rawCall(world: AggregatorWorld, method: 'GET' | 'POST', path: string, body?: unknown, key = world.fake.secretKey): Promise<{ status: number; json: any }> {
  const res = await fetch(`${world.fake.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : undefined };
}
