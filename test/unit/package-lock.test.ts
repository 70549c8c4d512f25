/**
 * `npm ci` installs exactly package-lock.json and refuses a lock that does not satisfy package.json,
 * including one that lacks another platform's optional package ("Missing: @swc/core-darwin-arm64@ from
 * lock file"): such a lock installs on Linux with `npm install` but fails `npm ci` everywhere
 * (the Dockerfile, CI). Issue 8, defect 1.
 */
import fs from 'node:fs';
import path from 'node:path';

interface LockEntry {
  version?: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  link?: boolean;
}

interface PackageJson {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  overrides?: Record<string, string>;
}

const root = path.join(__dirname, '..', '..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as PackageJson;
const lock = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as {
  name: string;
  version: string;
  lockfileVersion: number;
  packages: Record<string, LockEntry>;
};

/** The lock key Node (and npm) would resolve `name` to from the package at `from` ('' is the root). */
function resolveInLock(from: string, name: string): string | undefined {
  let base = from;
  for (;;) {
    const key = `${base ? `${base}/` : ''}node_modules/${name}`;
    if (lock.packages[key]) return key;
    if (base === '') return undefined;
    const up = base.lastIndexOf('/node_modules/');
    base = up < 0 ? '' : base.slice(0, up);
  }
}

describe('package-lock.json', () => {
  test('is a lockfileVersion 3 lock of this package', () => {
    expect(lock.lockfileVersion).toBe(3);
    expect({ name: lock.name, version: lock.version }).toEqual({ name: pkg.name, version: pkg.version });
  });

  test("records every package's optional dependencies, for every platform (npm ci refuses it otherwise)", () => {
    const missing: string[] = [];
    for (const [key, entry] of Object.entries(lock.packages)) {
      for (const dep of Object.keys(entry.optionalDependencies ?? {})) {
        if (!resolveInLock(key, dep)) missing.push(`${key || '(root)'} -> ${dep}`);
      }
    }
    expect(missing).toEqual([]);
  });

  test.each([
    ['@swc/core', ['@swc/core-linux-x64-gnu', '@swc/core-darwin-arm64', '@swc/core-win32-x64-msvc']],
    ['unrs-resolver', ['@unrs/resolver-binding-linux-x64-gnu', '@unrs/resolver-binding-darwin-arm64', '@unrs/resolver-binding-win32-x64-msvc']],
  ])('%s has its Linux, macOS and Windows binaries in the lock', (parent, bindings) => {
    const holders = Object.keys(lock.packages).filter((key) => key === `node_modules/${parent}` || key.endsWith(`/node_modules/${parent}`));
    expect(holders.length).toBeGreaterThan(0);
    for (const holder of holders) for (const binding of bindings) expect({ holder, binding, found: resolveInLock(holder, binding) !== undefined }).toEqual({ holder, binding, found: true });
  });

  test("root matches package.json's dependencies and devDependencies, names and versions", () => {
    const rootEntry = lock.packages[''] as LockEntry;
    expect(rootEntry.dependencies ?? {}).toEqual(pkg.dependencies ?? {});
    expect(rootEntry.devDependencies ?? {}).toEqual(pkg.devDependencies ?? {});
    const locked = (name: string) => lock.packages[`node_modules/${name}`]?.version;
    for (const [name, version] of Object.entries({ ...pkg.dependencies, ...pkg.devDependencies })) {
      expect({ name, version: locked(name) }).toEqual({ name, version });
    }
  });

  test('every override is what the lock holds', () => {
    for (const [name, version] of Object.entries(pkg.overrides ?? {})) {
      const holders = Object.entries(lock.packages).filter(([key]) => key === `node_modules/${name}` || key.endsWith(`/node_modules/${name}`));
      expect(holders.length).toBeGreaterThan(0);
      for (const [key, entry] of holders) expect({ key, version: entry.version }).toEqual({ key, version });
    }
  });
});
