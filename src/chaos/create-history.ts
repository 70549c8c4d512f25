import type { ApiAnswer } from './api-client';

/**
 * Every create the chaos load sent (issue 44: chaos as a history checker, Jepsen's shape): what was
 * asked (the Idempotency-Key, the amount, the currency, the body's own reference) and every answer of
 * every attempt under that key, so that the history check (checks/history.ts) can hold the engine
 * to what it acknowledged: an acknowledged create still exists with its amount, and one key made
 * one resource.
 */
export interface CreateAnswer {
  status: number;
  id: string | null;
  amount: number | null;
  currency: string | null;
}

export interface CreateRecord {
  /** The load operation (`sandbox_charge`, `live_payout`, `refund`, `dispute`, …). */
  op: string;
  environment: 'sandbox' | 'live';
  merchantId: string;
  /** The create's path (the resource kind): /v1/charges, /v1/payouts, /v1/refunds, /v1/sandbox/charges/{id}/disputes. */
  path: string;
  idempotencyKey: string | null;
  /** What the body asked for. */
  amount: number | null;
  currency: string | null;
  /** The body's `reference` (charges and payouts: unique per create in the load). */
  reference: string | null;
  answers: CreateAnswer[];
}

const numberOr = (v: unknown) => (typeof v === 'number' ? v : null);
const stringOr = (v: unknown) => (typeof v === 'string' ? v : null);

/** One attempt's answer as the history keeps it. */
export function createAnswer(answer: ApiAnswer): CreateAnswer {
  const body = (answer.body ?? {}) as Record<string, unknown>;
  return { status: answer.status, id: stringOr(body.id), amount: numberOr(body.amount), currency: stringOr(body.currency) };
}

/** A new record of a create about to be sent. */
export function createRecord(op: string, environment: CreateRecord['environment'], merchantId: string, path: string, body: unknown, idempotencyKey: string | undefined): CreateRecord {
  const b = (body ?? {}) as Record<string, unknown>;
  return { op, environment, merchantId, path, idempotencyKey: idempotencyKey ?? null, amount: numberOr(b.amount), currency: stringOr(b.currency), reference: stringOr(b.reference), answers: [] };
}

/** The answers that acknowledged the create: a 2xx naming a resource. */
export function acknowledgements(record: CreateRecord): CreateAnswer[] {
  return record.answers.filter((a) => a.status >= 200 && a.status < 300 && a.id !== null);
}
