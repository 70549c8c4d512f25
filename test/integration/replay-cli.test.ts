/**
 * Issue 18, engineers: `npm run replay` fetches histories from a running dev server (the suite's),
 * replays them against the current workflow code through the payload codec, prints one line a
 * history and the open runs carrying each patch, and exits 0; against a deliberately broken build
 * (test/replay/fixtures/broken-charge-workflows.ts) it exits 1 and names the workflow and the event.
 * Issue 31, finding 9: it also exits 1 when it proves nothing: no history matched (a wrong query or
 * namespace), a history of a workflow type this code lacks, or --limit cut it off (unless
 * --allow-partial, which says so).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { bundleWorkflowCode } from '@temporalio/worker';
import { SA } from '../../src/domain/search-attributes';
import { newId } from '../../src/support/new-id';
import { PATCH_IDS } from '../../workflows/patches';
import { chargeBody, idempotencyKey, startHarness, type Harness, type TestMerchant, SANDBOX_QUEUES } from '../support/harness';
import { cliEnv, type CliResult } from '../support/run-cli';
import { bundleForNode } from '../support/suite-setup';

const ROOT = path.resolve(__dirname, '../..');
let h: Harness;
let m: TestMerchant;
let charges: string[];
/**
 * `npm run replay`'s entry (src/cli/replay-main.ts) bundled once for the file, as the suite bundles
 * the CLI and the worker (test/support/suite-setup.ts): twelve runs through tsx compiled its few
 * hundred modules twelve times (13 CPU-s on a fresh clone, issue 42). In `.cache/` itself, so the
 * bundle resolves `../workflows` as src/cli/ does.
 */
const REPLAY_BUNDLE = path.join(ROOT, '.cache', `test-replay-${randomBytes(4).toString('hex')}.js`);

beforeAll(async () => {
  await bundleForNode(path.join(ROOT, 'src/cli/replay-main.ts'), REPLAY_BUNDLE);
  h = await startHarness({ queues: SANDBOX_QUEUES });
  m = await h.merchant();
  charges = [];
  for (const outcome of [undefined, 'declined']) {
    const res = await h.request('sandbox', 'POST', '/v1/charges', { key: m.testKey, headers: { 'Idempotency-Key': idempotencyKey() }, body: chargeBody(outcome ? { metadata: { sandbox_outcome: outcome } } : {}) });
    charges.push(res.json.id);
  }
  await Promise.all(charges.map((id) => h.settled(id)));
});
afterAll(async () => {
  fs.rmSync(REPLAY_BUNDLE, { force: true });
  await h?.close();
});

function replay(args: string[], extra: Record<string, string> = {}): Promise<CliResult> {
  const env = cliEnv(h.taskQueue, extra);
  delete env.NODE_OPTIONS;
  return new Promise((resolve) => {
    execFile(process.execPath, ['--enable-source-maps', REPLAY_BUNDLE, ...args], { cwd: ROOT, env, timeout: 120_000 }, (error, stdout, stderr) => {
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

test('no history matched (a wrong query, or a namespace with none): exit 1 with one clear line, never a pass on nothing', async () => {
  const r = await replay(['--query', `MerchantId = 'mer_${newId('charge').slice(4)}'`]);
  expect(r.code).toBe(1);
  expect(r.stdout).toMatch(/^FAIL {2}no history matched the query on namespace \S+ at \S+: nothing was replayed \(a wrong namespace, address or query\?\)/m);
  expect(r.stdout.trim().split('\n').pop()).toBe('0 replayed, 0 failed: the gate fails: no history matched');
  // A namespace that does not exist: an error, exit 2.
  const wrong = await replay(['--since', '7d'], { TEMPORAL_NAMESPACE: 'no-such-namespace' });
  expect(wrong.code).toBe(2);
  expect(wrong.stderr).toMatch(/^error: .*no-such-namespace/m);
});

test('--limit cuts the replay off: it says how many of how many and exits 1, unless --allow-partial (exit 0, still said)', async () => {
  const cut = await replay(['--query', query(), '--limit', '1']);
  expect(cut.code).toBe(1);
  expect(cut.stdout.split('\n').filter((l) => l.startsWith('ok'))).toHaveLength(1);
  const matching = /^FAIL {2}--limit 1 cut the replay off: 1 of the (\d+) matching histories replayed \(raise --limit, or accept a partial replay with --allow-partial\)$/m.exec(cut.stdout);
  expect(Number(matching?.[1])).toBeGreaterThanOrEqual(charges.length);
  expect(cut.stdout.trim().split('\n').pop()).toBe('1 replayed, 0 failed: the gate fails: cut off by --limit 1');
  const partial = await replay(['--query', query(), '--limit', '1', '--allow-partial']);
  expect({ code: partial.code, stderr: partial.stderr }).toEqual({ code: 0, stderr: '' });
  expect(partial.stdout).toMatch(/^PARTIAL --limit 1 cut the replay off: 1 of the \d+ matching histories replayed; accepted by --allow-partial$/m);
  expect((await replay(['--query', query(), '--limit', '0'])).stderr).toMatch(/--limit must be a positive integer/);
});

test('a history of a workflow type this code lacks: exit 1 naming the type, the others replayed', async () => {
  const probeMerchant = `mer_${newId('charge').slice(4)}`;
  const probe = await h.temporal.client.workflow.start('retiredWorkflow', {
    workflowId: `replay-probe-${newId('charge')}`,
    taskQueue: `replay-probe-${newId('charge')}`, // nobody polls it: the run stays open, as a run of a removed type would
    args: [],
    typedSearchAttributes: [{ key: SA.MerchantId, value: probeMerchant }],
  });
  try {
    const both = `MerchantId = '${m.id}' OR MerchantId = '${probeMerchant}'`;
    let r: CliResult | undefined;
    // Visibility lists the new run a moment later.
    for (let i = 0; i < 20 && !r?.stdout.includes('retiredWorkflow'); i++) {
      if (i) await new Promise((resolve) => setTimeout(resolve, 500));
      r = await replay(['--query', both]);
    }
    expect(r!.code).toBe(1);
    for (const id of charges) expect(r!.stdout).toMatch(new RegExp(`^ok    chargeWorkflow ${id} `, 'm'));
    expect(r!.stdout).toMatch(new RegExp(`^skip  retiredWorkflow ${probe.workflowId} \\S+: not a workflow type of this code \\(running\\)$`, 'm'));
    expect(r!.stdout).toMatch(/^FAIL {2}1 history\(ies\) of workflow types this code lacks, not replayed: retiredWorkflow \(1, 1 running\)$/m);
    expect(r!.stdout.trim().split('\n').pop()).toMatch(/^\d+ replayed, 0 failed: the gate fails: workflow types this code lacks$/);
  } finally {
    await probe.terminate('replay-cli test probe').catch(() => undefined);
  }
});
