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
import { SEARCH_ATTRIBUTE_DEFINITIONS } from '../../src/domain/search-attributes';
import { TEMPORAL_SERVER_VERSION } from '../../src/topology/temporal-server';
import { TEMPORAL_UI_VERSION } from '../../src/topology/temporal-ui';

interface ServiceModel {
  image: string | undefined;
  hasBuild: boolean;
  hasHealthcheck: boolean;
  /** dependency service name -> condition (`service_started` when none is given) */
  dependsOn: Record<string, string>;
  environment: Record<string, string>;
  /** `ports` entries in the long form: host ip ('' = every interface), published and target port. */
  ports: Array<{ hostIp: string; published: string; target: string }>;
}

type Service = Record<string, unknown>;

const EXPECTED_SERVICES = ['postgresql', 'migrate', 'temporal-schema', 'temporal', 'temporal-namespace', 'temporal-ui', 'api', 'worker'];
const COMPOSE_TEXT = fs.readFileSync(path.join(__dirname, '..', '..', 'docker-compose.yml'), 'utf8');
/** The secrets docker-compose.yml requires (an .env from docker/make-env.sh); each value names its variable. */
const SECRETS = ['POSTGRES_PASSWORD', 'PAYMENTS_MIGRATOR_DB_PASSWORD', 'PAYMENTS_API_DB_PASSWORD', 'PAYMENTS_WORKER_DB_PASSWORD', 'TEMPORAL_DB_PASSWORD', 'SECRETS_KEY'];
const ENV: Record<string, string> = Object.fromEntries(SECRETS.map((name) => [name, `${name.toLowerCase()}-value`]));
const APP_SERVICES = ['api', 'worker', 'migrate'];

/** Short (`[ip:]published:target[/proto]`) or long form `ports` entries, normalised. */
function ports(value: unknown): ServiceModel['ports'] {
  if (!Array.isArray(value)) return [];
  return value.map((p) => {
    if (p && typeof p === 'object') {
      const long = p as { host_ip?: string; published?: unknown; target?: unknown };
      return { hostIp: long.host_ip ?? '', published: str(long.published), target: str(long.target) };
    }
    const parts = str(p).replace(/\/(tcp|udp)$/, '').split(':');
    const target = parts.pop() ?? '';
    const published = parts.pop() ?? '';
    return { hostIp: parts.join(':').replace(/^\[|\]$/g, ''), published, target };
  });
}

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
    ports: ports(svc.ports),
  };
}

function services(): Record<string, Service> {
  return (loadComposeFile(COMPOSE_TEXT, ENV).services ?? {}) as Record<string, Service>;
}

function service(name: string): ServiceModel {
  const svc = services()[name];
  if (!svc) throw new Error(`service "${name}" not defined; services: ${Object.keys(services()).join(', ')}`);
  return model(svc);
}

