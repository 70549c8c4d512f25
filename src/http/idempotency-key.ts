import type { Context } from 'koa';
import { ApiError } from '../domain/errors';

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** The Idempotency-Key header, checked; undefined when absent. */
export function idempotencyKeyOf(ctx: Context): string | undefined {
  const key = ctx.get('Idempotency-Key');
  if (!key) return undefined;
  if (!IDEMPOTENCY_KEY.test(key)) throw new ApiError('invalid_request', 'Idempotency-Key must be 1–255 printable ASCII characters.', { param: 'Idempotency-Key' });
  return key;
}
