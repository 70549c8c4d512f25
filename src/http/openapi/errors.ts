import { ERROR_STATUS, type ErrorCode } from '../../domain/errors';

/** The error codes answered with `status` (INTERFACE.md "Errors", src/domain/errors.ts). */
export function codesOf(status: number): ErrorCode[] {
  return (Object.keys(ERROR_STATUS) as ErrorCode[]).filter((code) => ERROR_STATUS[code] === status);
}

/** Every status an error is answered with. */
export const ERROR_STATUSES = [...new Set(Object.values(ERROR_STATUS))].sort((a, b) => a - b);

/** The one error envelope (src/http/middleware/errors.ts renders it). */
export const ERROR_ENVELOPE = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['type', 'code', 'message', 'request_id'],
      properties: {
        type: { type: 'string', description: 'invalid_request_error, authentication_error, permission_error, rate_limit_error, idempotency_error, partner_error or api_error.' },
        code: { type: 'string', enum: Object.keys(ERROR_STATUS) },
        message: { type: 'string' },
        param: { type: 'string', description: 'The offending parameter or field (dotted path), when one is to blame.' },
        failure_class: { type: 'string' },
        transaction_id: { type: 'string', description: 'With `partner_timeout`: the charge that stays unresolved.' },
        request_id: { type: 'string', pattern: '^req_' },
      },
    },
  },
};

/** The schema of an error answer with `status`: the envelope, its code one of that status's. */
export function errorSchemaOf(status: number): Record<string, unknown> {
  return {
    allOf: [{ $ref: '#/components/schemas/Error' }, { type: 'object', properties: { error: { type: 'object', properties: { code: { enum: codesOf(status) } } } } }],
  };
}

/** The codes table, as a Markdown table for the document's description. */
export function codesTable(): string {
  const rows = ERROR_STATUSES.map((status) => `| ${status} | ${codesOf(status).map((c) => `\`${c}\``).join(', ')} |`);
  return ['| status | code(s) |', '|---|---|', ...rows].join('\n');
}
