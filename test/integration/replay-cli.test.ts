/**
 * Issue 18, engineers: `npm run replay` fetches histories from a running dev server (the suite's),
 * replays them against the current workflow code through the payload codec, prints one line a
 * history and the open runs carrying each patch, and exits 0; against a deliberately broken build
 * (test/replay/fixtures/broken-charge-workflows.ts) it exits 1 and names the workflow and the event.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { PATCH_IDS } from '../../workflows/patches';
import { chargeBody, idempotencyKey, startHarness, type Harness, type TestMerchant } from '../support/harness';
import { cliEnv, type CliResult } from '../support/run-cli';

const ROOT = path.resolve(__dirname, '../..');
let h: Harness;
let m: TestMerchant;
let charges: string[];

beforeAll(async () => {
  h = await startHarness();
  m = await h.merchant();
  charges = [];
  for (const outcome of [undefined, 'declined']) {
    const res = await h.request('sandbox', 'POST', '/v1/charges', { key: m.testKey, headers: { 'Idempotency-Key': idempotencyKey() }, body: chargeBody(outcome ? { metadata: { sandbox_outcome: outcome } } : {}) });
    charges.push(res.json.id);
  }
  await Promise.all(charges.map((id) => h.settled(id)));
});
afterAll(() => h?.close());

function replay(args: string[], extra: Record<string, string> = {}): Promise<CliResult> {
  const env = cliEnv(h.taskQueue, extra);
  delete env.NODE_OPTIONS;
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', 'src/replay-cli.ts', ...args], { cwd: ROOT, env, timeout: 120_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr });
    });
  });
}

const query = () => `MerchantId = '${m.id}'`;

test('the current code replays every history of a merchant: one ok line each, the patch counts, exit 0', async () => {
  const r = await replay(['--query', query()]);
  expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
  const lines = r.stdout.trim().split('\n');
  for (const id of charges) expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^ok    chargeWorkflow ${id} `)));
  for (const id of PATCH_IDS) expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^patch ${id}: \\d+ open run\\(s\\) carry it$`)));
  expect(lines[lines.length - 1]).toMatch(/^\d+ replayed, 0 failed$/);
  // --workflow-id: that workflow's runs only.
  const one = await replay(['--workflow-id', charges[0]]);
  expect(one.code).toBe(0);
  expect(one.stdout.split('\n').filter((l) => l.startsWith('ok'))).toEqual([expect.stringMatching(new RegExp(`^ok    chargeWorkflow ${charges[0]} `))]);
});

test('a deliberately broken build: every charge history fails, naming the workflow and the event; exit 1', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'payments-broken-bundle-'));
  try {
    const { code } = await bundleWorkflowCode({ workflowsPath: path.join(ROOT, 'test/replay/fixtures/broken-charge-workflows.ts'), logger: { trace() {}, debug() {}, info() {}, warn() {}, error() {}, log() {} } as never });
    const file = path.join(dir, 'broken.js');
    fs.writeFileSync(file, code);
    const r = await replay(['--query', query()], { WORKFLOW_BUNDLE_PATH: file });
    expect(r.code).toBe(1);
    const failures = r.stdout.split('\n').filter((l) => l.startsWith('FAIL'));
    expect(failures).toHaveLength(charges.length);
    for (const id of charges) expect(failures).toContainEqual(expect.stringMatching(new RegExp(`^FAIL  chargeWorkflow ${id} \\S+: .*[Nn]ondeterminis`)));
    expect(r.stdout).toMatch(/\d+ replayed, 2 failed: a determinism violation/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('usage errors: exit 2 with the usage on stderr', async () => {
  const r = await replay([]);
  expect(r.code).toBe(2);
  expect(r.stderr).toMatch(/give exactly one of --workflow-id, --query, --since/);
  expect(r.stderr).toMatch(/usage: npm run replay/);
  expect((await replay(['--since', 'soon'])).stderr).toMatch(/--since must be a duration/);
});
