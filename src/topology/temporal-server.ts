import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { StartupError } from '../support/startup-error';
import { TASK_PROBLEMS_TO_FLAG } from '../temporal/dev-server';
import { temporalServerBinDir } from './paths';
import type { PieceSpec } from './piece';
import type { TopologyPorts } from './ports';
import { postgresUrl } from './postgres';
import { temporalProbe } from './temporal-probe';

const run = promisify(execFile);

/** The release scripts/install-temporal-server.sh builds (the pinned CLI's dev server runs the same). */
export const TEMPORAL_SERVER_VERSION = '1.32.0';
export const TEMPORAL_DATABASES = ['temporal', 'temporal_visibility'] as const;

export const INSTALL_HINT = 'bash scripts/install-temporal-server.sh';

/** A path relative to the working directory when it lies inside it, else absolute. */
const shown = (file: string) => (path.relative(process.cwd(), file).startsWith('..') ? file : path.relative(process.cwd(), file));

/** The built binaries and the schema folder, or a StartupError naming the install script. */
export function temporalServerInstall(env: NodeJS.ProcessEnv = process.env): { server: string; sqlTool: string; uiServer: string; schemaDir: string } {
  const bin = temporalServerBinDir(env);
  const install = { server: path.join(bin, 'temporal-server'), sqlTool: path.join(bin, 'temporal-sql-tool'), uiServer: path.join(bin, 'temporal-ui-server'), schemaDir: path.join(path.dirname(bin), `schema-v${TEMPORAL_SERVER_VERSION}`, 'postgresql', 'v12') };
  const missing = [install.server, install.sqlTool, install.uiServer, install.schemaDir].filter((f) => !fs.existsSync(f));
  if (missing.length > 0) {
    throw new StartupError(
      `the Temporal server ${TEMPORAL_SERVER_VERSION} is not built (missing ${missing.map(shown).join(', ')}): run \`${INSTALL_HINT}\` (about 5 minutes on 2 cores), or use \`npm run topology -- up --temporal dev\``,
    );
  }
  return install;
}

/**
 * The dynamic config of the real server: what `npm start`'s dev server gets with
 * --dynamic-config-value (src/temporal/dev-server.ts), and the id length docker-compose.yml allows.
 */
export function writeDynamicConfig(file: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const yaml = [
    '# Written by npm run topology (src/topology/temporal-server.ts): the settings npm start gives its dev server.',
    'frontend.enableUpdateWorkflowExecution:',
    '  - value: true',
    'system.numConsecutiveWorkflowTaskProblemsToTriggerSearchAttribute:',
    `  - value: ${TASK_PROBLEMS_TO_FLAG}`,
    'limit.maxIDLength:',
    '  - value: 255',
    '',
  ].join('\n');
  fs.writeFileSync(file, yaml);
}

/**
 * Temporal's two databases with their schema: created when missing, then `setup-schema -v 0.0`
 * (a no-op on an existing schema) and `update-schema` (only the missing versions), as
 * docker/temporal/setup-schema.sh does with the admin-tools image.
 */
export async function setupTemporalSchema(sqlTool: string, schemaDir: string, port: number, log: (line: string) => void): Promise<void> {
  for (const db of TEMPORAL_DATABASES) {
    const base = ['--plugin', 'postgres12', '--ep', '127.0.0.1', '-p', String(port), '-u', 'postgres', '--pw', 'postgres', '--db', db];
    const versioned = path.join(schemaDir, db === 'temporal' ? 'temporal' : 'visibility', 'versioned');
    for (const args of [
      ['setup-schema', '-v', '0.0'],
      ['update-schema', '-d', versioned],
    ]) {
      const { stdout, stderr } = await run(sqlTool, [...base, ...args], { timeout: 120_000 }).catch((error: { stderr?: string; message: string }) => {
        throw new Error(`temporal-sql-tool ${args[0]} on ${db} failed: ${(error.stderr || error.message).trim().split('\n').slice(-3).join(' ')}`);
      });
      log(`temporal-sql-tool ${db} ${args.join(' ')}: ${(stdout + stderr).trim().split('\n').slice(-1)[0] ?? ''}`);
    }
  }
}

/** `temporal-server --allow-no-auth start`, its config rendered from the environment (the server's embedded template). */
export function temporalServerSpec(opts: { server: string; dir: string; ports: TopologyPorts; namespace: string }): PieceSpec {
  const { ports } = opts;
  const dynamicConfig = path.join(opts.dir, 'temporal', 'dynamicconfig.yaml');
  writeDynamicConfig(dynamicConfig);
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    DB: 'postgres12',
    POSTGRES_SEEDS: '127.0.0.1',
    DB_PORT: String(ports.temporalPostgres),
    POSTGRES_USER: 'postgres',
    POSTGRES_PWD: 'postgres',
    DBNAME: 'temporal',
    VISIBILITY_DBNAME: 'temporal_visibility',
    BIND_ON_IP: '127.0.0.1',
    FRONTEND_GRPC_PORT: String(ports.temporal),
    FRONTEND_HTTP_PORT: String(ports.temporalHttp),
    FRONTEND_MEMBERSHIP_PORT: String(ports.temporalMembership.frontend),
    HISTORY_GRPC_PORT: String(ports.temporalHistory),
    HISTORY_MEMBERSHIP_PORT: String(ports.temporalMembership.history),
    MATCHING_GRPC_PORT: String(ports.temporalMatching),
    MATCHING_MEMBERSHIP_PORT: String(ports.temporalMembership.matching),
    WORKER_GRPC_PORT: String(ports.temporalWorker),
    WORKER_MEMBERSHIP_PORT: String(ports.temporalMembership.worker),
    PROMETHEUS_ENDPOINT: `127.0.0.1:${ports.temporalMetrics}`,
    DYNAMIC_CONFIG_FILE_PATH: dynamicConfig,
    LOG_LEVEL: 'warn',
  };
  return {
    name: 'temporal',
    kind: 'server',
    version: TEMPORAL_SERVER_VERSION,
    port: ports.temporal,
    ports: { http: ports.temporalHttp, history: ports.temporalHistory, matching: ports.temporalMatching, worker: ports.temporalWorker, metrics: ports.temporalMetrics },
    command: () => ({ file: opts.server, args: ['--allow-no-auth', 'start'], env, cwd: path.join(opts.dir, 'temporal') }),
    probe: temporalProbe(`127.0.0.1:${ports.temporal}`, opts.namespace),
    startTimeoutMs: 180_000,
  };
}

export const temporalDatabaseUrl = (ports: TopologyPorts) => postgresUrl(ports.temporalPostgres, 'temporal');
