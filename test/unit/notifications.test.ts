/**
 * The pure parts of notifications (docs/notifications.md): where a receipt goes, the id of a
 * notification, amounts, the templates' test-mode marks, and the settings (never echoing a secret).
 */
import path from 'node:path';
import { ID_BODY } from '../../src/domain/ids';
import { formatAmount, formatTime } from '../../src/domain/money-format';
import { describeNotificationTransports, loadNotificationConfig } from '../../src/notifications/notification-config';
import { notificationId } from '../../src/notifications/notification-id';
import { NOTIFYING_EVENTS } from '../../src/notifications/notification-kinds';
import { customerContact, maskContact, parseEmail } from '../../src/notifications/recipient';
import { renderEmail, renderSms, type RenderInput } from '../../src/notifications/templates';

describe('where the customer receipt goes', () => {
  test.each([
    ['ama@example.com', 'mobile_money', { channel: 'email', to: 'ama@example.com' }],
    [' ama@example.com ', 'card', { channel: 'email', to: 'ama@example.com' }],
    ['233241234567', 'mobile_money', { channel: 'sms', to: '233241234567' }],
    ['+233 24-123.4567', 'mobile_money', { channel: 'sms', to: '+233241234567' }],
    ['024123456', 'mobile_money', { channel: 'sms', to: '024123456' }],
    ['12345678', 'mobile_money', null],
    ['1234567890123456', 'mobile_money', null],
    ['4111111111111111', 'card', null],
    ['0012345678901', 'bank', null],
    ['ama@localhost', 'mobile_money', null],
    ['ama@exa mple.com', 'mobile_money', null],
    ['ama@example.com\r\nBcc: x@y.z', 'mobile_money', null],
    ['not a contact', 'mobile_money', null],
  ])('%j (%s) → %j', (identifier, channel, expected) => {
    expect(customerContact(identifier, channel)).toEqual(expected);
  });

  test('masked for rows and logs: the last four digits, or the first letter and the domain', () => {
    expect(maskContact({ channel: 'sms', to: '+233241234567' })).toBe('*********4567');
    expect(maskContact({ channel: 'email', to: 'ama.mensah@example.com' })).toBe('a***@example.com');
  });

  test('a merchant email is at most 254 characters, with no spaces or angle brackets', () => {
    expect(parseEmail(' ops@merchant.example ')).toBe('ops@merchant.example');
    expect(parseEmail(`${'a'.repeat(64)}@${'b'.repeat(185)}.com`)).not.toBeNull();
    expect(parseEmail(`${'a'.repeat(64)}@${'b'.repeat(186)}.com`)).toBeNull();
    for (const bad of ['', 'ops', 'ops@', '@merchant.example', 'ops@merchant', 'Ops <ops@merchant.example>', 'a@b@c.d']) expect(parseEmail(bad)).toBeNull();
  });
});

test('a notification id is fixed by its source and recipient', () => {
  const id = notificationId('evt_abc', 'customer');
  expect(id).toMatch(/^ntf_/);
  expect(ID_BODY.test(id.slice(4))).toBe(true);
  expect(notificationId('evt_abc', 'customer')).toBe(id);
  expect(notificationId('evt_abc', 'merchant')).not.toBe(id);
  expect(notificationId('evt_abd', 'customer')).not.toBe(id);
});

test('the events that notify, and whom', () => {
  expect(Object.fromEntries(Object.entries(NOTIFYING_EVENTS).map(([type, n]) => [type, `${n.recipient}:${n.kind}`]))).toEqual({
    'transaction.succeeded': 'customer:charge_receipt',
    'payout.held_for_review': 'merchant:payout_held_for_review',
    'settlement.paid': 'merchant:settlement_paid',
    'settlement.failed': 'merchant:settlement_failed',
    'dispute.opened': 'merchant:dispute_opened',
  });
});

