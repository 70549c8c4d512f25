import { ApplicationFailure } from '@temporalio/common';
import { nonRetryableRail, railFailure } from '../../activities/rail-errors';
import { RailUnavailable, type PartnerRail } from '../../src/rail/partner-rail';
import { RailMisconfigured, RailRequestInvalid } from '../../src/rail/rail-errors';

const request = { referenceId: '0b8a6f2e-4c1d-4e8b-9a3f-2d7c5e1b9a04', amount: 100, currency: 'GHS', externalId: 'txn_1', party: { partyIdType: 'MSISDN' as const, partyId: '233241230001' }, message: 'x' };

function failing(error: Error): PartnerRail {
  return { submit: () => Promise.reject(error), status: () => Promise.reject(error) };
}

describe('rail errors a retry cannot cure are non-retryable activity failures', () => {
  test.each([
    ['RailMisconfigured', new RailMisconfigured('the partner refused our collection credentials (HTTP 401 on POST /collection/token/)', 401)],
    ['RailRequestInvalid', new RailRequestInvalid('no known minor-unit exponent for currency "XYZ"')],
  ])('%s: ApplicationFailure, nonRetryable, typed by its name, from submit and status', async (type, error) => {
    const rail = nonRetryableRail(failing(error));
    for (const call of [() => rail.submit('collection', request), () => rail.status('disbursement', request.referenceId)]) {
      const thrown = await call().then(() => undefined, (e: unknown) => e);
      expect(thrown).toBeInstanceOf(ApplicationFailure);
      expect(thrown).toMatchObject({ nonRetryable: true, type, message: error.message, cause: error });
    }
  });

  test('RailUnavailable and anything else stay as they are: Temporal retries them', async () => {
    const unavailable = new RailUnavailable('GET /collection/v1_0/requesttopay/x: HTTP 503', 503);
    await expect(nonRetryableRail(failing(unavailable)).status('collection', request.referenceId)).rejects.toBe(unavailable);
    const other = new Error('boom');
    expect(railFailure(other)).toBe(other);
  });

  test('answers pass through unchanged', async () => {
    const rail = nonRetryableRail({ submit: () => Promise.resolve({ kind: 'accepted' }), status: () => Promise.resolve({ status: 'pending' }) });
    await expect(rail.submit('collection', request)).resolves.toEqual({ kind: 'accepted' });
    await expect(rail.status('collection', request.referenceId)).resolves.toEqual({ status: 'pending' });
  });
});
