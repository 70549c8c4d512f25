/**
 * The Node.js version check (issue 30): scripts/check-node.cjs (npm's preinstall hook and the first
 * step of `npm start`, `npm run worker`, `npm run cli`, `npm test`) and src/support/node-version.ts
 * (the first import of each entry point) print one line naming the version needed and how to get it,
 * and exit 1, on a Node older than package.json's `engines.node`.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { nodeVersionProblem, REQUIRED_NODE_MAJOR } from '../../src/support/node-version';

const ROOT = path.resolve(__dirname, '../..');
const SCRIPT = path.join(ROOT, 'scripts/check-node.cjs');
const PKG = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  engines: { node: string };
  scripts: Record<string, string>;
};

function runCheck(version?: string): { status: number | null; stdout: string; stderr: string } {
  const env = { ...process.env };
  if (version === undefined) delete env.PAYMENTS_NODE_VERSION_FOR_TEST;
  else env.PAYMENTS_NODE_VERSION_FOR_TEST = version;
  const r = spawnSync(process.execPath, [SCRIPT], { env, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const LINE_20 =
  'payment-engine needs Node.js 24 or newer (this is 20.20.2). Install Node.js 24 from https://nodejs.org/ ' +
  '(or `nvm install 24`, `fnm install 24`), then run npm install again.\n';

test('on Node 20 the check prints one line naming Node.js 24 and how to get it, and exits 1', () => {
  expect(runCheck('20.20.2')).toEqual({ status: 1, stdout: '', stderr: LINE_20 });
  expect(runCheck('v14.0.0')).toMatchObject({ status: 1, stderr: expect.stringMatching(/^payment-engine needs Node\.js 24 or newer \(this is 14\.0\.0\)\. [^\n]+\n$/) });
  expect(runCheck('23.11.1')).toMatchObject({ status: 1 });
});

test('on Node 24 or newer (and on the Node running this test) the check passes silently', () => {
  for (const version of ['24.0.0', '24.21.0', '25.1.0', undefined]) expect(runCheck(version)).toEqual({ status: 0, stdout: '', stderr: '' });
});

test("the entry points' check says the same, and both follow package.json's engines.node", () => {
  expect(PKG.engines.node).toBe(`>=${REQUIRED_NODE_MAJOR}`);
  expect(`${nodeVersionProblem('20.20.2')}\n`).toBe(LINE_20);
  expect(nodeVersionProblem(process.versions.node)).toBeUndefined();
  expect(nodeVersionProblem('24.0.0')).toBeUndefined();
});

test('npm install refuses an older Node at once (.npmrc engine-strict), the preinstall check behind it', () => {
  expect(fs.readFileSync(path.join(ROOT, '.npmrc'), 'utf8')).toMatch(/^engine-strict=true$/m);
});

test('npm install checks first (preinstall), and so do npm start, worker, cli and test', () => {
  expect(PKG.scripts.preinstall).toBe('node scripts/check-node.cjs');
  for (const script of ['start', 'worker', 'cli', 'test', 'test:quick']) expect(PKG.scripts[script]).toMatch(/^node scripts\/check-node\.cjs && /);
});

test.each(['src/main.ts', 'src/cli.ts', 'workers/main.ts'])('%s imports the check before anything else', (file) => {
  const firstImport = fs.readFileSync(path.join(ROOT, file), 'utf8').match(/^import .*$/m)?.[0];
  expect(firstImport).toMatch(/^import '(\.\/|\.\.\/src\/)support\/node-version';$/);
});

test('the script is old-syntax CommonJS (no const/let, arrows, template strings) so an old Node parses it', () => {
  const code = fs
    .readFileSync(SCRIPT, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/'(?:[^'\\\n]|\\.)*'/g, "''")
    .replace(/\/\/.*$/gm, '');
  expect(code).toContain("require('')");
  expect(code).not.toMatch(/\b(const|let|class|async|await|import|export)\b|=>|`/);
});
