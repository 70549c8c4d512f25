import type { ApiError } from '../domain/errors';

/** The documented error envelope of INTERFACE.md, serialised. */
export function renderError(error: ApiError, requestId: string): { status: number; body: string } {
  return {
    status: error.status,
    body: JSON.stringify({
      error: {
        type: error.type,
        code: error.code,
        message: error.message,
        ...error.extras,
        request_id: requestId,
      },
    }),
  };
}
