/**
 * Issue 18, proof for operators: the Temporal UI that `npm start` serves, in headless Chromium
 * (Debian's package, driven by playwright-core), as an operator uses it:
 * - the stuck list: the list query `NeedsAttention = true` shows the indeterminate charge, and its
 *   reason in the NeedsAttentionReason column an operator adds (issue 31; docs/operations.md, "The
 *   stuck list in the Temporal UI");
 * - a charge's history with its summaries (timer, local activities) and payloads decrypted by the
 *   codec endpoint (the stored payloads are AES-GCM ciphertext), and its static summary and details;
 * - the update dialog that resolves a charge: `resolveCharge` chosen from the workflow's own list of
 *   updates; without an operator the validator refuses it; with one the charge succeeds, the event
 *   follows and the audit row names the operator and the reason.
 * The screenshots go to SCREENSHOTS_DIR (`npm run screenshots` writes docs/screenshots/), else to a
 * temporary folder.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../support/chromium';
import { chargeBody, idempotencyKey } from '../support/harness';
import { cleanUp, demoKey, ready, startMain, type StartedMain } from '../support/npm-start';
import { execCli } from '../support/run-cli';

const SHOTS = process.env.SCREENSHOTS_DIR ? path.resolve(process.env.SCREENSHOTS_DIR) : fs.mkdtempSync(path.join(os.tmpdir(), 'payments-ui-'));

let s: StartedMain;
let browser: Browser;
let page: Page;
let key: string;

beforeAll(async () => {
  browser = await launchChromium();
  s = await startMain({ ui: true });
  await ready(s);
  key = demoKey(s);
  page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
  fs.mkdirSync(SHOTS, { recursive: true });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  if (s) await cleanUp(s);
});

const ui = (p: string) => `http://127.0.0.1:${s.ports.ui}/namespaces/default${p}`;

async function api(method: string, p: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`http://127.0.0.1:${s.ports.sandbox}${p}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...(method === 'POST' ? { 'idempotency-key': idempotencyKey() } : {}), connection: 'close' },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, json: await res.json() };
}

/** The CLI as its own process, as a user runs it next to `npm start`. */
async function cli(...args: string[]): Promise<any> {
  const r = await execCli(args, s.env, { process: true });
  expect({ args, code: r.code, stderr: r.stderr }).toEqual({ args, code: 0, stderr: '' });
  return JSON.parse(r.stdout);
}

/** An indeterminate charge (504 partner_timeout), once `payments stuck` lists it. */
async function indeterminateCharge(reference: string): Promise<string> {
  const res = await api('POST', '/v1/charges', chargeBody({ reference, metadata: { sandbox_outcome: 'indeterminate' } }));
  expect(res.status).toBe(504);
  const id: string = res.json.error.transaction_id;
  for (let i = 0; i < 200; i++) {
    if ((await cli('payments', 'stuck', '--env', 'test')).data.some((p: { id: string }) => p.id === id)) return id;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`charge ${id} never listed by payments stuck`);
}

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: path.join(SHOTS, name) });
}

test('the stuck list: NeedsAttention = true lists the indeterminate charge, with its reason in the NeedsAttentionReason column', async () => {
  const id = await indeterminateCharge('order-stuck-1');
  await page.goto(ui(`/workflows?query=${encodeURIComponent('NeedsAttention = true')}`));
  // The list query is served by visibility, which follows the flag within moments: refresh until listed.
  for (let i = 0; i < 20 && !(await page.getByRole('link', { name: id }).isVisible()); i++) {
    await page.waitForTimeout(500);
    await page.reload();
    await page.getByText(/Workflows?$/).first().waitFor();
  }
  await expect(page.getByRole('link', { name: id }).isVisible()).resolves.toBe(true);
  await expect(page.getByText('chargeWorkflow').first().isVisible()).resolves.toBe(true);
  // The reason column: Configure Columns, then the custom search attribute NeedsAttentionReason.
  await page.getByLabel('Configure Columns').click();
  await page.getByLabel('Add NeedsAttentionReason column').click();
  await page.locator('#workflows-table-configuration-drawer').getByRole('button', { name: /close/i }).first().click();
  await expect(page.locator('tr', { hasText: id }).innerText()).resolves.toContain('waiting: partner answer');
  await shot('stuck-list.png');
}, 120_000);

