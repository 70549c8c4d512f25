/**
 * Notifications (issue 20; docs/notifications.md), end to end: real PostgreSQL and Temporal, the real
 * worker and notification relay, a real SMTP server in this process (smtp-server, with AUTH) and a
 * small HTTP SMS provider. Sandbox activity goes through the API; live events are written directly
 * (as a state change writes them) with the customer's sealed identifier, since live charges need the
 * partner rail. Proof: "Notification prefixes and badges, sandbox against live", and isolation: a
 * sandbox event never notifies in live, nor the reverse.
 */
import { buildChargeDraft, type ChargeRequest } from '../../src/services/charge-draft';
import { chargeJson } from '../../src/domain/charge';
import type { Environment } from '../../src/domain/environment';
import { updateMerchantSettings } from '../../src/persistence/merchants/merchant-settings-store';
import { runSettlements } from '../../src/services/settlement-run';
import { newId, randomBase62 } from '../../src/support/new-id';
import { webhookTaskQueueFor } from '../../src/temporal/task-queues';
import { completeNow } from '../support/advance';
import { fundMerchant } from '../support/fund-merchant';
import { chargeBody, idempotencyKey, MTN_GH, startHarness, type Harness, type TestMerchant } from '../support/harness';
import { emitNotifyingEvent, keepPaymentParty, settlementData, startNotificationWorker, type NotificationWorker } from '../support/notification-worker';
import { giveSettlementAccount } from '../support/settlement-runs';
import { startSmsProvider, type TestSmsProvider } from '../support/sms-provider';
import { startSmtpSink, type ReceivedMail, type SmtpSink } from '../support/smtp-sink';
import { until } from '../support/webhook-fixtures';

const SMTP_PASSWORD = 'sm7p-s3cret-pass';

let h: Harness;
let smtp: SmtpSink;
let sms: TestSmsProvider;
let worker: NotificationWorker;

beforeAll(async () => {
  h = await startHarness({ worker: false });
  smtp = await startSmtpSink({ user: 'notify', pass: SMTP_PASSWORD });
  sms = await startSmsProvider();
  worker = await startNotificationWorker(h, {
    SMTP_URL: smtp.url,
    SMS_PROVIDER_URL: sms.url,
    SMS_PROVIDER_TOKEN: sms.token,
    NOTIFICATION_FROM: 'Payments <notify@payments.example>',
    NOTIFICATION_RETRY_SCHEDULE: '1s,1s,1s,1s,1s,1s,1s,1s',
    NOTIFICATION_POLL_MS: '100',
    // Sandbox disputes' evidence is due in 7 days: within 8 days, every open one is "near its deadline".
    NOTIFY_DISPUTE_DEADLINE_WITHIN: '8d',
  });
});
afterAll(async () => {
  await worker?.stop();
  await sms?.close();
  await smtp?.stop();
  await h?.close();
});

const sql = <T = Record<string, any>>(query: string, params: unknown[] = []) => h.orm.em.getConnection().execute<T[]>(query, params);
const post = (m: TestMerchant, path: string, body: unknown) => h.request('sandbox', 'POST', path, { key: m.testKey, body, headers: { 'Idempotency-Key': idempotencyKey() } });
const mailOf = (id: string) => (mails: ReceivedMail[]) => mails.filter((m) => m.headers['x-notification-id'] === id);

async function merchantWithEmail(): Promise<TestMerchant & { email: string }> {
  const m = await h.merchant();
  const email = `ops-${m.id.slice(4, 12).toLowerCase()}@merchant.example`;
  await updateMerchantSettings(h.orm, m.id, { notificationEmail: email });
  return { ...m, email };
}

async function merchantName(id: string): Promise<string> {
  return (await sql<{ name: string }>(`select name from merchants where id = ?`, [id]))[0].name;
}

/** The notification written for a source (an event, or a dispute for its reminder), once the relay wrote it. */
async function notificationFor(sourceId: string, recipient = 'merchant'): Promise<Record<string, any>> {
  return until(`the notification of ${sourceId}`, async () => (await sql(`select * from notifications where source_id = ? and recipient = ?`, [sourceId, recipient]))[0]);
}

