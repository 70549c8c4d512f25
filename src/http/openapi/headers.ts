/**
 * The headers of every answer (components.headers) and of requests (components.parameters), as
 * src/http/middleware (request-id, rate-limit) and the create routes (Idempotent-Replayed) send them.
 */
export const RESPONSE_HEADERS = {
  'Request-Id': { description: 'The request\'s id (`req_…`), also in the error envelope and the access log.', schema: { type: 'string', pattern: '^req_' } },
  'RateLimit-Limit': { description: 'Requests per second allowed for this merchant (or address, without a valid key) on this listener; bursts up to twice that.', schema: { type: 'integer' } },
  'RateLimit-Remaining': { description: 'Requests left in the current window.', schema: { type: 'integer', minimum: 0 } },
  'RateLimit-Reset': { description: 'Seconds until the window resets.', schema: { type: 'integer', minimum: 0 } },
  'Retry-After': { description: 'Seconds to wait before retrying (429 and 503).', schema: { type: 'integer', minimum: 1 } },
  'Idempotent-Replayed': { description: '`true` when this answer is the stored answer of an earlier request with the same Idempotency-Key.', schema: { const: 'true' } },
  'Cache-Control': { description: 'Always `no-store`.', schema: { const: 'no-store' } },
  'X-Content-Type-Options': { description: 'Always `nosniff`.', schema: { const: 'nosniff' } },
} as const;

export type ResponseHeader = keyof typeof RESPONSE_HEADERS;

/** Headers on every answer. */
export const EVERY_ANSWER: ResponseHeader[] = ['Request-Id', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Cache-Control', 'X-Content-Type-Options'];

export const headerRefs = (names: ResponseHeader[]) => Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));

export const IDEMPOTENCY_KEY = {
  name: 'Idempotency-Key',
  in: 'header',
  description: 'A fresh key (a UUID) per attempt, kept at least 24 hours per merchant and environment. A repeat with the same body answers the first answer byte for byte with `Idempotent-Replayed: true`; with another body, 422 `idempotency_key_reused`; while the first is still running, 409 `idempotency_key_in_use`.',
  schema: { type: 'string', pattern: '^[!-~]{1,255}$' },
};
