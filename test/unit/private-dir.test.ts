import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensurePrivateDir, privateDirMode } from '../../src/support/private-dir';
import { localSecretsKey } from '../../src/support/secret-box';

// Issue 9: DATA_DIR (`.data/`) is created with mode 0700; an existing one with a looser mode is
// tightened, and that is announced. Started by root, 0711: the embedded PostgreSQL's account must
// pass through it (never list or read it).

let root: string;
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'private-dir-'));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));
const modeOf = (dir: string) => fs.statSync(dir).mode & 0o777;

test('the mode: 0700, or 0711 when started by root', () => {
  expect(privateDirMode(1000)).toBe(0o700);
  expect(privateDirMode(0)).toBe(0o711);
});

test.each([0o700, 0o711])('created with mode 0%s, nothing announced', (mode) => {
  const announced: string[] = [];
  const dir = path.join(root, 'nested', '.data');
  expect(ensurePrivateDir(dir, (m) => announced.push(m), mode)).toEqual({ created: true });
  expect(modeOf(dir)).toBe(mode);
  expect(announced).toEqual([]);
});

test('an existing DATA_DIR with a looser mode is tightened and announced; a strict one is left alone', () => {
  const dir = path.join(root, '.data');
  fs.mkdirSync(dir);
  fs.chmodSync(dir, 0o755);
  const announced: string[] = [];
  expect(ensurePrivateDir(dir, (m) => announced.push(m), 0o700)).toEqual({ created: false, tightenedFrom: 0o755 });
  expect(modeOf(dir)).toBe(0o700);
  expect(announced).toEqual([`DATA_DIR ${dir} had mode 0755 (readable by other accounts): tightened to 0700.`]);

  fs.chmodSync(dir, 0o777);
  expect(ensurePrivateDir(dir, () => {}, 0o711)).toEqual({ created: false, tightenedFrom: 0o777 });
  expect(modeOf(dir)).toBe(0o711);

  announced.length = 0;
  fs.chmodSync(dir, 0o700);
  expect(ensurePrivateDir(dir, (m) => announced.push(m), 0o711)).toEqual({ created: false });
  expect(modeOf(dir)).toBe(0o700);
  expect(announced).toEqual([]);
});

test('the local secrets key creates DATA_DIR private', () => {
  const dir = path.join(root, 'fresh', '.data');
  localSecretsKey(dir);
  expect(modeOf(dir)).toBe(privateDirMode());
  expect(fs.statSync(path.join(dir, 'secrets.key')).mode & 0o777).toBe(0o600);
});