/** Waits for the notification to be closed (sent, failed or skipped) and answers its row. */
async function closed(sourceId: string, recipient = 'merchant'): Promise<Record<string, any>> {
  const { id } = await notificationFor(sourceId, recipient);
  return until(`notification ${id} closed`, async () => {
    const [row] = await sql(`select * from notifications where id = ?`, [id]);
    return row.status !== 'pending' ? row : undefined;
  });
}

async function mailFor(notificationId: string): Promise<ReceivedMail> {
  const mails = await smtp.waitFor((all) => mailOf(notificationId)(all).length > 0);
  return mailOf(notificationId)(mails)[0];
}

function expectTestMode(mail: ReceivedMail): void {
  expect(mail.subject.startsWith('[TEST] ')).toBe(true);
  expect(mail.text.startsWith('*** TEST MODE ***')).toBe(true);
  expect(mail.html).toMatch(/<p style="[^"]*">TEST MODE<\/p>/);
}

function expectLive(mail: ReceivedMail): void {
  expect(mail.subject).not.toContain('[TEST]');
  expect(mail.text).not.toContain('TEST MODE');
  expect(mail.html).not.toContain('TEST MODE');
}

/** A succeeded sandbox charge through the API (its timer fired now). */
async function sandboxCharge(m: TestMerchant, identifier: string, overrides: Record<string, unknown> = {}): Promise<string> {
  const res = await post(m, '/v1/charges', chargeBody({ customer: { identifier, name: 'Ama Mensah' }, reference: `order-${randomBase62(6)}`, ...overrides }));
  expect(res.status).toBe(200);
  expect(await completeNow(h, m.testKey, res.json.id)).toMatchObject({ status: 'succeeded' });
  return res.json.id;
}

async function succeededEvent(chargeId: string): Promise<string> {
  return (await until(`transaction.succeeded of ${chargeId}`, async () => (await sql(`select id from events where resource_id = ? and type = 'transaction.succeeded'`, [chargeId]))[0])).id;
}

/** A succeeded charge's `transaction.succeeded` as the charge store writes it, in `environment`, with the customer's identifier kept sealed. */
async function writtenReceiptEvent(m: TestMerchant, environment: Environment, identifier: string, channel = 'mobile_money'): Promise<{ chargeId: string; eventId: string; reference: string }> {
  const request = chargeBody({ customer: { identifier, name: 'Kofi Boateng' }, channel, amount: 250_000, ...(channel === 'card' ? { momo_network_id: undefined } : {}) }) as unknown as ChargeRequest;
  const caller = { merchantId: m.id, environment, keyId: 'key_test_only', merchantVerified: true };
  const { sandboxOutcome: _, ...record } = buildChargeDraft(caller, newId('charge'), request, new Date());
  await keepPaymentParty(h, record.id, identifier);
  const eventId = await emitNotifyingEvent(h.orm, m.id, environment, 'transaction.succeeded', JSON.parse(chargeJson({ ...record, status: 'succeeded' })));
  return { chargeId: record.id, eventId, reference: record.reference };
}

