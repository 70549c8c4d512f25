/**
 * PostgreSQL errors that the same input will always raise again: SQLSTATE class 22 (data exception:
 * a value out of range, bad encoding), class 23 (integrity constraint violation) and 08P01 (protocol
 * violation: what PostgreSQL answers when a text parameter holds a NUL character).
 * Retrying them only adds history and load, so activities turn them into non-retryable failures.
 * Connection errors, lock and statement timeouts, deadlocks and serialisation failures are transient.
 */
export function sqlStateOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const candidate = (error as { sqlState?: unknown; code?: unknown }).sqlState ?? (error as { code?: unknown }).code;
  return typeof candidate === 'string' && /^[0-9A-Z]{5}$/.test(candidate) ? candidate : undefined;
}

export function isDeterministicDbError(error: unknown): boolean {
  const state = sqlStateOf(error);
  return state !== undefined && (state.startsWith('22') || state.startsWith('23') || state === '08P01');
}

/**
 * The message such a failure carries into workflow history: the SQLSTATE and the first line only,
 * because the driver's detail lines quote row values (customer data, a receiver's answer).
 */
export function deterministicDbMessage(error: unknown): string {
  const firstLine = String((error as Error)?.message ?? error).split('\n')[0];
  return `database refused the input (SQLSTATE ${sqlStateOf(error)}): ${firstLine}`;
}

/** The error type workflows list as non-retryable and operators see in the failure. */
export const DETERMINISTIC_DB_ERROR = 'DeterministicDatabaseError';
