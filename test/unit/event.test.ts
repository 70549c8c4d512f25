import { serialiseEvent } from '../../src/domain/event';

test('an event is serialised once, in the documented field order, with data unchanged', () => {
  const body = serialiseEvent('evt_1', 7, {
    merchantId: 'mer_1',
    environment: 'sandbox',
    type: 'transaction.succeeded',
    resourceType: 'transaction',
    resourceId: 'txn_1',
    transactionId: 'txn_1',
    createdAt: '2026-11-22T00:00:00.000Z',
    dataJson: '{"id":"txn_1","metadata":{"z":1,"10":2}}',
  });
  expect(body).toBe(
    '{"id":"evt_1","object":"event","type":"transaction.succeeded","resource_type":"transaction","resource_id":"txn_1",' +
      '"transaction_id":"txn_1","sequence":7,"created_at":"2026-11-22T00:00:00.000Z","data":{"id":"txn_1","metadata":{"z":1,"10":2}}}',
  );
});