test("a charge's history: summaries on the timer and the local activities, payloads decrypted by the codec endpoint, static summary and details", async () => {
  const res = await api('POST', '/v1/charges', chargeBody({ reference: 'order-history-1', metadata: { sandbox_outcome: 'succeeded' } }));
  expect(res.status).toBe(200);
  const id: string = res.json.id;
  for (let i = 0; i < 100 && (await api('GET', `/v1/charges/${id}`)).json.status !== 'succeeded'; i++) await new Promise((r) => setTimeout(r, 200));

  // The result, decrypted: the codec endpoint answered the UI (ciphertext shows with its encoding,
  // binary/encrypted, in base64). The UI decodes at each render and, now and then, a later re-render
  // (its polling of the workflow) shows the stored ciphertext instead: the page is read, and shot,
  // the moment it shows the decrypted result. Up to three page loads.
  const decrypted = new RegExp(`"id":\\s*"${id}",\\s*"merchantId":\\s*"mer_\\w+",\\s*"environment":\\s*"sandbox",\\s*"status":\\s*"succeeded"`);
  let text = '';
  for (let load = 0; load < 3 && !decrypted.test(text); load++) {
    await page.goto(ui(`/workflows/${id}`));
    await page.getByRole('tab', { name: /Event History/ }).click();
    // The local activities' summaries, decoded with the rest.
    await page.getByText('charge -> succeeded: projection, ledger, event').first().waitFor({ timeout: 15_000 });
    for (let i = 0; i < 40; i++) {
      text = (await page.locator('body').textContent()) ?? '';
      if (decrypted.test(text)) {
        await shot('charge-history.png');
        break;
      }
      await page.waitForTimeout(250);
    }
  }
  expect(text).toMatch(decrypted);
  expect(text).not.toContain(Buffer.from('binary/encrypted').toString('base64').replace(/=+$/, ''));

  // The UI renders the static summary and details (markdown) in frames of their own.
  await page.getByRole('tab', { name: /User Metadata/ }).click();
  const framesText = async () => (await Promise.all(page.frames().map((f) => f.locator('body').innerText().catch(() => '')))).join('\n');
  for (let i = 0; i < 50 && !(await framesText()).includes('environment: sandbox'); i++) await page.waitForTimeout(200);
  const metadata = await framesText();
  expect(metadata).toMatch(/sandbox charge 15000 GHS via mobile_money for mer_\w+/);
  expect(metadata).toContain(`Charge ${id}`);
  expect(metadata).toMatch(/amount: 15000 GHS[\s\S]*channel: mobile_money[\s\S]*environment: sandbox/);
  await shot('charge-details.png');
}, 120_000);

test('the update dialog: resolveCharge refused without an operator, applied with one; event and audit row follow', async () => {
  const id = await indeterminateCharge('order-resolve-1');
  await page.goto(ui(`/workflows/${id}`));
  const dialog = page.getByRole('dialog').filter({ hasText: 'Send an Update' });

  async function sendUpdate(data: Record<string, string>, screenshot?: string): Promise<void> {
    await page.getByRole('button', { name: 'More Actions' }).click();
    await page.getByRole('menuitem', { name: 'Send an Update' }).click();
    await dialog.getByTestId('update-select-button').click();
    await dialog.getByRole('option', { name: 'resolveCharge' }).click();
    const editor = dialog.getByRole('textbox', { name: 'Data' });
    await editor.click();
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.press('Delete');
    await editor.pressSequentially(JSON.stringify(data));
    // The editor hands its text to the form when it loses focus.
    await dialog.getByTestId('update-id').click();
    if (screenshot) await shot(screenshot);
    await dialog.getByTestId('confirm-modal-button').click();
  }

  await sendUpdate({ as: 'succeeded', reason: 'partner confirmed by phone' });
  await dialog.getByText(/an "operator" is required/).first().waitFor();
  await shot('resolve-update-refused.png');
  expect((await cli('audit', 'list', '--payment', id)).data).toEqual([]);
  await dialog.getByTestId('cancel-modal-button').click();

  await sendUpdate({ as: 'succeeded', reason: 'partner confirmed by phone', operator: 'ui:ama' }, 'resolve-update-dialog.png');
  await dialog.waitFor({ state: 'hidden' });
  for (let i = 0; i < 100 && (await api('GET', `/v1/charges/${id}`)).json.status !== 'succeeded'; i++) await new Promise((r) => setTimeout(r, 200));
  expect((await api('GET', `/v1/charges/${id}`)).json.status).toBe('succeeded');
  const events = (await api('GET', '/v1/events?after_sequence=0')).json.data.filter((e: { data: { id: string } }) => e.data.id === id).map((e: { type: string }) => e.type);
  expect(events).toEqual(['transaction.created', 'transaction.succeeded']);
  expect((await cli('audit', 'list', '--payment', id)).data).toEqual([
    expect.objectContaining({ action: 'charge.resolve', operator: 'ui:ama', reason: 'partner confirmed by phone', state_after: expect.objectContaining({ status: 'succeeded' }) }),
  ]);
}, 120_000);

test('issue 47: the codec endpoint npm start runs needs its token, loopback callers included; the token is in DATA_DIR/codec-token (0600), never in the output; the UI has it', async () => {
  const file = path.join(s.env.DATA_DIR!, 'codec-token');
  const token = fs.readFileSync(file, 'utf8').trim();
  expect(token).toMatch(/^[0-9a-f]{64}$/);
  expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  const { stdout, stderr } = s.output();
  expect(stdout + stderr).not.toContain(token);
  expect(stdout).toContain(`its token: in ${file}`);
  const codec = `http://127.0.0.1:${s.ports.codec}`;
  const body = JSON.stringify({ payloads: [] });
  expect((await fetch(`${codec}/decode`, { method: 'POST', body })).status).toBe(401);
  expect((await fetch(`${codec}/decode`, { method: 'POST', body, headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
  // What the UI was given (its settings): the endpoint with the token as its path, which the history test above used.
  const settings = (await (await fetch(`http://127.0.0.1:${s.ports.ui}/api/v1/settings`)).json()) as { Codec?: { Endpoint?: string } };
  expect(settings.Codec?.Endpoint).toBe(`${codec}/${token}`);
});
