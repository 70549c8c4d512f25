import { CURRENCY_EXPONENTS } from '../../momo-amount';
import { fromAggregatorAmount } from '../amount';
import { errorAnswer } from '../errors';
import type { Reply } from './views';

/** Reading a submission's body as the aggregator would: each reader answers the value, or the refusal (a Reply) to send. */

export type Body = Record<string, unknown>;

export function isBody(body: unknown): body is Body {
  return typeof body === 'object' && body !== null && !Array.isArray(body);
}

export function invalid(message: string): Reply {
  return errorAnswer('INVALID_REQUEST', message);
}

/** A required reference (`tx_ref`, `reference`): 1 to 100 characters. */
export function referenceField(body: Body, name: 'tx_ref' | 'reference'): string | Reply {
  const value = body[name];
  if (typeof value !== 'string' || value.trim() === '' || value.length > 100) return invalid(`${name} is required: a unique reference of at most 100 characters`);
  return value;
}

/** A currency with a known exponent. */
export function currencyField(body: Body): string | Reply {
  const currency = body.currency;
  if (typeof currency !== 'string' || !Object.hasOwn(CURRENCY_EXPONENTS, currency)) return errorAnswer('UNSUPPORTED_CURRENCY', typeof currency === 'string' ? `Currency ${currency.slice(0, 8)} is not supported` : 'currency is required');
  return currency;
}

/** A positive amount (a number, or a decimal string) with at most the currency's decimals, in minor units. */
export function amountField(body: Body, currency: string, name = 'amount'): number | Reply {
  const minor = fromAggregatorAmount(body[name], currency);
  if (minor === undefined || minor <= 0) return invalid(`${name} must be a positive number with at most ${CURRENCY_EXPONENTS[currency]} decimals in ${currency}`);
  return minor;
}

/** An optional text, cut to `max`. */
export function textField(body: Body, name: string, max = 200): string {
  const value = body[name];
  return typeof value === 'string' ? value.slice(0, max) : '';
}

/** `meta.external_id`, if any. */
export function externalIdOf(body: Body): string {
  const meta = body.meta;
  const id = isBody(meta) ? meta.external_id : undefined;
  return typeof id === 'string' ? id : '';
}

export const PHONE = /^[0-9]{8,15}$/;
export const BANK_CODE = /^[A-Za-z0-9_-]{2,20}$/;
export const ACCOUNT_NUMBER = /^[0-9A-Za-z]{4,34}$/;

export function isReply(value: unknown): value is Reply {
  return typeof value === 'object' && value !== null && 'status' in value && typeof (value as Reply).status === 'number';
}