test('amounts in minor units, exactly, with the currency', () => {
  expect(formatAmount(15000, 'GHS', 2)).toBe('GHS 150.00');
  expect(formatAmount(5, 'GHS', 2)).toBe('GHS 0.05');
  expect(formatAmount(123456789, 'GHS', 2)).toBe('GHS 1,234,567.89');
  expect(formatAmount(15000, 'UGX', 0)).toBe('UGX 15,000');
  expect(formatAmount('90071992547409931', 'GHS', 2)).toBe('GHS 900,719,925,474,099.31');
  expect(formatAmount(-2500, 'KES', 2)).toBe('KES -25.00');
  expect(formatTime('2026-11-26T10:00:59.999Z')).toBe('2026-11-26 10:00 UTC');
});

describe('templates: [TEST] and the TEST MODE badge in the sandbox, neither in live', () => {
  const receipt = (environment: 'sandbox' | 'live'): RenderInput => ({
    kind: 'charge_receipt',
    environment,
    merchantName: 'Kente & <Co>',
    resource: { id: 'txn_1', amount: 15000, currency: 'GHS', reference: 'PAY-ABC', your_reference: 'order-9', customer: { masked: '********4567' } },
    occurredAt: '2026-11-26T10:00:00.000Z',
    minorUnits: 2,
  });

  test('sandbox email: subject, text and HTML marked', () => {
    const email = renderEmail(receipt('sandbox'));
    expect(email.subject).toBe('[TEST] Receipt from Kente & <Co>: GHS 150.00');
    expect(email.text.split('\n')[0]).toBe('*** TEST MODE *** This message is about sandbox activity: no money moved.');
    expect(email.html).toContain('>TEST MODE</p>');
    for (const shown of ['GHS 150.00', 'PAY-ABC', 'order-9', '2026-11-26 10:00 UTC', 'txn_1']) {
      expect(email.text).toContain(shown);
      expect(email.html).toContain(shown);
    }
    // The merchant's name is escaped in HTML.
    expect(email.html).toContain('Kente &amp; &lt;Co&gt;');
    expect(email.html).not.toContain('<Co>');
    expect(email.text.split('\n').every((line) => line.length <= 76)).toBe(true);
  });

  test('live email: no mark anywhere', () => {
    const email = renderEmail(receipt('live'));
    expect(email.subject).toBe('Receipt from Kente & <Co>: GHS 150.00');
    expect(`${email.subject}${email.text}${email.html}`).not.toMatch(/TEST/);
  });

  test('SMS: [TEST] first in the sandbox only', () => {
    expect(renderSms(receipt('sandbox'))).toBe('[TEST] Receipt: you paid GHS 150.00 to Kente & <Co>. Ref PAY-ABC, 2026-11-26 10:00 UTC.');
    expect(renderSms(receipt('live'))).toBe('Receipt: you paid GHS 150.00 to Kente & <Co>. Ref PAY-ABC, 2026-11-26 10:00 UTC.');
  });

  test.each([
    ['payout_held_for_review', { id: 'po_1', amount: 2000000, currency: 'GHS', recipient: { masked: '********4567' }, reference: 'PO-1' }, 'Payout po_1 of GHS 20,000.00 held for review'],
    ['settlement_paid', { id: 'stl_1', amount: 99, currency: 'GHS', destination: { bank_code: 'GCB', account_masked: '*****8901' }, paid_at: '2026-11-26T02:00:00Z' }, 'Settlement stl_1 paid: GHS 0.99'],
    ['settlement_failed', { id: 'stl_2', amount: 100, currency: 'GHS', failure_class: 'bank_rejected' }, 'Settlement stl_2 failed: GHS 1.00'],
    ['dispute_opened', { id: 'dp_1', amount: 15000, currency: 'GHS', charge: 'txn_1', reason: 'fraudulent', evidence_due_by: '2026-12-03T10:00:00Z' }, 'Dispute dp_1 opened on charge txn_1: GHS 150.00'],
    ['dispute_deadline', { id: 'dp_1', amount: 15000, currency: 'GHS', charge: 'txn_1', reason: 'fraudulent', evidence_due_by: '2026-12-03T10:00:00Z' }, 'Evidence for dispute dp_1 is due 2026-12-03 10:00 UTC'],
  ] as const)('%s: its subject, marked in the sandbox only', (kind, resource, subject) => {
    const input = { kind, resource, merchantName: 'Shop', occurredAt: '2026-11-26T10:00:00Z', minorUnits: 2 } as const;
    expect(renderEmail({ ...input, environment: 'sandbox' }).subject).toBe(`[TEST] ${subject}`);
    const live = renderEmail({ ...input, environment: 'live' });
    expect(live.subject).toBe(subject);
    expect(live.text + live.html).not.toContain('TEST');
  });
});

