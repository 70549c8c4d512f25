import type { ApiResponse } from './harness';

const ENVELOPE_KEYS = ['type', 'code', 'message', 'param', 'failure_class', 'transaction_id', 'request_id'];

/**
 * The documented error envelope `{"error":{type,code,message,param?,failure_class?,transaction_id?,request_id}}`
 * and nothing else, with the request id echoed in `Request-Id`. `param`: the exact parameter, or
 * null/undefined when none applies (then it must be absent).
 */
export function expectError(res: ApiResponse, status: number, code: string, param?: string | null): void {
  expect({ status: res.status, code: res.json?.error?.code }).toEqual({ status, code });
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(Object.keys(res.json)).toEqual(['error']);
  const error = res.json.error;
  expect(Object.keys(error).filter((k) => !ENVELOPE_KEYS.includes(k))).toEqual([]);
  expect(typeof error.type).toBe('string');
  expect(error.type.length).toBeGreaterThan(0);
  expect(typeof error.message).toBe('string');
  expect(error.message.length).toBeGreaterThan(0);
  expect(error.request_id).toMatch(/^req_[A-Za-z0-9]+$/);
  expect(res.headers.get('request-id')).toBe(error.request_id);
  if (param == null) expect(error).not.toHaveProperty('param');
  else expect(error.param).toBe(param);
}
