import { startHarness, type Harness } from '../support/harness';
import { cliEnv, execCli } from '../support/run-cli';

/**
 * Issue 30, "The admin CLI": an option a command does not take is refused (a usage error naming the
 * option and the command, exit 1 like every usage error, nothing done), and `audit list --merchant`
 * lists that merchant's rows only.
 */

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ worker: false });
});
afterAll(async () => {
  await h?.close();
});

const run = (...args: string[]) => execCli(args, cliEnv(h.taskQueue));

async function ok<T = any>(...args: string[]): Promise<T> {
  const r = await run(...args);
  expect({ args, code: r.code, stderr: r.stderr }).toEqual({ args, code: 0, stderr: '' });
  return JSON.parse(r.stdout) as T;
}

test('audit list --merchant lists that merchant rows only', async () => {
  const a = await ok('merchants', 'create', '--name', 'Audit Filter A');
  const b = await ok('merchants', 'create', '--name', 'Audit Filter B');
  await ok('keys', 'create', '--merchant', b.id, '--env', 'test', '--reason', 'second key of B');

  const ofA = (await ok('audit', 'list', '--merchant', a.id, '--limit', '100')).data as Array<{ merchant_id: string; action: string }>;
  expect(ofA.map((r) => [r.merchant_id, r.action])).toEqual([
    [a.id, 'api_key.create'],
    [a.id, 'api_key.create'],
  ]);
  const ofB = (await ok('audit', 'list', '--merchant', b.id, '--action', 'api_key.create', '--limit', '100')).data as Array<{ merchant_id: string; reason: string }>;
  expect(ofB).toHaveLength(3);
  expect(ofB.every((r) => r.merchant_id === b.id)).toBe(true);
  expect(ofB[0].reason).toBe('second key of B');

  const bad = await run('audit', 'list', '--merchant', 'not-a-merchant');
  expect(bad.code).toBe(1);
  expect(bad.stdout).toBe('');
  expect(bad.stderr).toContain('--merchant must be a merchant id (mer_…)');
});

test('an option the command does not take is refused with a usage error, and nothing is done', async () => {
  const m = await ok('merchants', 'create', '--name', 'Option Refusals');
  for (const [args, message] of [
    [['audit', 'list', '--as', 'succeeded'], 'error: --as is not an option of "audit list" (it takes --payment, --merchant, --since, --action, --batch, --limit)'],
    [['keys', 'list', '--merchant', m.id, '--reason', 'x'], 'error: --reason is not an option of "keys list" (it takes --merchant)'],
    [['ledger', 'check', '--merchant', m.id], 'error: --merchant is not an option of "ledger check" (it takes no options)'],
    [['merchants', 'verify', m.id, '--reason', 'docs checked', '--operator', 'ama@ops', '--as', 'x'], 'error: --as is not an option of "merchants verify" (it takes --reason, --operator)'],
    [['reconcile', 'report', '--kind', 'duplicate'], 'error: --kind is not an option of "reconcile report" (it takes --date)'],
  ] as const) {
    const r = await run(...args);
    expect({ args, code: r.code, stdout: r.stdout }).toEqual({ args, code: 1, stdout: '' });
    expect(r.stderr.split('\n')[0]).toBe(message);
    expect(r.stderr).toContain('usage:');
  }
  // The refused `merchants verify` changed nothing: verifying now stamps the merchant now (a second
  // verify keeps the first time).
  const afterRefusals = Date.now() - 1000;
  const verified = await ok('merchants', 'verify', m.id, '--reason', 'docs checked', '--operator', 'ama@ops');
  expect(Date.parse(verified.verified_at)).toBeGreaterThanOrEqual(afterRefusals);
});
