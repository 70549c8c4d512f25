import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { capturingContext } from '../../src/cli/context';
import { runCommandLine } from '../../src/cli/run';
import { newId } from '../../src/support/new-id';
import type { CliResult } from '../support/run-cli';

/**
 * The CLI run inside this process (src/cli/run.ts with a capturing context, src/cli/context.ts) answers
 * exactly what `src/cli.ts` answers as its own process: the same exit code, stdout and stderr, for
 * help (exit 0), usage errors (exit 1 with the usage line), a thrown error (`error: <message>`, exit 1)
 * and stdin; and it reads only the context's environment and input. None of these reaches a server.
 */

const ROOT = path.resolve(__dirname, '../..');
// No topology of a running `npm run topology -- up` fills anything in; DATA_DIR as the suite's.
const BASE = { PATH: process.env.PATH, HOME: process.env.HOME, TOPOLOGY_DIR: path.join(ROOT, '.cache', 'no-topology'), DATA_DIR: process.env.DATA_DIR ?? path.join(ROOT, '.data') };

// `src/cli.ts` bundled once for this file, as the integration global setup bundles it
// (test/support/suite-setup.ts): the same code, started in a third of the time tsx takes.
let dir: string;
let bundle: string;
beforeAll(async () => {
  // Under the project (.cache/), so the bundle's packages resolve from node_modules.
  fs.mkdirSync(path.join(ROOT, '.cache'), { recursive: true });
  dir = fs.mkdtempSync(path.join(ROOT, '.cache', 'test-cli-context-'));
  bundle = path.join(dir, 'cli.js');
  await build({ entryPoints: [path.join(ROOT, 'src/cli.ts')], outfile: bundle, bundle: true, platform: 'node', target: 'node24', packages: 'external', sourcemap: 'inline', logLevel: 'warning' });
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** `src/cli.ts` as a process with exactly `env` and `input` on its stdin. */
function asProcess(args: string[], env: NodeJS.ProcessEnv, input = ''): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, ['--enable-source-maps', bundle, ...args], { cwd: ROOT, env, timeout: 180_000 }, (error, stdout, stderr) => {
      const code = error ? (error as { code?: number | string }).code : 0;
      resolve({ code: typeof code === 'number' ? code : null, stdout, stderr });
    });
    child.stdin!.end(input);
  });
}

/** The same run in this process. */
async function inProcess(args: string[], env: NodeJS.ProcessEnv, input = ''): Promise<CliResult> {
  const { context, output } = capturingContext(env, input);
  const code = await runCommandLine(args, context);
  return { code, ...output };
}

jest.setTimeout(300_000);

test('in this process and as its own process, the CLI answers the same code, stdout and stderr', async () => {
  const merchant = newId('merchant');
  const cases: Array<{ args: string[]; env?: Record<string, string>; input?: string; expect: { code: number; stdout: RegExp; stderr: RegExp } }> = [
    // Help: stdout, exit 0.
    { args: ['--help'], expect: { code: 0, stdout: /^Usage: cli \[options\] \[command\][\s\S]*Operator actions/, stderr: /^$/ } },
    // No command: the help on stderr, exit 1.
    { args: [], expect: { code: 1, stdout: /^$/, stderr: /^Usage: cli \[options\] \[command\]/ } },
    // Usage errors: commander's (an unknown command, an option the command does not take) and a command's own (UsageError), with the usage line.
    { args: ['frobnicate'], expect: { code: 1, stdout: /^$/, stderr: /^error: unknown command "frobnicate"\nusage: cli / } },
    { args: ['keys', 'list', '--merchant', merchant, '--reason', 'x'], expect: { code: 1, stdout: /^$/, stderr: /^error: --reason is not an option of "keys list" \(it takes --merchant\)\nusage: cli keys list / } },
    { args: ['audit', 'list', '--limit', '0'], expect: { code: 1, stdout: /^$/, stderr: /^error: --limit must be an integer from 1 to 10000\nusage: cli audit list / } },
    // A thrown error, `error: <message>`: a setting of the context's environment (never this process's).
    { args: ['audit', 'list'], env: { PORT: 'not-a-port' }, expect: { code: 1, stdout: /^$/, stderr: /^error: PORT must be a non-negative integer, got "not-a-port"\n$/ } },
    // stdin: the password read from it (too short here, so nothing reaches the database).
    { args: ['users', 'create', '--merchant', merchant, '--email', 'owner@shop.example', '--password-stdin', '--reason', 'new staff', '--operator', 'ama@ops'], input: 'short\n', expect: { code: 1, stdout: /^$/, stderr: /^error: the password must be at least \d+ characters\n$/ } },
  ];
  const results = await Promise.all(
    cases.map(async ({ args, env, input }) => {
      const full = { ...BASE, ...env };
      const [real, here] = await Promise.all([asProcess(args, full, input), inProcess(args, full, input)]);
      return { args, real, here };
    }),
  );
  for (const [i, { args, real, here }] of results.entries()) {
    expect({ args, here }).toEqual({ args, here: real });
    const { code, stdout, stderr } = cases[i]!.expect;
    expect({ args, code: here.code }).toEqual({ args, code });
    expect(here.stdout).toMatch(stdout);
    expect(here.stderr).toMatch(stderr);
  }
});

test('runs at once share nothing: each reads its own environment and input, and writes its own output', async () => {
  const runs = await Promise.all(['1.5', 'x', '-2', '07a'].map((port) => inProcess(['audit', 'list'], { ...BASE, PORT: port })));
  expect(runs.map((r) => r.stderr)).toEqual(['1.5', 'x', '-2', '07a'].map((port) => `error: PORT must be a non-negative integer, got "${port}"\n`));
  expect(process.env.PORT).not.toBe('x');

  const merchant = newId('merchant');
  const passwords = await Promise.all(['short', 'long'.repeat(100), 'Password2024!'].map((input) => inProcess(['users', 'create', '--merchant', merchant, '--email', 'o@shop.example', '--password-stdin', '--reason', 'new staff', '--operator', 'ama@ops'], BASE, input)));
  expect(passwords.map((r) => [r.code, r.stderr])).toEqual([
    [1, 'error: the password must be at least 12 characters\n'],
    [1, 'error: the password must be at most 256 characters\n'],
    [1, 'error: the password is too common (it is on a list of passwords known from breaches): choose another\n'],
  ]);
  // Without input, stdin is at its end: an empty password.
  expect((await inProcess(['users', 'create', '--merchant', merchant, '--email', 'o@shop.example', '--password-stdin', '--reason', 'new staff', '--operator', 'ama@ops'], BASE)).stderr).toMatch(/^error: the password must be at least/);
});

test('the environment given is not changed by the run (the topology is filled into its own copy)', async () => {
  const env = { ...BASE };
  const before = JSON.stringify(env);
  await inProcess(['audit', 'list', '--limit', '0'], env);
  expect(JSON.stringify(env)).toBe(before);
});
