import { serialiseEvent, serialiseEventAround } from '../../src/domain/event';

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

test('issue 48: the body split around the sequence is the same bytes for any sequence, whatever the data holds', () => {
  const draft = {
    merchantId: 'mer_1',
    environment: 'sandbox' as const,
    type: 'transaction.succeeded',
    resourceType: 'transaction',
    resourceId: 'txn_1',
    createdAt: '2026-11-22T00:00:00.000Z',
    // Data that looks like the envelope's sequence must not be touched.
    dataJson: '{"id":"txn_1","metadata":{"sequence":-1,"x":"\\"sequence\\":-1,"}}',
  };
  const { before, after } = serialiseEventAround('evt_1', draft);
  for (const sequence of [1, 7, 12345678901]) expect(`${before}${sequence}${after}`).toBe(serialiseEvent('evt_1', sequence, draft));
  expect(serialiseEventAround('evt_2', { ...draft, transactionId: 'txn_1' }).before).toBe(
    '{"id":"evt_2","object":"event","type":"transaction.succeeded","resource_type":"transaction","resource_id":"txn_1","transaction_id":"txn_1","sequence":',
  );
});