describe('the customer receipt of a succeeded charge', () => {
  test('sandbox: to an email address by SMTP ([TEST] subject, TEST MODE badge) and to a phone number by SMS ([TEST] first)', async () => {
    const m = await h.merchant();
    const name = await merchantName(m.id);
    const byEmail = await sandboxCharge(m, 'ama.mensah@customer.example');
    const bySms = await sandboxCharge(m, '+233 24 123 4567');

    const receipt = await closed(await succeededEvent(byEmail), 'customer');
    expect(receipt).toMatchObject({ environment: 'sandbox', kind: 'charge_receipt', channel: 'email', to_masked: 'a***@customer.example', status: 'sent', attempt_count: 1, last_error: null });
    expect(receipt.provider_message_id).toMatch(/^250 /);
    const mail = await mailFor(receipt.id);
    const charge = (await h.request('sandbox', 'GET', `/v1/charges/${byEmail}`, { key: m.testKey })).json;
    expect(mail.to).toEqual(['ama.mensah@customer.example']);
    expect(mail.subject).toBe(`[TEST] Receipt from ${name}: GHS 150.00`);
    expect(mail.messageId).toBe(`<${receipt.id}@payments.example>`);
    expect(mail.headers.from).toBe('Payments <notify@payments.example>');
    expectTestMode(mail);
    for (const part of [mail.text, mail.html]) {
      for (const shown of [name, 'GHS 150.00', charge.reference, charge.your_reference, byEmail]) expect(part).toContain(shown);
    }

    const text = await closed(await succeededEvent(bySms), 'customer');
    expect(text).toMatchObject({ channel: 'sms', to_masked: '*********4567', status: 'sent', attempt_count: 1 });
    const [message] = await sms.waitFor((all) => all.some((s) => s.idempotencyKey === text.id)).then((all) => all.filter((s) => s.idempotencyKey === text.id));
    expect(message.to).toBe('+233241234567');
    expect(message.text).toMatch(new RegExp(`^\\[TEST\\] Receipt: you paid GHS 150\\.00 to ${name}\\. Ref PAY-[0-9A-Z]{16}, \\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2} UTC\\.$`));
    expect(message.authorization).toBe(`Bearer ${sms.token}`);
    expect(text.provider_message_id).toMatch(/^sms_\d+$/);
    // Each receipt went once, and only where its identifier said.
    expect(mailOf(text.id)(smtp.received)).toHaveLength(0);
    expect(sms.received.filter((s) => s.idempotencyKey === receipt.id)).toHaveLength(0);
  }, 60_000);

  test('live: the same receipts carry no [TEST] and no badge', async () => {
    const m = await h.merchant();
    const name = await merchantName(m.id);
    const email = await writtenReceiptEvent(m, 'live', 'kofi@customer.example');
    const phone = await writtenReceiptEvent(m, 'live', '233201234567');

    const receipt = await closed(email.eventId, 'customer');
    expect(receipt).toMatchObject({ environment: 'live', channel: 'email', status: 'sent' });
    const mail = await mailFor(receipt.id);
    expect(mail.subject).toBe(`Receipt from ${name}: GHS 2,500.00`);
    expectLive(mail);
    expect(mail.text).toContain(email.reference);

    const text = await closed(phone.eventId, 'customer');
    expect(text).toMatchObject({ environment: 'live', channel: 'sms', status: 'sent' });
    const [message] = sms.received.filter((s) => s.idempotencyKey === text.id);
    expect(message.to).toBe('233201234567');
    expect(message.text).toMatch(new RegExp(`^Receipt: you paid GHS 2,500\\.00 to ${name}\\. Ref ${phone.reference}, `));
  }, 60_000);

  test('an identifier that is neither an email address nor a mobile-money number (a card): recorded as skipped, nothing sent', async () => {
    const m = await h.merchant();
    const card = await writtenReceiptEvent(m, 'sandbox', '4111111111111111', 'card');
    const row = await closed(card.eventId, 'customer');
    expect(row).toMatchObject({ status: 'skipped', channel: null, attempt_count: 0, workflow_started_at: null });
    expect(row.last_error).toMatch(/neither an email address nor a mobile-money phone number/);
    await expect(h.temporal.client.workflow.getHandle(row.id).describe()).rejects.toThrow();
  }, 60_000);
});

