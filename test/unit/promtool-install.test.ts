/**
 * promtool comes with `npm install` (the postinstall hook runs scripts/install-promtool.sh --optional,
 * after the Temporal binaries), and the promtool tests never skip: where it is missing they fail with
 * one line naming the install command (test/support/promtool.ts).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROMTOOL, requirePromtool } from '../support/promtool';

const ROOT = path.resolve(__dirname, '..', '..');
const SCRIPT = path.join(ROOT, 'scripts', 'install-promtool.sh');
const BASH = execFileSync('bash', ['-c', 'command -v bash'], { encoding: 'utf8' }).trim();

/** The script with PATH holding only `dirname` (so no `go`), in a throwaway install dir. */
function runWithoutGo(args: string[], env: Record<string, string> = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'promtool-install-'));
  try {
    const bin = path.join(dir, 'path');
    fs.mkdirSync(bin);
    fs.symlinkSync(execFileSync('bash', ['-c', 'command -v dirname'], { encoding: 'utf8' }).trim(), path.join(bin, 'dirname'));
    const r = spawnSync(BASH, [SCRIPT, ...args], { encoding: 'utf8', env: { PATH: bin, PROMTOOL_INSTALL_DIR: path.join(dir, 'target'), ...env } });
    return { status: r.status, out: `${r.stdout}${r.stderr}`, installed: fs.existsSync(path.join(dir, 'target')) };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

test("npm install's postinstall installs promtool too, after the Temporal binaries, each --optional", () => {
  const { scripts } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  expect(scripts.postinstall).toBe('bash scripts/install-temporal.sh --optional && bash scripts/install-promtool.sh --optional');
});

test('promtool is installed here at the pinned version (install-promtool.sh --check), the one the tests run', () => {
  const r = spawnSync('bash', [SCRIPT, '--check'], { encoding: 'utf8', env: { ...process.env, PROMTOOL_INSTALL_SKIP: '' } });
  expect({ status: r.status, out: `${r.stdout}${r.stderr}` }).toEqual({ status: 0, out: expect.stringMatching(/promtool v0\.\d+\.\d+ already installed/) });
  if (!process.env.PROMTOOL_PATH) expect(PROMTOOL).toBe(path.join(ROOT, '.cache/promtool/bin/promtool'));
});

test('without Go: the postinstall hook (--optional) warns, names the command and goes on; run by hand it fails', () => {
  const optional = runWithoutGo(['--optional']);
  expect(optional.status).toBe(0);
  expect(optional.out).toContain('no `go` on PATH: install Go 1.26.7 or newer');
  expect(optional.out).toContain('run `bash scripts/install-promtool.sh`');
  expect(optional.installed).toBe(false);
  const byHand = runWithoutGo([]);
  expect(byHand.status).toBe(1);
  expect(byHand.out).toContain('no `go` on PATH');
  // The Docker image (no tests there) skips it.
  expect(runWithoutGo(['--optional'], { PROMTOOL_INSTALL_SKIP: '1' })).toMatchObject({ status: 0, out: expect.stringContaining('PROMTOOL_INSTALL_SKIP=1, skipping') });
});

test('a missing promtool fails the test with one line giving the command to run', () => {
  const missing = path.join(os.tmpdir(), 'no-such-dir', 'promtool');
  let message = '';
  try {
    requirePromtool(missing);
  } catch (error) {
    message = (error as Error).message;
  }
  expect(message).toContain(`promtool is missing (no executable at ${missing}): run \`bash scripts/install-promtool.sh\``);
  expect(message).not.toContain('\n');
});
