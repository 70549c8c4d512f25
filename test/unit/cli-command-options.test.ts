import { Command, CommanderError } from 'commander';
import { capturingContext } from '../../src/cli/context';
import { buildProgram } from '../../src/cli/program';

/**
 * The admin CLI (src/cli/, commander) refuses an option its command does not take (issue 30), and
 * each command's --help lists its own options (issue 31). Parsed in-process: no command runs.
 */

/** What each command takes: the options of issue 30's table (src/cli/command-options.ts before commander). */
const OPERATOR_ACTION = ['reason', 'operator', 'query', 'merchant', 'yes', 'token', 'ids-file', 'save-ids', 'expect'];
const KEY_CHANGE = ['reason', 'operator'];
const COMMAND_OPTIONS: Record<string, string[]> = {
  'merchants create': ['name', 'email', 'password-stdin', ...KEY_CHANGE],
  'merchants verify': KEY_CHANGE,
  'merchants set': ['payout-review-threshold', 'settlement-bank', 'settlement-account', 'live-max-amount', 'live-daily-limit', 'notification-email', 'routes', ...KEY_CHANGE],
  'users create': ['merchant', 'email', 'password-stdin', 'role', ...KEY_CHANGE],
  'users list': ['merchant'],
  'users set-role': ['role', ...KEY_CHANGE],
  'users disable': KEY_CHANGE,
  'users enable': KEY_CHANGE,
  'users revoke-sessions': KEY_CHANGE,
  'keys create': ['merchant', 'env', 'scopes', ...KEY_CHANGE],
  'keys roll': ['expires-in', ...KEY_CHANGE],
  'keys revoke': KEY_CHANGE,
  'keys list': ['merchant'],
  'charges reverse': OPERATOR_ACTION,
  'charges resolve': [...OPERATOR_ACTION, 'as', 'failure-class', 'evidence'],
  'charges retry': OPERATOR_ACTION,
  'payouts approve': OPERATOR_ACTION,
  'payouts reject': OPERATOR_ACTION,
  'payouts reverse': OPERATOR_ACTION,
  'settlements retry': OPERATOR_ACTION,
  'payments restart': OPERATOR_ACTION,
  'payments settle-late': [...OPERATOR_ACTION, 'action', 'evidence'],
  'payments settle-return': ['evidence', 'reason', 'operator'],
  'payments review-open': ['reason', 'operator'],
  'payments review-close': OPERATOR_ACTION,
  'payments stuck': ['env', 'query'],
  'payments old-shape': ['query', 'yes', 'reason', 'operator'],
  'payments move-build': ['to-build', 'reason', 'operator', 'query', 'merchant', 'yes', 'token'],
  'settlements run': ['merchant', 'env', 'outcome', ...KEY_CHANGE],
  'settlements skipped': ['merchant', 'env', 'limit'],
  'secrets reseal': [],
  'ledger check': [],
  'audit list': ['payment', 'merchant', 'since', 'action', 'batch', 'limit'],
  'reconcile run': ['date', 'partial', 'product', 'partner'],
  'retention run': [],
  'routing status': ['json'],
  'routing drain': KEY_CHANGE,
  'routing resume': KEY_CHANGE,
  'webhooks recover': ['since', 'merchant', 'env', ...KEY_CHANGE],
  'webhooks recovery': [],
  'webhooks skip': ['sequence', 'merchant', 'env', ...KEY_CHANGE],
  'reconcile import': ['product', 'date', 'partner'],
  'reconcile breaks': ['since', 'kind', 'status', 'partner', 'limit'],
  'reconcile resolve': ['checked', ...KEY_CHANGE],
  'reconcile report': ['date'],
};

/** Every command that runs something (not a group, not `help`), by its words after `cli`. */
function leaves(command: Command, path: string[] = []): Map<string, Command> {
  const found = new Map<string, Command>();
  for (const sub of command.commands) {
    const words = [...path, sub.name()];
    if (sub.commands.length === 0) found.set(words.join(' '), sub);
    for (const [name, leaf] of leaves(sub, words)) found.set(name, leaf);
  }
  return found;
}

/** Parses `args` as `npm run cli -- …` would, with what it writes captured (the context's streams); throws if a command would run. */
async function parse(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const { context, output } = capturingContext({});
  const program = buildProgram(context);
  const noRun = (command: Command) => {
    command.commands.forEach(noRun);
    if (command.commands.length === 0) command.action(() => Promise.reject(new Error(`${command.name()} ran`)));
  };
  noRun(program);
  try {
    await program.parseAsync(args, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) return { code: error.exitCode, ...output };
    throw error;
  }
  throw new Error(`${args.join(' ')}: nothing refused, no help`);
}

