/**
 * The local default of notifications (docs/notifications.md): with no SMTP_URL and no
 * SMS_PROVIDER_URL, each message is a readable file under `<DATA_DIR>/outbox/`, an RFC 822 `.eml` for
 * an email and a `.sms.txt` for an SMS, named by the notification's time and id. Real worker, relay,
 * PostgreSQL and Temporal; the sandbox charge goes through the API.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { updateMerchantSettings } from '../../src/persistence/merchants/merchant-settings-store';
import { completeNow } from '../support/advance';
import { chargeBody, idempotencyKey, startHarness, type Harness, type TestMerchant } from '../support/harness';
import { emitNotifyingEvent, settlementData, startNotificationWorker, type NotificationWorker } from '../support/notification-worker';
import { parseMail } from '../support/smtp-sink';
import { until } from '../support/webhook-fixtures';
import { privateDirMode } from '../../src/support/private-dir';

let h: Harness;
let worker: NotificationWorker;
let dataDir: string;

beforeAll(async () => {
  // A DATA_DIR that does not exist yet: the first message creates it, as npm start would.
  dataDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'notifications-outbox-')), 'data');
  h = await startHarness({ worker: false });
  worker = await startNotificationWorker(h, { DATA_DIR: dataDir, NOTIFICATION_POLL_MS: '100' });
});
afterAll(async () => {
  await worker?.stop();
  await h?.close();
  fs.rmSync(path.dirname(dataDir), { recursive: true, force: true });
});

const sql = <T = Record<string, any>>(query: string, params: unknown[] = []) => h.orm.em.getConnection().execute<T[]>(query, params);

async function sentNotification(sourceId: string, recipient: 'customer' | 'merchant'): Promise<Record<string, any>> {
  return until(`the notification of ${sourceId} sent`, async () => (await sql(`select * from notifications where source_id = ? and recipient = ? and status = 'sent'`, [sourceId, recipient]))[0]);
}

async function succeededCharge(m: TestMerchant, identifier: string): Promise<string> {
  const res = await h.request('sandbox', 'POST', '/v1/charges', { key: m.testKey, body: chargeBody({ customer: { identifier } }), headers: { 'Idempotency-Key': idempotencyKey() } });
  expect(res.status).toBe(200);
  await completeNow(h, m.testKey, res.json.id);
  return (await until('transaction.succeeded', async () => (await sql(`select id from events where resource_id = ? and type = 'transaction.succeeded'`, [res.json.id]))[0])).id;
}

test('no SMTP_URL: the receipt is an .eml file under DATA_DIR/outbox, readable, [TEST] subject and TEST MODE badge', async () => {
  const m = await h.merchant();
  const row = await sentNotification(await succeededCharge(m, 'efua@customer.example'), 'customer');
  expect(worker.config.outboxDir).toBe(path.join(dataDir, 'outbox'));
  expect(row.provider_message_id).toMatch(new RegExp(`^file:\\d{4}-\\d{2}-\\d{2}T\\d{2}-\\d{2}-\\d{2}Z_${row.id}\\.eml$`));
  const file = path.join(dataDir, 'outbox', row.provider_message_id.slice('file:'.length));
  expect(fs.statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
  // DATA_DIR itself has the service's private mode (0711 for root: embedded PostgreSQL, run as
  // `postgres`, must still pass through it when npm start comes after a worker wrote here).
  expect(fs.statSync(dataDir).mode & 0o777).toBe(privateDirMode());
  const raw = fs.readFileSync(file, 'utf8');
  // Readable as it is: the headers and the text part in plain ASCII.
  expect(raw).toMatch(/^Subject: \[TEST\] Receipt from Merchant \w+: GHS 150\.00$/m);
  expect(raw).toContain('To: efua@customer.example');
  expect(raw).toContain(`Message-ID: <${row.id}@payment-engine.local>`);
  expect(raw).toContain('*** TEST MODE *** This message is about sandbox activity: no money moved.');
  const mail = parseMail(raw);
  expect(mail.text).toContain('Amount:      GHS 150.00');
  expect(mail.html).toContain('>TEST MODE</p>');
}, 60_000);

test('no SMS_PROVIDER_URL: the SMS receipt is a .sms.txt file starting with [TEST]', async () => {
  const m = await h.merchant();
  const row = await sentNotification(await succeededCharge(m, '233241234567'), 'customer');
  expect(row.provider_message_id).toMatch(new RegExp(`_${row.id}\\.sms\\.txt$`));
  const text = fs.readFileSync(path.join(dataDir, 'outbox', row.provider_message_id.slice('file:'.length)), 'utf8');
  expect(text).toMatch(new RegExp(`^To: 233241234567\\nDate: \\S+\\nNotification: ${row.id}\\n\\n\\[TEST\\] Receipt: you paid GHS 150\\.00 to Merchant \\w+\\. Ref PAY-`));
}, 60_000);

test('live: the merchant email file has no [TEST] and no badge', async () => {
  const m = await h.merchant();
  await updateMerchantSettings(h.orm, m.id, { notificationEmail: 'finance@merchant.example' });
  const row = await sentNotification(await emitNotifyingEvent(h.orm, m.id, 'live', 'settlement.paid', settlementData('live', 'paid')), 'merchant');
  const raw = fs.readFileSync(path.join(dataDir, 'outbox', row.provider_message_id.slice('file:'.length)), 'utf8');
  expect(raw).toMatch(/^Subject: Settlement stl_\w+ paid: GHS 12,345\.67$/m);
  expect(raw).not.toContain('TEST');
}, 60_000);
