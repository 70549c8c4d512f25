/**
 * Static checks of docker-compose.yml with nothing beyond Node: the file is read as Compose reads it
 * (YAML merge keys, variable interpolation) and validated against the Compose Specification's JSON
 * schema (test/support/compose-spec), then the topology is checked on the parsed document.
 * `.ci/run` also runs the compose CLI's own `config` on top; `npm test` does not need it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ComposeFileError, loadComposeFile } from '../support/compose-file';
import { interpolateString } from '../support/compose-interpolate';

interface ServiceModel {
  image: string | undefined;
  hasBuild: boolean;
  hasHealthcheck: boolean;
  /** dependency service name -> condition (`service_started` when none is given) */
  dependsOn: Record<string, string>;
  environment: Record<string, string>;
}

type Service = Record<string, unknown>;

const EXPECTED_SERVICES = ['postgresql', 'temporal', 'temporal-ui', 'api', 'worker'];
const COMPOSE_TEXT = fs.readFileSync(path.join(__dirname, '..', '..', 'docker-compose.yml'), 'utf8');

function str(value: unknown): string {
  return value === null || value === undefined ? '' : String(value);
}

function model(svc: Service): ServiceModel {
  const dependsOn: Record<string, string> = {};
  const deps = svc.depends_on;
  if (Array.isArray(deps)) for (const d of deps) dependsOn[str(d)] = 'service_started';
  else if (deps && typeof deps === 'object')
    for (const [d, v] of Object.entries(deps as Record<string, { condition?: string } | null>)) dependsOn[d] = v?.condition ?? 'service_started';
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

function services(): Record<string, Service> {
  return (loadComposeFile(COMPOSE_TEXT).services ?? {}) as Record<string, Service>;
}

function service(name: string): ServiceModel {
  const svc = services()[name];
  if (!svc) throw new Error(`service "${name}" not defined; services: ${Object.keys(services()).join(', ')}`);
  return model(svc);
}

describe('docker-compose.yml', () => {
  test('is valid according to the Compose Specification schema', () => {
    expect(() => loadComposeFile(COMPOSE_TEXT)).not.toThrow();
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

  test('merge keys and interpolation are applied as Compose applies them', () => {
    const api = service('api');
    expect(api.environment.NODE_ENV).toBe('production');
    expect(api.environment.DATABASE_URL).toBe('postgres://postgres:postgres@postgresql:5432/payments');
    const overridden = model((loadComposeFile(COMPOSE_TEXT, { POSTGRES_PASSWORD: 's3cret' }).services as Record<string, Service>).api as Service);
    expect(overridden.environment.DATABASE_URL).toBe('postgres://postgres:s3cret@postgresql:5432/payments');
  });
});

describe('the Compose file check refuses a broken file', () => {
  const mutate = (from: string | RegExp, to: string): string => {
    const mutated = COMPOSE_TEXT.replace(from, to);
    if (mutated === COMPOSE_TEXT) throw new Error(`mutation ${String(from)} no longer applies to docker-compose.yml`);
    return mutated;
  };

  test.each([
    ['an unknown service key (typo)', mutate(/^ {4}healthcheck:/m, '    helthcheck:')],
    ['an unknown depends_on condition', mutate('condition: service_healthy', 'condition: service_ready')],
    ['a healthcheck test of the wrong type', mutate(/test: \["CMD-SHELL", "pg_isready[^\n]*/, 'test: 42')],
    ['an unknown top-level key', `${COMPOSE_TEXT}\nnetwork:\n  default: {}\n`],
    ['a duplicate key', mutate(/^ {4}image: postgres:16$/m, '    image: postgres:16\n    image: postgres:17')],
  ])('%s', (_what, text) => {
    expect(() => loadComposeFile(text)).toThrow(ComposeFileError);
  });

  test('a required variable without a value', () => {
    expect(() => loadComposeFile(mutate('${POSTGRES_PASSWORD:-postgres}@', '${POSTGRES_PASSWORD:?set it}@'))).toThrow(/required variable POSTGRES_PASSWORD/);
  });
});

describe('Compose variable interpolation', () => {
  test.each([
    ['${A}', { A: 'x' }, 'x'],
    ['$A-$B', { A: 'x' }, 'x-'],
    ['${A:-d}', { A: '' }, 'd'],
    ['${A-d}', { A: '' }, ''],
    ['${A:-${B:-inner}}', {}, 'inner'],
    ['${A:+alt}', { A: 'x' }, 'alt'],
    ['${A+alt}', {}, ''],
    ['cost: $$5', {}, 'cost: $5'],
  ])('%s with %j is %j', (text, env, expected) => {
    expect(interpolateString(text, env)).toBe(expected);
  });

  test.each(['${A', '$ 5', '${1A}'])('%s is an invalid format', (text) => {
    expect(() => interpolateString(text, {})).toThrow(/invalid interpolation format/);
  });
});
