/**
 * Static checks of docker-compose.yml through the compose CLI itself (`config`), so that syntax,
 * interpolation and merge keys are validated exactly as `docker compose up` would see them.
 * No Docker engine is needed. A missing compose binary is a test failure, never a skip.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

interface ServiceModel {
  image: string | undefined;
  hasBuild: boolean;
  hasHealthcheck: boolean;
  /** dependency service name -> condition (`service_started` when none is given) */
  dependsOn: Record<string, string>;
  environment: Record<string, string>;
}

interface Compose {
  cmd: string;
  baseArgs: string[];
}

const EXPECTED_SERVICES = ['postgresql', 'temporal', 'temporal-ui', 'api', 'worker'];

function findRepoRoot(): string {
  let dir = process.cwd();
  for (;;) {
    if (existsSync(path.join(dir, 'docker-compose.yml')) && existsSync(path.join(dir, 'package.json'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`docker-compose.yml not found in ${process.cwd()} or any parent directory`);
    dir = parent;
  }
}

const repoRoot = findRepoRoot();

/** Environment without variables that would make compose read other files or profiles. */
function composeEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith('COMPOSE_')) delete env[key];
  return env;
}

function run(cmd: string, args: string[]): string {
  return execFileSync(cmd, args, {
    cwd: repoRoot,
    env: composeEnv(),
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 30_000,
  });
}

function succeeds(cmd: string, args: string[]): boolean {
  try {
    run(cmd, args);
    return true;
  } catch {
    return false;
  }
}

let composeCache: Compose | undefined;

function compose(): Compose {
  if (composeCache) return composeCache;
  if (succeeds('docker', ['compose', 'version'])) composeCache = { cmd: 'docker', baseArgs: ['compose'] };
  else if (succeeds('docker-compose', ['version'])) composeCache = { cmd: 'docker-compose', baseArgs: [] };
  else {
    throw new Error(
      'No Docker Compose CLI found: neither `docker compose` (Compose v2 plugin) nor `docker-compose` is on PATH. ' +
        'Install one, e.g. `apt-get install docker-compose` on Debian/Ubuntu or the `docker-compose-plugin` package ' +
        "from Docker's repository. (.ci/run installs it automatically.)",
    );
  }
  return composeCache;
}

function composeConfig(...extra: string[]): string {
  const { cmd, baseArgs } = compose();
  const args = [...baseArgs, '-f', 'docker-compose.yml', 'config', ...extra];
  try {
    return run(cmd, args);
  } catch (err) {
    const e = err as { stderr?: string; message: string };
    throw new Error(`\`${cmd} ${args.join(' ')}\` failed:\n${e.stderr || e.message}`);
  }
}

// ---------------------------------------------------------------------------------------------
// JSON (`config --format json`, Compose v2) or, for docker-compose v1, the normalised YAML text.

function str(value: unknown): string {
  return value === null || value === undefined ? '' : String(value);
}

function fromJson(doc: { services?: Record<string, Record<string, unknown>> }, name: string): ServiceModel {
  const svc = doc.services?.[name];
  if (!svc) throw new Error(`service ${name} missing from compose JSON`);
  const dependsOn: Record<string, string> = {};
  const deps = svc.depends_on;
  if (Array.isArray(deps)) for (const d of deps) dependsOn[str(d)] = 'service_started';
  else if (deps && typeof deps === 'object')
    for (const [d, v] of Object.entries(deps as Record<string, { condition?: string }>))
      dependsOn[d] = v?.condition ?? 'service_started';
  const environment: Record<string, string> = {};
  const env = svc.environment;
  if (Array.isArray(env))
    for (const item of env) {
      const [k, ...rest] = str(item).split('=');
      environment[k ?? ''] = rest.join('=');
    }
  else if (env && typeof env === 'object') for (const [k, v] of Object.entries(env)) environment[k] = str(v);
  return {
    image: svc.image === undefined ? undefined : str(svc.image),
    hasBuild: svc.build !== undefined,
    hasHealthcheck: svc.healthcheck !== undefined,
    dependsOn,
    environment,
  };
}

const indentOf = (line: string): number => line.length - line.trimStart().length;

function unquote(raw: string): string {
  const v = raw.trim();
  if (v.length >= 2 && v.startsWith("'") && v.endsWith("'")) return v.slice(1, -1).replace(/''/g, "'");
  if (v.length >= 2 && v.startsWith('"') && v.endsWith('"')) return JSON.parse(v) as string;
  return v;
}

