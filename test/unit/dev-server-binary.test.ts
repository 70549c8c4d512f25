/**
 * No download fallback at run time: the dev server runs only TEMPORAL_CLI_PATH, the project's install
 * or `temporal` on PATH, and otherwise stops on one line naming the binary and the fix.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defaultCliLookup, findTemporalCli, MISSING_CLI_MESSAGE, startDevServer } from '../../src/temporal/dev-server';
import { StartupError } from '../../src/support/startup-error';

const ROOT = path.resolve(__dirname, '..', '..');
let dir: string;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dev-server-binary-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const nowhere = () => ({ installDirs: [path.join(dir, 'no-install')], pathEnv: path.join(dir, 'empty-path') });

test('without a binary anywhere, the one-line error names `temporal` and the fix', () => {
  expect(() => findTemporalCli(undefined, nowhere())).toThrow(StartupError);
  expect(() => findTemporalCli(undefined, nowhere())).toThrow(MISSING_CLI_MESSAGE);
  expect(MISSING_CLI_MESSAGE).not.toContain('\n');
  expect(MISSING_CLI_MESSAGE).toMatch(/`temporal`/);
  expect(MISSING_CLI_MESSAGE).toMatch(/bash scripts\/install-temporal\.sh/);
});

test('startDevServer stops with that error and downloads nothing', async () => {
  const dataDir = path.join(dir, 'data');
  await expect(startDevServer({ dataDir, lookup: nowhere(), persistent: false })).rejects.toThrow(MISSING_CLI_MESSAGE);
  // It stopped before anything ran: nothing was written to the data directory.
  expect(fs.existsSync(dataDir) ? fs.readdirSync(dataDir) : []).toEqual([]);
});

test('a TEMPORAL_CLI_PATH that does not exist is an error, not a fallback', () => {
  expect(() => findTemporalCli(path.join(dir, 'missing-temporal'), nowhere())).toThrow(/TEMPORAL_CLI_PATH=.*missing-temporal does not exist: run `bash scripts\/install-temporal\.sh`/);
});

test('the project install comes first, then PATH', () => {
  const install = path.join(dir, 'install');
  const onPath = path.join(dir, 'bin');
  for (const d of [install, onPath]) {
    fs.mkdirSync(d);
    fs.writeFileSync(path.join(d, 'temporal'), '', { mode: 0o755 });
  }
  expect(findTemporalCli(undefined, { installDirs: [install], pathEnv: onPath })).toBe(path.join(install, 'temporal'));
  expect(findTemporalCli(undefined, { installDirs: [path.join(dir, 'none')], pathEnv: onPath })).toBe(path.join(onPath, 'temporal'));
});

test("the default lookup includes the project's install wherever the process starts", () => {
  expect(defaultCliLookup().installDirs).toContain(path.join(ROOT, '.cache', 'temporal', 'bin'));
});

test("no code uses the SDK's download (`cached-download`, or a test environment without an explicit binary)", () => {
  const offenders: string[] = [];
  const walk = (d: string) => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, entry.name);
      if (entry.isDirectory()) walk(p);
      else if (/\.(ts|js|mjs)$/.test(entry.name) && p !== __filename) {
        const text = fs.readFileSync(p, 'utf8').replace(/\/\/.*$/gm, '');
        if (/type:\s*['"]cached-download['"]/.test(text)) offenders.push(`${p}: cached-download`);
        for (const call of text.matchAll(/TestWorkflowEnvironment\.create(?:Local|TimeSkipping)\(([^;]*)/g))
          if (!/existing-path/.test(call[1] ?? '')) offenders.push(`${p}: ${call[0].slice(0, 80)}`);
      }
    }
  };
  for (const d of ['src', 'workers', 'workflows', 'activities', 'test', 'scripts', 'examples']) if (fs.existsSync(path.join(ROOT, d))) walk(path.join(ROOT, d));
  expect(offenders).toEqual([]);
});
