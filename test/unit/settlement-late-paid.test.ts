import { retryPartnerRefusal, retryRecordRefusal } from '../../src/domain/settlement-retry';
import { latePaidBatchSkip, skipReason } from '../../src/persistence/settlements/settlement-balances';

/** Issue 43, finding 4: a failed live batch the partner paid after all is neither retried nor swept again. */
describe('a failed live batch paid after all', () => {
  const none = { hasReference: true, lateAnswer: null, partnerSucceeded: false };

  test('the retry is refused on our records: late money recorded (settled or not), or the partner\'s SUCCESSFUL on record; the refusal names settle-late', () => {
    expect(retryRecordRefusal('stl_a', none)).toBeNull();
    expect(retryRecordRefusal('stl_a', { ...none, lateAnswer: { settledAction: null } })).toMatch(/late SUCCESSFUL recorded.*payments settle-late stl_a --action accept/);
    expect(retryRecordRefusal('stl_a', { ...none, lateAnswer: { settledAction: 'accept' } })).toMatch(/already settled with "accept"/);
    expect(retryRecordRefusal('stl_a', { ...none, partnerSucceeded: true })).toMatch(/SUCCESSFUL for this batch is on record.*payments settle-late stl_a --action accept/);
    expect(retryPartnerRefusal('stl_a', 'succeeded')).toMatch(/payments settle-late stl_a --action accept/);
    // Another failed batch of the balance paid after all: the new batch would sweep its released money again.
    expect(retryRecordRefusal('stl_a', { ...none, otherLatePaid: 'stl_z' })).toMatch(/batch stl_z of the same balance.*payments settle-late stl_z --action accept/);
    expect(retryRecordRefusal('stl_a', { ...none, otherLatePaid: null })).toBeNull();
  });

  test('the daily run skips the live balance until the late money is settled; before any unanswered batch, never in the sandbox', () => {
    const balance = { environment: 'live' as const, currency: 'GHS', hasAccount: true, bankCode: 'GCB', bankCurrency: 'GHS', unansweredBatch: 'stl_b', latePaidBatch: 'stl_a' };
    expect(skipReason(balance, 'partner')).toBe(latePaidBatchSkip('stl_a'));
    expect(latePaidBatchSkip('stl_a')).toContain('payments settle-late stl_a --action accept');
    expect(skipReason({ ...balance, latePaidBatch: null, unansweredBatch: null }, 'partner')).toBeNull();
    expect(skipReason({ ...balance, environment: 'sandbox' }, 'partner')).toBeNull();
  });
});