/** Lines nested under the mapping key path (e.g. ['services', 'api', 'environment']), or undefined. */
function block(lines: string[], keys: string[]): string[] | undefined {
  let current = lines;
  for (const key of keys) {
    const first = current.find((l) => l.trim() !== '');
    if (first === undefined) return undefined;
    const indent = indentOf(first);
    const keyRe = new RegExp(`^ {${indent}}['"]?${key.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&')}['"]?:(\\s|$)`);
    const start = current.findIndex((l) => keyRe.test(l));
    if (start < 0) return undefined;
    const child: string[] = [];
    for (const l of current.slice(start + 1)) {
      if (l.trim() === '') continue;
      if (indentOf(l) <= indent && !(indentOf(l) === indent && l.trimStart().startsWith('- '))) break;
      child.push(l);
    }
    current = child;
  }
  return current;
}

/** Direct `key: value` children of a mapping block (nested values become ''); sequences of scalars become keys. */
function mapping(lines: string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!lines || lines.length === 0) return out;
  const indent = indentOf(lines[0] ?? '');
  for (const l of lines) {
    if (indentOf(l) !== indent) continue;
    const t = l.trim();
    if (t.startsWith('- ')) {
      out[unquote(t.slice(2))] = '';
      continue;
    }
    const m = /^(['"]?)([^'":]+)\1:(?:\s+(.*))?$/.exec(t);
    if (m?.[2] !== undefined) out[m[2]] = unquote(m[3] ?? '');
  }
  return out;
}

function fromText(text: string, name: string): ServiceModel {
  const lines = text.split('\n');
  const svcLines = block(lines, ['services', name]);
  if (!svcLines) throw new Error(`service ${name} missing from \`config\` output`);
  const top = mapping(svcLines);
  const dependsOn: Record<string, string> = {};
  for (const dep of Object.keys(mapping(block(svcLines, ['depends_on'])))) {
    dependsOn[dep] = mapping(block(svcLines, ['depends_on', dep])).condition || 'service_started';
  }
  return {
    image: top.image,
    hasBuild: 'build' in top,
    hasHealthcheck: 'healthcheck' in top,
    dependsOn,
    environment: mapping(block(svcLines, ['environment'])),
  };
}

let modelCache: Record<string, ServiceModel> | undefined;

function services(): Record<string, ServiceModel> {
  if (modelCache) return modelCache;
  const names = composeConfig('--services').split('\n').map((s) => s.trim()).filter(Boolean);
  let json: { services?: Record<string, Record<string, unknown>> } | undefined;
  try {
    // Compose v2 only; docker-compose v1 rejects the flag (sometimes printing usage with exit code 0).
    json = JSON.parse(composeConfig('--format', 'json')) as typeof json;
  } catch {
    json = undefined;
  }
  const text = json ? '' : composeConfig();
  const model: Record<string, ServiceModel> = {};
  for (const n of names) model[n] = json ? fromJson(json, n) : fromText(text, n);
  modelCache = model;
  return model;
}

function service(name: string): ServiceModel {
  const svc = services()[name];
  if (!svc) throw new Error(`service "${name}" not defined; services: ${Object.keys(services()).join(', ')}`);
  return svc;
}

describe('docker-compose.yml', () => {
  test('is valid according to the compose CLI', () => {
    expect(() => composeConfig('--quiet')).not.toThrow();
  });

  test('defines postgresql, temporal, temporal-ui, api and worker', () => {
    expect(Object.keys(services()).sort()).toEqual(expect.arrayContaining([...EXPECTED_SERVICES].sort()));
  });

  test('postgresql and temporal have healthchecks (required by service_healthy conditions)', () => {
    expect(service('postgresql').hasHealthcheck).toBe(true);
    expect(service('temporal').hasHealthcheck).toBe(true);
  });

  test('temporal runs on the postgresql service', () => {
    const temporal = service('temporal');
    expect(temporal.image).toMatch(/^temporalio\/auto-setup:\d+\.\d+/);
    expect(temporal.environment.DB).toBe('postgres12');
    expect(temporal.environment.POSTGRES_SEEDS).toBe('postgresql');
    expect(temporal.environment.DB_PORT).toBe('5432');
    expect(temporal.dependsOn.postgresql).toBe('service_healthy');
  });

  test.each(['api', 'worker'])('%s is built from the Dockerfile and waits for postgresql and temporal', (name) => {
    const svc = service(name);
    expect(svc.hasBuild).toBe(true);
    expect(svc.dependsOn).toMatchObject({ postgresql: 'service_healthy', temporal: 'service_healthy' });
    expect(svc.environment.TEMPORAL_ADDRESS).toBe('temporal:7233');
    expect(new URL(svc.environment.DATABASE_URL ?? '').hostname).toBe('postgresql');
  });

  test('api listens on all interfaces and leaves workflows to the worker', () => {
    const api = service('api');
    expect(api.environment).toMatchObject({ HOST: '0.0.0.0', PORT: '3000', LIVE_PORT: '3001', RUN_WORKER: 'false' });
  });

  test('temporal-ui points at the temporal service', () => {
    expect(service('temporal-ui').environment.TEMPORAL_ADDRESS).toBe('temporal:7233');
  });
});