describe('docker-compose.yml', () => {
  test('is valid according to the Compose Specification schema', () => {
    expect(() => loadComposeFile(COMPOSE_TEXT, ENV)).not.toThrow();
  });

  test('defines postgresql, the one-shot setup services, temporal, temporal-ui, api and worker', () => {
    expect(Object.keys(services()).sort()).toEqual(expect.arrayContaining([...EXPECTED_SERVICES].sort()));
  });

  test('postgresql and temporal have healthchecks (required by service_healthy conditions)', () => {
    expect(service('postgresql').hasHealthcheck).toBe(true);
    expect(service('temporal').hasHealthcheck).toBe(true);
  });

  test('temporal runs on the postgresql service, as its own role, from a pinned server release', () => {
    const temporal = service('temporal');
    expect(temporal.image).toMatch(/^temporalio\/server:\d+\.\d+\.\d+$/);
    expect(temporal.environment).toMatchObject({ DB: 'postgres12', POSTGRES_SEEDS: 'postgresql', DB_PORT: '5432', POSTGRES_USER: 'temporal', POSTGRES_PWD: ENV.TEMPORAL_DB_PASSWORD });
    expect(temporal.dependsOn).toMatchObject({ postgresql: 'service_healthy', 'temporal-schema': 'service_completed_successfully' });
  });

  test('no service uses temporalio/auto-setup; admin-tools is pinned to the server release', () => {
    const images = Object.keys(services()).map((name) => service(name).image ?? '');
    expect(images.filter((i) => i.includes('auto-setup'))).toEqual([]);
    const release = (service('temporal').image ?? '').split(':')[1];
    for (const name of ['temporal-schema', 'temporal-namespace']) expect(service(name).image).toBe(`temporalio/admin-tools:${release}`);
  });

  test('the server and UI releases are the ones npm run topology builds (scripts/install-temporal-server.sh)', () => {
    expect([service('temporal').image, service('temporal-ui').image]).toEqual([`temporalio/server:${TEMPORAL_SERVER_VERSION}`, `temporalio/ui:${TEMPORAL_UI_VERSION}`]);
    const script = fs.readFileSync(path.join(__dirname, '../../scripts/install-temporal-server.sh'), 'utf8');
    expect(script).toContain(`TEMPORAL_SERVER_VERSION=v${TEMPORAL_SERVER_VERSION}\n`);
    expect(script).toContain(`TEMPORAL_UI_VERSION=v${TEMPORAL_UI_VERSION}\n`);
  });

  test('temporal-schema sets up both Temporal databases before the server, as the temporal role', () => {
    const schema = service('temporal-schema');
    expect(schema.dependsOn).toMatchObject({ postgresql: 'service_healthy' });
    expect(schema.environment).toMatchObject({ POSTGRES_SEEDS: 'postgresql', POSTGRES_USER: 'temporal', SQL_PASSWORD: ENV.TEMPORAL_DB_PASSWORD });
    const script = fs.readFileSync(path.join(__dirname, '..', '..', 'docker', 'temporal', 'setup-schema.sh'), 'utf8');
    for (const db of ['temporal', 'temporal_visibility']) {
      expect(script).toMatch(new RegExp(`--db ${db} setup-schema`));
      expect(script).toMatch(new RegExp(`--db ${db} update-schema`));
    }
  });

  test('temporal-namespace registers the namespace and exactly our search attributes before the apps start', () => {
    const ns = service('temporal-namespace');
    expect(ns.dependsOn).toMatchObject({ temporal: 'service_healthy' });
    expect(ns.environment.NAMESPACE).toBe(service('api').environment.TEMPORAL_NAMESPACE);
    expect(ns.environment.SEARCH_ATTRIBUTES.split(/\s+/)).toEqual(SEARCH_ATTRIBUTE_DEFINITIONS.map((d) => `${d.name}=${d.type}`));
  });

  test('only the API ports, the web port and the reference site are published; the Temporal UI only on 127.0.0.1; the frontend (7233) nowhere', () => {
    const published = Object.keys(services()).flatMap((name) => service(name).ports.map((p) => ({ service: name, ...p })));
    expect(published.filter((p) => p.service !== 'temporal-ui')).toEqual([
      { service: 'api', hostIp: '', published: '3000', target: '3000' },
      { service: 'api', hostIp: '', published: '3001', target: '3001' },
      { service: 'api', hostIp: '', published: '3002', target: '3002' },
      { service: 'api', hostIp: '', published: '3003', target: '3003' },
    ]);
    expect(published.filter((p) => p.service === 'temporal-ui')).toEqual([{ service: 'temporal-ui', hostIp: '127.0.0.1', published: '8233', target: '8080' }]);
    expect(published.some((p) => p.published === '7233' || p.target === '7233')).toBe(false);
    // Issue 47: the metrics listeners stay on each container's loopback though HOST is 0.0.0.0 (nothing here scrapes them).
    for (const name of ['api', 'worker']) expect({ name, host: service(name).environment.METRICS_HOST }).toEqual({ name, host: '127.0.0.1' });
  });

  test.each(APP_SERVICES)('%s connects as its own role, never the postgres superuser', (name) => {
    const url = new URL(service(name).environment.DATABASE_URL ?? '');
    expect(url.username).not.toBe('postgres');
    expect(url.username).toBe({ api: 'payments_api', worker: 'payments_worker', migrate: 'payments_migrator' }[name]);
    expect(url.hostname).toBe('postgresql');
  });

  test('each role has its own password, and the init script that creates the roles is mounted', () => {
    const passwords = APP_SERVICES.map((name) => decodeURIComponent(new URL(service(name).environment.DATABASE_URL ?? '').password));
    expect(new Set([...passwords, service('temporal').environment.POSTGRES_PWD, ENV.POSTGRES_PASSWORD]).size).toBe(5);
    const pg = services().postgresql as { volumes?: string[] };
    expect(pg.volumes).toEqual(expect.arrayContaining([expect.stringMatching(/^\.\/docker\/postgres\/init-roles\.sh:\/docker-entrypoint-initdb\.d\//)]));
  });

  test.each(['SECRETS_KEY', 'POSTGRES_PASSWORD', 'PAYMENTS_API_DB_PASSWORD', 'PAYMENTS_WORKER_DB_PASSWORD', 'PAYMENTS_MIGRATOR_DB_PASSWORD', 'TEMPORAL_DB_PASSWORD'])('%s has no default: the file refuses to load without it', (name) => {
    const { [name]: _omitted, ...rest } = ENV;
    expect(() => loadComposeFile(COMPOSE_TEXT, rest)).toThrow(new RegExp(`required variable ${name}`));
  });

  test.each(['api', 'worker'])('%s is built from the Dockerfile and waits for the migrations, temporal and its namespace', (name) => {
    const svc = service(name);
    expect(svc.hasBuild).toBe(true);
    expect(svc.dependsOn).toMatchObject({ postgresql: 'service_healthy', migrate: 'service_completed_successfully', temporal: 'service_healthy', 'temporal-namespace': 'service_completed_successfully' });
    expect(svc.environment.TEMPORAL_ADDRESS).toBe('temporal:7233');
    expect(svc.environment.SECRETS_KEY).toBe(ENV.SECRETS_KEY);
  });

  test('migrate runs the image once, before the apps, as the schema owner', () => {
    const migrate = service('migrate');
    expect(migrate.hasBuild).toBe(true);
    expect(services().migrate?.command).toEqual(['node', 'dist/src/persistence/migrate.js']);
    expect(migrate.dependsOn).toEqual({ postgresql: 'service_healthy' });
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
    expect(api.environment.DATABASE_URL).toBe(`postgres://payments_api:${ENV.PAYMENTS_API_DB_PASSWORD}@postgresql:5432/payments`);
    const overridden = model((loadComposeFile(COMPOSE_TEXT, { ...ENV, PAYMENTS_API_DB_PASSWORD: 's3cret' }).services as Record<string, Service>).api as Service);
    expect(overridden.environment.DATABASE_URL).toBe('postgres://payments_api:s3cret@postgresql:5432/payments');
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
    expect(() => loadComposeFile(text, ENV)).toThrow(ComposeFileError);
  });

  test('a required variable without a value', () => {
    expect(() => loadComposeFile(mutate('${LOG_LEVEL:-info}', '${LOG_LEVEL:?set it}'), ENV)).toThrow(/required variable LOG_LEVEL/);
  });

  test.each([
    ['the frontend published', mutate('    image: temporalio/server:', '    ports:\n      - "7233:7233"\n    image: temporalio/server:')],
    ['the UI on every interface', mutate('"127.0.0.1:8233:8080"', '"8233:8080"')],
    ['an app as the superuser', mutate('postgres://payments_api:', 'postgres://postgres:')],
    ['auto-setup', mutate(/temporalio\/server:[\d.]+/, 'temporalio/auto-setup:1.28.1')],
  ])('the topology checks catch %s', (_what, text) => {
    const checks = (t: string) => {
      const all = (loadComposeFile(t, ENV).services ?? {}) as Record<string, Service>;
      const m = (n: string) => model(all[n] as Service);
      const published = Object.keys(all).flatMap((n) => m(n).ports.map((p) => ({ service: n, ...p })));
      if (published.some((p) => p.service !== 'api' && !(p.service === 'temporal-ui' && p.hostIp === '127.0.0.1'))) throw new Error('published');
      if (Object.keys(all).some((n) => (m(n).image ?? '').includes('auto-setup'))) throw new Error('auto-setup');
      if (APP_SERVICES.some((n) => new URL(m(n).environment.DATABASE_URL ?? '').username === 'postgres')) throw new Error('superuser');
    };
    expect(() => checks(COMPOSE_TEXT)).not.toThrow();
    expect(() => checks(text)).toThrow();
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
