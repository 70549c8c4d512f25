import fs from 'node:fs';
import path from 'node:path';
import { COMMAND_OPTIONS, refusedOption } from '../../src/cli/command-options';

/** The admin CLI refuses an option its command does not take (issue 30); every command has a row of options. */

const ROOT = path.resolve(__dirname, '../..');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');

test('an option a command does not take is refused, naming the option and the command', () => {
  expect(refusedOption('audit list', ['as'])).toBe('--as is not an option of "audit list" (it takes --payment, --merchant, --since, --action, --batch, --limit)');
  expect(refusedOption('keys list', ['merchant', 'reason'])).toMatch(/^--reason is not an option of "keys list"/);
  expect(refusedOption('ledger check', ['merchant'])).toBe('--merchant is not an option of "ledger check" (it takes no options)');
  expect(refusedOption('reconcile report', ['kind'])).toMatch(/^--kind is not an option of "reconcile report"/);
});

test('the options a command takes pass', () => {
  expect(refusedOption('audit list', ['merchant', 'payment', 'since', 'action', 'batch', 'limit'])).toBeNull();
  expect(refusedOption('charges resolve', ['as', 'reason', 'operator', 'failure-class', 'evidence', 'query', 'merchant', 'yes'])).toBeNull();
  expect(refusedOption('merchants create', ['name', 'email', 'password-stdin'])).toBeNull();
  expect(refusedOption('ledger check', [])).toBeNull();
});

test('every command of the CLI has a row of options', () => {
  const commands = [
    ...[...read('src/cli.ts').matchAll(/case '([a-z]+ [a-z-]+)':/g)].map((m) => m[1]),
    ...[...read('src/cli-operator-actions.ts').matchAll(/^ {2}'([a-z]+ [a-z-]+)':/gm)].map((m) => m[1]),
    ...[...read('src/cli/reconcile.ts').matchAll(/case '([a-z]+)':/g)].map((m) => `reconcile ${m[1]}`),
  ];
  expect(commands.length).toBeGreaterThan(25);
  expect(commands.filter((c) => !(c in COMMAND_OPTIONS))).toEqual([]);
});
