import type { temporal } from '@temporalio/proto';
import { auditedRequestId } from '../../src/runtime/audit-identity';
import { identityOfUpdate } from '../../src/temporal/update-identity';

// Issue 43 (Low): Temporal's identity of an audited update, read from the run's history.

const accepted = (updateId: string, identity: string | undefined): temporal.api.history.v1.IHistoryEvent => ({
  workflowExecutionUpdateAcceptedEventAttributes: { protocolInstanceId: updateId, acceptedRequest: { meta: { updateId, ...(identity === undefined ? {} : { identity }) } } },
});

describe('identityOfUpdate', () => {
  const history = { events: [{ workflowExecutionStartedEventAttributes: { identity: 'api@host' } }, accepted('upd-1', 'cli-4242@ops'), accepted('upd-2', 'webui')] };
  test("the update's own acceptance names it, not the run's starter or another update", () => {
    expect(identityOfUpdate(history, 'upd-1')).toBe('cli-4242@ops');
    expect(identityOfUpdate(history, 'upd-2')).toBe('webui');
  });
  test('not accepted (yet), or accepted with no identity: null', () => {
    expect(identityOfUpdate(history, 'upd-3')).toBeNull();
    expect(identityOfUpdate({ events: [accepted('upd-4', undefined)] }, 'upd-4')).toBeNull();
    expect(identityOfUpdate({}, 'upd-1')).toBeNull();
  });
});

describe('auditedRequestId: which activities write an audit row of a request', () => {
  test('recordOperatorAction: its entry; a write of the record: its audit', () => {
    expect(auditedRequestId('recordOperatorAction', [{ paymentId: 'po_1', requestId: 'upd-1' }])).toBe('upd-1');
    expect(auditedRequestId('payoutTransition', [{ payoutId: 'po_1', to: 'failed', audit: { requestId: 'upd-2' } }])).toBe('upd-2');
  });
  test('anything else: none', () => {
    expect(auditedRequestId('payoutTransition', [{ payoutId: 'po_1', to: 'succeeded' }])).toBeNull();
    expect(auditedRequestId('railStatus', [{ paymentId: 'po_1', requestId: 'x' }])).toBeNull();
    expect(auditedRequestId('beginPayout', ['po_1'])).toBeNull();
    expect(auditedRequestId('recordOperatorAction', [])).toBeNull();
  });
});