describe("the merchant's emails", () => {
  test('sandbox: a payout held for review, a settlement paid and one failed, a dispute opened and near its deadline, each once, [TEST] and badged', async () => {
    const m = await merchantWithEmail();
    await fundMerchant(h, m.id, 1_000_000);
    await giveSettlementAccount(h, m.id);

    const payout = (await post(m, '/v1/payouts', { amount: 20_000, currency: 'GHS', channel: 'mobile_money', momo_network_id: MTN_GH, recipient: { identifier: '233241234567', name: 'Kofi' }, reference: 'held', metadata: { sandbox_outcome: 'held_for_review' } })).json;
    expect(payout.status).toBe('held_for_review');
    const held = await closed((await sql(`select id from events where resource_id = ? and type = 'payout.held_for_review'`, [payout.id]))[0].id);
    const heldMail = await mailFor(held.id);
    expect(heldMail.to).toEqual([m.email]);
    expect(heldMail.subject).toBe(`[TEST] Payout ${payout.id} of GHS 200.00 held for review`);
    expect(heldMail.text).toMatch(/Recipient: +\*+4567\r?\n/); // masked
    expect(heldMail.text).not.toContain('233241234567');
    expectTestMode(heldMail);

    const settle = async (outcome: 'failed' | null) => {
      const run = await runSettlements({ orm: h.orm, client: h.temporal.client, taskQueue: h.taskQueue }, { merchantId: m.id, environment: 'sandbox', outcome });
      expect(run.batches).toHaveLength(1);
      return run.batches[0].id as string;
    };
    const paidId = await settle(null);
    const paid = await closed((await until('settlement.paid', async () => (await sql(`select id from events where resource_id = ? and type = 'settlement.paid'`, [paidId]))[0])).id);
    const paidMail = await mailFor(paid.id);
    expect(paidMail.subject).toMatch(new RegExp(`^\\[TEST\\] Settlement ${paidId} paid: GHS [0-9,]+\\.\\d{2}$`));
    expect(paidMail.text).toContain('GCB ');
    expectTestMode(paidMail);

    await fundMerchant(h, m.id, 300_000);
    const failedId = await settle('failed');
    const failed = await closed((await until('settlement.failed', async () => (await sql(`select id from events where resource_id = ? and type = 'settlement.failed'`, [failedId]))[0])).id);
    const failedMail = await mailFor(failed.id);
    expect(failedMail.subject).toBe(`[TEST] Settlement ${failedId} failed: GHS 3,000.00`);
    expect(failedMail.text).toMatch(/Reason: +\w+/);
    expectTestMode(failedMail);

    const chargeId = await sandboxCharge(m, '233241234567');
    const dispute = (await post(m, `/v1/sandbox/charges/${chargeId}/disputes`, {})).json;
    expect(dispute.id).toMatch(/^dp_/);
    const opened = await closed((await until('dispute.opened', async () => (await sql(`select id from events where resource_id = ? and type = 'dispute.opened'`, [dispute.id]))[0])).id);
    const openedMail = await mailFor(opened.id);
    expect(openedMail.subject).toBe(`[TEST] Dispute ${dispute.id} opened on charge ${chargeId}: GHS 150.00`);
    expectTestMode(openedMail);

    // Its evidence is due within NOTIFY_DISPUTE_DEADLINE_WITHIN: one reminder, id fixed by the dispute.
    const reminder = await closed(dispute.id);
    expect(reminder).toMatchObject({ kind: 'dispute_deadline', environment: 'sandbox', resource_id: dispute.id, status: 'sent' });
    const reminderMail = await mailFor(reminder.id);
    const due = (await h.request('sandbox', 'GET', `/v1/disputes/${dispute.id}`, { key: m.testKey })).json.evidence_due_by as string;
    expect(reminderMail.subject).toBe(`[TEST] Evidence for dispute ${dispute.id} is due ${due.slice(0, 16).replace('T', ' ')} UTC`);
    expectTestMode(reminderMail);

    // Each once: later passes and sweeps added nothing.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const rows = await sql(`select kind, count(*)::int as n from notifications where merchant_id = ? and recipient = 'merchant' group by kind order by kind`, [m.id]);
    expect(rows).toEqual([
      { kind: 'dispute_deadline', n: 1 },
      { kind: 'dispute_opened', n: 1 },
      { kind: 'payout_held_for_review', n: 1 },
      { kind: 'settlement_failed', n: 1 },
      { kind: 'settlement_paid', n: 1 },
    ]);
    for (const row of [held, paid, failed, opened, reminder]) expect(mailOf(row.id)(smtp.received)).toHaveLength(1);
  }, 120_000);

  test('live: a settlement email carries no [TEST] and no badge', async () => {
    const m = await merchantWithEmail();
    const data = settlementData('live', 'paid');
    const row = await closed(await emitNotifyingEvent(h.orm, m.id, 'live', 'settlement.paid', data));
    expect(row).toMatchObject({ environment: 'live', status: 'sent' });
    const mail = await mailFor(row.id);
    expect(mail.subject).toBe(`Settlement ${data.id} paid: GHS 12,345.67`);
    expectLive(mail);
  }, 60_000);

  test('a merchant without a notification email: recorded as skipped with the reason, no workflow, nothing sent', async () => {
    const m = await h.merchant();
    const eventId = await emitNotifyingEvent(h.orm, m.id, 'sandbox', 'settlement.failed', settlementData('sandbox', 'failed'));
    const row = await closed(eventId);
    expect(row).toMatchObject({ status: 'skipped', attempt_count: 0, workflow_started_at: null });
    expect(row.last_error).toBe('the merchant has no notification email (merchants set ID --notification-email EMAIL)');
    await expect(h.temporal.client.workflow.getHandle(row.id).describe()).rejects.toThrow();
    expect(mailOf(row.id)(smtp.received)).toHaveLength(0);
    expect(worker.logged.some((line) => line.includes(row.id) && line.includes('notification skipped'))).toBe(true);
  }, 60_000);
});