describe('settings', () => {
  test('defaults: files under DATA_DIR/outbox, the documented schedule, poll and deadline window', () => {
    const config = loadNotificationConfig({ DATA_DIR: '/srv/data' });
    expect(config).toEqual({
      smtpUrl: undefined,
      from: 'Payment Engine <notifications@payment-engine.local>',
      sms: undefined,
      outboxDir: path.join('/srv/data', 'outbox'),
      retryScheduleMs: [10_000, 60_000, 600_000, 3_600_000, 21_600_000],
      pollMs: 500,
      disputeDeadlineWithinMs: 24 * 3_600_000,
    });
    expect(loadNotificationConfig({}).outboxDir).toBe(path.resolve('.data', 'outbox'));
  });

  test('SMTP and SMS provider: read, and described without password or token', () => {
    const config = loadNotificationConfig({ SMTP_URL: 'smtp://mailer:p%40ss@smtp.example.com:587', SMS_PROVIDER_URL: 'https://sms.example.com/v1/messages', SMS_PROVIDER_TOKEN: 'tok-123' });
    expect(config.smtpUrl).toBe('smtp://mailer:p%40ss@smtp.example.com:587');
    expect(config.sms).toEqual({ url: 'https://sms.example.com/v1/messages', token: 'tok-123' });
    expect(describeNotificationTransports(config)).toEqual({ email: 'smtp://mailer@smtp.example.com:587', sms: 'https://sms.example.com/v1/messages' });
  });

  test.each([
    [{ SMTP_URL: 'http://user:hunter2@smtp.example.com' }, /^SMTP_URL must start with smtp:\/\/ or smtps:\/\/, got http:\/\/user@smtp\.example\.com$/],
    [{ SMTP_URL: 'not a url hunter2' }, /^SMTP_URL must be a URL .*the value is not shown/],
    [{ SMS_PROVIDER_URL: 'https://sms.example.com' }, /^SMS_PROVIDER_URL is set but SMS_PROVIDER_TOKEN is not/],
    [{ SMS_PROVIDER_TOKEN: 'hunter2' }, /^SMS_PROVIDER_TOKEN is set but SMS_PROVIDER_URL is not/],
    [{ NOTIFICATION_RETRY_SCHEDULE: '10s,soon' }, /^NOTIFICATION_RETRY_SCHEDULE must be/],
    [{ NOTIFICATION_POLL_MS: '0' }, /^NOTIFICATION_POLL_MS must be/],
    [{ NOTIFY_DISPUTE_DEADLINE_WITHIN: 'a day' }, /^NOTIFY_DISPUTE_DEADLINE_WITHIN must be/],
    [{ NOTIFICATION_FROM: 'nobody' }, /^NOTIFICATION_FROM must be an email address/],
  ])('%j stops the start with one line, no secret in it', (env, message) => {
    let error: Error | undefined;
    try {
      loadNotificationConfig(env);
    } catch (e) {
      error = e as Error;
    }
    expect(error?.name).toBe('StartupError');
    expect(error?.message).toMatch(message);
    expect(error?.message).not.toContain('hunter2');
  });
});