test('every command takes exactly its own options (the table of issue 30), and there are no others', () => {
  const commands = leaves(buildProgram(capturingContext({}).context));
  expect([...commands.keys()].sort()).toEqual(Object.keys(COMMAND_OPTIONS).sort());
  for (const [name, command] of commands) expect({ name, options: command.options.map((o) => o.long).sort() }).toEqual({ name, options: [...COMMAND_OPTIONS[name]!].map((o) => `--${o}`).sort() });
});

test('an option a command does not take is refused, naming the option and the command, with the usage line; exit 1', async () => {
  for (const [args, message] of [
    [['audit', 'list', '--as', 'succeeded'], 'error: --as is not an option of "audit list" (it takes --payment, --merchant, --since, --action, --batch, --limit)'],
    [['keys', 'list', '--merchant', 'mer_x', '--reason', 'x'], 'error: --reason is not an option of "keys list" (it takes --merchant)'],
    [['ledger', 'check', '--merchant', 'mer_x'], 'error: --merchant is not an option of "ledger check" (it takes no options)'],
    [['reconcile', 'report', '--kind', 'duplicate'], 'error: --kind is not an option of "reconcile report" (it takes --date)'],
    // An option of another command: --action is payments settle-late's (and audit list's), not charges resolve's.
    [['charges', 'resolve', 'txn_x', '--action', 'credit', '--reason', 'r'], 'error: --action is not an option of "charges resolve" (it takes --reason, --operator, --query, --merchant, --yes, --token, --ids-file, --save-ids, --expect, --as, --failure-class, --evidence)'],
    [['merchants', 'verify', '--reason=docs checked', '--env=live'], 'error: --env is not an option of "merchants verify" (it takes --reason, --operator)'],
  ] as const) {
    const r = await parse(...args);
    expect({ args, code: r.code, stdout: r.stdout }).toEqual({ args, code: 1, stdout: '' });
    const [first, usage] = r.stderr.split('\n');
    expect(first).toBe(message);
    expect(usage).toMatch(new RegExp(`^usage: cli ${args[0]} ${args[1]} \\[options\\]`));
  }
});

test('charges resolve --help lists its own options (and not another command\'s), exit 0 on stdout', async () => {
  const r = await parse('charges', 'resolve', '--help');
  expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
  expect(r.stdout).toMatch(/^Usage: cli charges resolve \[options\] \[TXN_ID\]/);
  for (const option of COMMAND_OPTIONS['charges resolve']!) expect(r.stdout).toContain(`--${option} `);
  for (const other of ['--action', '--scopes', '--limit', '--since']) expect(r.stdout).not.toContain(other);
  expect(r.stdout).toContain("--query 'a Temporal list query'");
});

test('every command\'s --help lists each option it takes', async () => {
  for (const [name, options] of Object.entries(COMMAND_OPTIONS)) {
    const r = await parse(...name.split(' '), '--help');
    expect({ name, code: r.code }).toEqual({ name, code: 0 });
    for (const option of options) expect({ name, has: r.stdout.includes(`--${option}`) }).toEqual({ name, has: true });
  }
});

test('the top-level help keeps the notes: audited actions, --operator default, the bulk --query and --yes', async () => {
  const r = await parse('--help');
  expect(r.code).toBe(0);
  for (const command of Object.keys(COMMAND_OPTIONS).map((c) => c.split(' ')[0])) expect(r.stdout).toContain(`  ${command}`);
  expect(r.stdout).toContain('cli:<login>');
  expect(r.stdout).toMatch(/--query 'a Temporal list query' \[--merchant MERCHANT_ID\]/);
  expect(r.stdout).toMatch(/with --yes applies the action/);
  expect(r.stdout).toContain('BULK_ACTIONS_PER_SECOND');
  expect(r.stdout).toMatch(/An option a command does not take is refused/);
});

test('a required id left out, an unknown command: the old messages, exit 1', async () => {
  expect((await parse('merchants', 'verify')).stderr.split('\n')[0]).toBe('error: merchant id is required');
  expect((await parse('keys', 'roll')).stderr.split('\n')[0]).toBe('error: key id is required');
  expect((await parse('merchants', 'delete', 'mer_x')).stderr.split('\n')[0]).toBe('error: unknown command "merchants delete"');
  expect((await parse('frobnicate')).stderr.split('\n')[0]).toBe('error: unknown command "frobnicate"');
  const none = await parse();
  expect({ code: none.code, stdout: none.stdout }).toEqual({ code: 1, stdout: '' });
  expect(none.stderr).toMatch(/^Usage: cli/);
});