test('SMTP down, then up: the email is retried and arrives once, under one Message-ID; the password is never stored or logged', async () => {
  const m = await merchantWithEmail();
  await smtp.stop();
  let row!: Record<string, any>;
  try {
    const eventId = await emitNotifyingEvent(h.orm, m.id, 'sandbox', 'settlement.paid', settlementData('sandbox', 'paid'));
    const { id } = await notificationFor(eventId);
    row = await until('two failed attempts', async () => {
      const [r] = await sql(`select * from notifications where id = ?`, [id]);
      return r.attempt_count >= 2 ? r : undefined;
    });
    expect(row.status).toBe('pending');
    expect(row.last_error).toMatch(/^SMTP smtp:\/\/notify@127\.0\.0\.1:\d+ .*ECONNREFUSED/);
  } finally {
    await smtp.start();
  }
  const result = await h.temporal.client.workflow.getHandle(row.id).result();
  expect(result).toMatchObject({ status: 'sent', reason: null });
  expect(result.attempts).toBeGreaterThanOrEqual(3);
  const mail = await mailFor(row.id);
  expect(mail.messageId).toBe(`<${row.id}@payments.example>`);
  expect(smtp.received.filter((x) => x.messageId === mail.messageId)).toHaveLength(1);
  const attempts = await sql(`select attempt, outcome, error from notification_attempts where notification_id = ? order by attempt`, [row.id]);
  expect(attempts.map((a) => a.outcome)).toEqual([...Array(attempts.length - 1).fill('failed'), 'sent']);
  expect(await sql(`select status, attempt_count from notifications where id = ?`, [row.id])).toEqual([{ status: 'sent', attempt_count: attempts.length }]);
  const stored = JSON.stringify(await sql(`select * from notifications n left join notification_attempts a on a.notification_id = n.id`));
  expect(stored).not.toContain(SMTP_PASSWORD);
  expect(worker.logged.join('\n')).not.toContain(SMTP_PASSWORD);
}, 90_000);

test('isolation: a sandbox event notifies only in the sandbox and a live event only in live, each on its own queue', async () => {
  const m = await merchantWithEmail();
  const sandbox = settlementData('sandbox', 'failed');
  const live = settlementData('live', 'failed');
  const sandboxEvent = await emitNotifyingEvent(h.orm, m.id, 'sandbox', 'settlement.failed', sandbox);
  const liveEvent = await emitNotifyingEvent(h.orm, m.id, 'live', 'settlement.failed', live);
  const receipt = await writtenReceiptEvent(m, 'live', 'ama@customer.example');
  const sandboxRow = await closed(sandboxEvent);
  const liveRow = await closed(liveEvent);
  const receiptRow = await closed(receipt.eventId, 'customer');

  const rows = await sql(`select n.id, n.environment, e.environment as event_environment from notifications n join events e on e.id = n.source_id where n.merchant_id = ? order by n.environment`, [m.id]);
  expect(rows).toHaveLength(3);
  for (const r of rows) expect(r.environment).toBe(r.event_environment);
  expect(rows.map((r) => r.environment)).toEqual(['live', 'live', 'sandbox']);

  const sandboxMail = await mailFor(sandboxRow.id);
  expectTestMode(sandboxMail);
  expect(sandboxMail.subject).toContain(sandbox.id);
  for (const id of [liveRow.id, receiptRow.id]) expectLive(await mailFor(id));
  expect((await mailFor(liveRow.id)).subject).toContain(live.id);
  for (const [row, environment] of [[sandboxRow, 'sandbox'], [liveRow, 'live'], [receiptRow, 'live']] as const) {
    const description = await h.temporal.client.workflow.getHandle(row.id).describe();
    expect(description.taskQueue).toBe(webhookTaskQueueFor(h.taskQueue, environment));
  }
}, 60_000);
