/**
 * A database outage is 503 `service_unavailable` (src/services/dependency-unavailable.ts), whichever
 * way pg reports it; anything else stays what it is (a 500). Issue 32: a chaos run that killed
 * PostgreSQL in the middle of a create got 500 for pg's "not queryable" errors.
 */
import { ApiError } from '../../src/domain/errors';
import { ServiceError } from '@temporalio/client';
import { asServiceUnavailable, isDatabaseBusy, isDatabaseUnreachable, isTemporalUnavailable } from '../../src/services/dependency-unavailable';

/** As MikroORM wraps a driver error: its own exception with the driver's message, the driver's error as cause. */
function wrapped(message: string): Error {
  const driver = new Error(message);
  return Object.assign(new Error(message), { name: 'DriverException', cause: driver });
}

test.each([
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  'Connection terminated unexpectedly',
  'timeout exceeded when trying to connect',
  'Query read timeout',
])('"%s" is the database being unreachable: 503 service_unavailable', (message) => {
  expect(isDatabaseUnreachable(wrapped(message))).toBe(true);
  const mapped = asServiceUnavailable(wrapped(message));
  expect(mapped).toBeInstanceOf(ApiError);
  expect((mapped as ApiError).code).toBe('service_unavailable');
});

test('other errors are not an outage', () => {
  const error = wrapped('duplicate key value violates unique constraint "charges_pkey"');
  expect(isDatabaseUnreachable(error)).toBe(false);
  expect(asServiceUnavailable(error)).toBe(error);
  expect(isDatabaseUnreachable(Object.assign(new Error('protocol'), { code: '08P01' }))).toBe(false);
});

test.each([
  ['55P03', 'canceling statement due to lock timeout'],
  ['57014', 'canceling statement due to statement timeout'],
  ['40P01', 'deadlock detected'],
  ['40001', 'could not serialize access due to concurrent update'],
])('SQLSTATE %s (%s) is the database being busy: 503 service_unavailable, not 500', (sqlState, message) => {
  const driver = Object.assign(new Error(message), { code: sqlState });
  const error = Object.assign(new Error(message), { name: 'DriverException', code: sqlState, sqlState, cause: driver });
  expect(isDatabaseBusy(error)).toBe(true);
  const mapped = asServiceUnavailable(error);
  expect(mapped).toBeInstanceOf(ApiError);
  expect((mapped as ApiError).code).toBe('service_unavailable');
});

test('a constraint or data error is not busy', () => {
  expect(isDatabaseBusy(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBe(false);
  expect(isDatabaseBusy(Object.assign(new Error('out of range'), { code: '22003' }))).toBe(false);
});

/** As the Temporal client reports a failed RPC: its ServiceError, the gRPC error (code, details, metadata) as cause. */
function grpcFailure(code: number, details: string): Error {
  const grpc = Object.assign(new Error(`${code} ${details}`), { code, details, metadata: {} });
  return new ServiceError('Failed to query Workflow', { cause: grpc });
}

test.each([
  [14, 'UNAVAILABLE: No connection established'],
  [4, 'DEADLINE_EXCEEDED: Deadline exceeded'],
  [1, 'CANCELLED: Call cancelled'],
])('a Temporal call failing with gRPC %i (%s) is Temporal being unavailable: 503 service_unavailable', (code, details) => {
  expect(isTemporalUnavailable(grpcFailure(code, details))).toBe(true);
  expect((asServiceUnavailable(grpcFailure(code, details)) as ApiError).code).toBe('service_unavailable');
});

test('an update refused because the run\'s workflow task is failing for now (gRPC 9, as a chaos run saw it) is 503: the update was not admitted', () => {
  const failing = grpcFailure(9, 'Unable to perform workflow execution update due to Workflow Task in failed state.');
  expect(isTemporalUnavailable(failing)).toBe(true);
  expect((asServiceUnavailable(failing) as ApiError).code).toBe('service_unavailable');
});

test('a Temporal call refused for what was asked (gRPC 3 INVALID_ARGUMENT, 5 NOT_FOUND, another 9 FAILED_PRECONDITION) is not an outage', () => {
  expect(isTemporalUnavailable(grpcFailure(3, 'INVALID_ARGUMENT: bad query'))).toBe(false);
  expect(isTemporalUnavailable(grpcFailure(5, 'NOT_FOUND: workflow not found'))).toBe(false);
  expect(isTemporalUnavailable(grpcFailure(9, 'Workflow execution already completed'))).toBe(false);
});
