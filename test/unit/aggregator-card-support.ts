/**
 * What the card tests share (test/unit/aggregator-card*.test.ts): the aggregator world of
 * aggregator-support.ts with the card client beside the adapter, card numbers that pick the fake's
 * behaviours, and the 3-D Secure page driven over HTTP as a browser would (no script to run).
 */
import { testCardNumber } from '../../src/rail/aggregator/fake/test-cards';
import { randomBytes, randomUUID } from 'node:crypto';
import { AggregatorCards, type CardChargeRequest, type CardInput } from '../../src/rail/aggregator/card';
import type { FakeAggregatorOptions } from '../../src/rail/aggregator/fake';
import { startAggregatorWorld, type AggregatorWorld } from './aggregator-support';

export interface CardWorld extends AggregatorWorld {
  cards: AggregatorCards;
  cardWarnings: Array<{ fields: unknown; message: string }>;
}

export async function startCardWorld(options: FakeAggregatorOptions & { timeoutMs?: number } = {}): Promise<CardWorld> {
  const world = await startAggregatorWorld(options);
  const cardWarnings: CardWorld['cardWarnings'] = [];
  const cards = new AggregatorCards(world.config, { logger: { warn: ((fields: unknown, message: string) => cardWarnings.push({ fields, message })) as never } });
  return {
    ...world,
    cards,
    cardWarnings,
    async close() {
      await cards.close();
      await world.close();
    },
  };
}

/** A Luhn-valid card number of `prefix` (a Visa by default), `length` digits, ending in `last4` (the fake's behaviour). */
export const cardNumber = testCardNumber;

/** A card ending in `last4`, expiring in two years, CVV 987. */
export function card(last4 = '4242', overrides: Partial<CardInput> = {}): CardInput {
  return { number: cardNumber(last4), expiryMonth: 9, expiryYear: new Date().getUTCFullYear() + 2, cvv: '987', ...overrides };
}

export const RETURN_URL = 'https://merchant.example/checkout/tok_123/return?lang=en';

export function cardRequest(overrides: Partial<CardChargeRequest> = {}): CardChargeRequest {
  return {
    referenceId: randomUUID(),
    amount: 4_200,
    currency: 'USD',
    message: 'Order 42',
    externalId: `txn_${randomBytes(6).toString('hex')}`,
    redirectUrl: RETURN_URL,
    ...overrides,
  };
}

/** A browser on the fake's 3-D Secure page: GET it, then press a button (POST its form) and read where the 303 goes. */
export async function threeDs(url: string, action?: 'authenticate' | 'cancel'): Promise<{ page: { status: number; html: string; headers: Headers }; after?: { status: number; location: string | null } }> {
  const got = await fetch(url);
  const page = { status: got.status, html: await got.text(), headers: got.headers };
  if (!action) return { page };
  const form = new RegExp(`<form method="post" action="([^"]+)"><input type="hidden" name="action" value="${action}"><button type="submit" id="${action}">`).exec(page.html);
  if (!form) throw new Error(`no ${action} form on the page (HTTP ${page.status})`);
  const posted = await fetch(new URL(form[1].replace(/&#(\d+);/g, (_, c: string) => String.fromCharCode(Number(c))), url), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ action }).toString(),
    redirect: 'manual',
  });
  await posted.text();
  return { page, after: { status: posted.status, location: posted.headers.get('location') } };
}
