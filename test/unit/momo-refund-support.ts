/**
 * What the refund tests share (test/unit/momo-refund-adapter.test.ts,
 * test/unit/fake-partner-refund-behaviours.test.ts): the fake partner and the real adapter over
 * real HTTP on 127.0.0.1, and a small local server that takes the partner's callbacks the way our
 * callback route would (checked with verifyCallback by the tests). No database, no Temporal, no mock.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes, randomUUID } from 'node:crypto';
import { startFakePartner, type FakePartner, type FakePartnerOptions } from '../../src/rail/fake-partner';
import { MomoPartnerRail } from '../../src/rail/momo-adapter';
import { callbackAnswer } from '../../src/rail/momo-callback';
import type { PartnerConfig } from '../../src/rail/partner-config';
import type { RailRequest, RailResource, RailStatus } from '../../src/rail/partner-rail';

export interface Received {
  at: number;
  method: string;
  /** The route's resource segment: `collection`, `disbursement` or `refund`. */
  product: string;
  referenceId: string;
  token: string | null;
  body: string;
}

export interface RefundWorld {
  fake: FakePartner;
  rail: MomoPartnerRail;
  config: PartnerConfig;
  received: Received[];
  close(): Promise<void>;
}

export const SECRET = randomBytes(32).toString('base64url');

export async function startRefundWorld(options: FakePartnerOptions & { timeoutMs?: number }): Promise<RefundWorld> {
  const received: Received[] = [];
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://receiver');
      const match = /^\/partner\/momo\/callbacks\/([^/]+)\/([^/]+)$/.exec(url.pathname);
      received.push({
        at: Date.now(),
        method: req.method ?? '',
        product: match?.[1] ?? '',
        referenceId: decodeURIComponent(match?.[2] ?? ''),
        token: url.searchParams.get('token'),
        body: Buffer.concat(chunks).toString('utf8'),
      });
      const answer = callbackAnswer('accepted');
      res.writeHead(answer.status, { 'content-length': '0' }).end(answer.body);
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const { timeoutMs, ...fakeOptions } = options;
  const fake = await startFakePartner(fakeOptions);
  // 15 s, not 2.5 s: a loaded CI machine took longer than 2.5 s for one answer on 127.0.0.1 (2026-11-30). The timeout's own behaviour passes its own `timeoutMs`.
  const config = fake.partnerConfig({ callbackBaseUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`, callbackSecret: SECRET, timeoutMs: timeoutMs ?? 15_000 });
  const rail = new MomoPartnerRail(config);
  return {
    fake,
    rail,
    config,
    received,
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
export function finalStatus(rail: MomoPartnerRail, resource: RailResource, referenceId: string, timeoutMs = 5_000): Promise<RailStatus> {
  return waitFor(`a final status of ${resource} ${referenceId}`, async () => {
    const s = await rail.status(resource, referenceId);
    return s.status === 'pending' ? undefined : s;
  }, timeoutMs);
}

/** A request-to-pay whose payer ends in `suffix` (`5678`: plain success). */
export function chargeRequest(suffix = '5678', overrides: Partial<RailRequest> = {}): RailRequest {
  return {
    referenceId: randomUUID(),
    amount: 15_000,
    currency: 'GHS',
    externalId: `txn_${randomBytes(6).toString('hex')}`,
    party: { partyIdType: 'MSISDN', partyId: `23324123${suffix}` },
    message: 'Order 42',
    ...overrides,
  };
}

/** A refund of `charge` (its payer as the party, MoMo's body naming none), for `amount` minor units (default: all of it). */
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

/** A request-to-pay sent through the adapter and waited for until the fake says SUCCESSFUL (or another final word). */
export async function paidCharge(world: RefundWorld, suffix = '5678', overrides: Partial<RailRequest> = {}): Promise<{ charge: RailRequest; final: RailStatus }> {
  const charge = chargeRequest(suffix, overrides);
  const submitted = await world.rail.submit('collection', charge);
  if (submitted.kind !== 'accepted') throw new Error(`the request-to-pay was not accepted: ${JSON.stringify(submitted)}`);
  return { charge, final: await finalStatus(world.rail, 'collection', charge.referenceId) };
}

export function callbacksOf(world: RefundWorld, referenceId: string): Received[] {
  return world.received.filter((r) => r.referenceId === referenceId);
}
