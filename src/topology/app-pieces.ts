import path from 'node:path';
import { workerBuild } from './builds';
import { projectRoot } from './paths';
import type { PieceSpec } from './piece';
import type { TopologyPorts } from './ports';
import { httpStatus, tcpAnswers } from './probes';
import type { TopologySecrets } from './secrets';
import { workerHeapArgs } from '../runtime/worker-heap';
import { withSharedMachineDefaults } from '../runtime/worker-process';
import { AGGREGATOR_WEBHOOK_ROUTE } from '../rail/aggregator/webhook-route';

/** What every Node piece of the topology shares. */
export interface AppContext {
  dir: string;
  ports: TopologyPorts;
  databaseUrl: string;
  temporalAddress: string;
  namespace: string;
  secrets: TopologySecrets;
  deployment: { deploymentName: string; buildId: string };
  /** With links (TOPOLOGY_LINKS=1): the workers reach the service's PostgreSQL, and the APIs Temporal, through them. */
  links?: { workerDatabaseUrl: string; apiTemporalAddress: string };
  /** With TOPOLOGY_CLOCK_SKEW=1 and libfaketime installed: the environment of the worker whose clock a chaos fault moves (clock-skew.ts). */
  skew?: { worker: string; env: NodeJS.ProcessEnv };
}

const ROOT = projectRoot();

/** `node --import tsx [flags] <entry>`: the Node process is the piece (its pid the one to signal). */
function node(entry: string, env: NodeJS.ProcessEnv, flags: string[] = []) {
  return { file: process.execPath, args: ['--import', 'tsx', ...flags, path.join(ROOT, entry)], env, cwd: ROOT };
}

/** The environment every API and worker gets: where the database, Temporal and the fake partner are. */
function sharedEnv(ctx: AppContext): NodeJS.ProcessEnv {
  const { ports, secrets } = ctx;
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    LOG_LEVEL: process.env.LOG_LEVEL || 'info',
    DATA_DIR: path.join(ctx.dir, 'data'),
    DATABASE_URL: ctx.databaseUrl,
    TEMPORAL_ADDRESS: ctx.temporalAddress,
    TEMPORAL_NAMESPACE: ctx.namespace,
    SECRETS_KEY: secrets.secrets_key,
    WORKER_DEPLOYMENT_NAME: ctx.deployment.deploymentName,
    WORKER_BUILD_ID: ctx.deployment.buildId,
    PARTNER_BASE_URL: `http://127.0.0.1:${ports.fakePartner}`,
    PARTNER_API_USER: secrets.partner.apiUser,
    PARTNER_API_KEY: secrets.partner.apiKey,
    PARTNER_SUBSCRIPTION_KEY: secrets.partner.subscriptionKey,
    PARTNER_TARGET_ENVIRONMENT: 'sandbox',
    // Callbacks go to the live port of the proxy, whichever API answers.
    PARTNER_CALLBACK_BASE_URL: `http://127.0.0.1:${ports.live}`,
    PARTNER_CALLBACK_SECRET: secrets.callback_secret,
    // Issue 45: the fake aggregator's process; its webhooks go to the proxy's live port.
    AGGREGATOR_BASE_URL: `http://127.0.0.1:${ports.fakeAggregator}`,
    AGGREGATOR_SECRET_KEY: secrets.aggregator.secretKey,
    AGGREGATOR_WEBHOOK_HASH: secrets.aggregator.webhookHash,
    ...(secrets.aggregator.encryptionKey ? { AGGREGATOR_ENCRYPTION_KEY: secrets.aggregator.encryptionKey } : {}),
    // Only the knobs an operator may set for the whole topology pass through (and a prebuilt
    // workflow bundle, WORKFLOW_BUNDLE_PATH, as the test suite makes one; RAIL_ROUTES, issue 46: the
    // chaos run's failover routes).
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => /^(WORKER_|WEBHOOK_|RATE_LIMIT_|DB_POOL_MAX|TEMPORAL_REQUEST_DEADLINE_MS|CHARGE_START_WAIT_MS|RECONCILE_|FAKE_PARTNER_(APPROVE|LATE)|HTTP_|BODY_LIMIT_BYTES$|WORKFLOW_BUNDLE_PATH$|RAIL_ROUTES$)/.test(k) && k !== 'WORKER_DEPLOYMENT_NAME' && k !== 'WORKER_BUILD_ID' && k !== 'WORKER_METRICS_PORT')),
  };
}

/**
 * A link (src/topology/link-main.ts) from `listen` to `target`: the chaos run's `partition` fault
 * signals it (SIGUSR1 partitions, SIGUSR2 heals).
 */
export const LINK_PIECES = { workerPostgres: 'link-worker-postgres', apiTemporal: 'link-api-temporal' } as const;

export function linkSpec(name: string, listen: number, target: number): PieceSpec {
  return {
    name,
    kind: 'node',
    port: listen,
    command: () => node('src/topology/link-main.ts', { PATH: process.env.PATH, HOME: process.env.HOME, TOPOLOGY_LINK_LISTEN: String(listen), TOPOLOGY_LINK_TARGET: `127.0.0.1:${target}` }),
    probe: async () => ((await tcpAnswers(listen)) ? 'ok' : 'starting'),
  };
}

/** The listener limits (HTTP_*, src/http/server-limits.ts) the proxy shares with the APIs. */
const httpLimitsEnv = () => Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('HTTP_')));

/** The fake partner (src/rail/fake-partner) as its own process on a fixed port, with the topology's credentials. */
export function fakePartnerSpec(ctx: AppContext): PieceSpec {
  const env = { ...sharedEnv(ctx), FAKE_PARTNER_PORT: String(ctx.ports.fakePartner), FAKE_PARTNER_API_USER: ctx.secrets.partner.apiUser, FAKE_PARTNER_API_KEY: ctx.secrets.partner.apiKey, FAKE_PARTNER_SUBSCRIPTION_KEY: ctx.secrets.partner.subscriptionKey };
  return {
    name: 'fake-partner',
    kind: 'node',
    port: ctx.ports.fakePartner,
    command: () => node('src/topology/fake-partner-main.ts', env),
    probe: async () => ((await tcpAnswers(ctx.ports.fakePartner)) ? 'ok' : 'starting'),
  };
}

/** The fake aggregator (src/rail/aggregator/fake) as its own process on a fixed port, with the topology's secrets, its webhooks to the proxy's live port. */
export function fakeAggregatorSpec(ctx: AppContext): PieceSpec {
  const env = { ...sharedEnv(ctx), FAKE_AGGREGATOR_PORT: String(ctx.ports.fakeAggregator), FAKE_AGGREGATOR_WEBHOOK_URL: `http://127.0.0.1:${ctx.ports.live}${AGGREGATOR_WEBHOOK_ROUTE}` };
  return {
    name: 'fake-aggregator',
    kind: 'node',
    port: ctx.ports.fakeAggregator,
    command: () => node('src/topology/fake-aggregator-main.ts', env),
    probe: async () => ((await tcpAnswers(ctx.ports.fakeAggregator)) ? 'ok' : 'starting'),
  };
}

/** A worker (workers/main.ts) with Worker Versioning on: it tells its readiness over IPC. */
export function workerSpec(ctx: AppContext, index: number): PieceSpec {
  // Every piece shares this machine: the worker's heap bound and priority (src/runtime/worker-process.ts).
  const name = `worker-${index + 1}`;
  const env = withSharedMachineDefaults({ ...sharedEnv(ctx), ...(ctx.links ? { DATABASE_URL: ctx.links.workerDatabaseUrl } : {}), ...(ctx.skew?.worker === name ? ctx.skew.env : {}), WORKER_METRICS_PORT: String(ctx.ports.workerMetrics[index]) });
  return {
    name,
    kind: 'node',
    port: ctx.ports.workerMetrics[index]!,
    ipc: true,
    // The build from its file at every start (builds.ts): a rollout writes it, then stops the worker.
    command: () => node('workers/main.ts', { ...env, WORKER_BUILD_ID: workerBuild(ctx.dir, name, ctx.deployment.buildId) }, workerHeapArgs(env)),
    probe: async (ready) => (ready ? 'ok' : 'starting'),
  };
}

/** An API process (src/main.ts without its worker): sandbox, live and web on its own internal ports. */
export function apiSpec(ctx: AppContext, index: number): PieceSpec {
  const own = ctx.ports.apis[index]!;
  const env = {
    ...sharedEnv(ctx),
    ...(ctx.links ? { TEMPORAL_ADDRESS: ctx.links.apiTemporalAddress } : {}),
    RUN_WORKER: 'false',
    DEMO_MERCHANT: 'false',
    HOST: '127.0.0.1',
    PORT: String(own.sandbox),
    LIVE_PORT: String(own.live),
    WEB_PORT: String(own.web),
    METRICS_PORT: String(own.metrics),
    // Every piece on this machine: the metrics listeners on loopback (METRICS_HOST's default), said explicitly.
    METRICS_HOST: '127.0.0.1',
    CODEC_PORT: '0',
    // The reference site's own port (issue 47) is not part of the topology: the proxy spreads the API and web ports only.
    DOCS_PORT: '0',
    // What browsers reach: the proxy's ports and the topology's UI.
    WEB_PUBLIC_URL: `http://127.0.0.1:${ctx.ports.web}`,
    SANDBOX_PUBLIC_URL: `http://127.0.0.1:${ctx.ports.sandbox}`,
    TEMPORAL_UI_URL: `http://127.0.0.1:${ctx.ports.temporalUi}`,
  };
  return {
    name: `api-${index + 1}`,
    kind: 'node',
    port: own.sandbox,
    ports: { sandbox: own.sandbox, live: own.live, web: own.web, metrics: own.metrics },
    command: () => node('src/main.ts', env),
    // 200 once the database and Temporal answer and a worker polls (src/http/routes/health.ts).
    probe: async () => ((await httpStatus(`http://127.0.0.1:${own.sandbox}/health`)) === 200 ? 'ok' : 'starting'),
  };
}

/** The proxy: the public ports, each spread over the APIs' matching listeners. */
export function proxySpec(ctx: AppContext): PieceSpec {
  const routes = [
    { listen: ctx.ports.sandbox, backends: ctx.ports.apis.map((a) => a.sandbox), style: 'api' as const },
    { listen: ctx.ports.live, backends: ctx.ports.apis.map((a) => a.live), style: 'api' as const },
    { listen: ctx.ports.web, backends: ctx.ports.apis.map((a) => a.web), style: 'web' as const },
  ];
  return {
    name: 'proxy',
    kind: 'node',
    port: ctx.ports.sandbox,
    ports: { sandbox: ctx.ports.sandbox, live: ctx.ports.live, web: ctx.ports.web },
    command: () => node('src/topology/proxy-main.ts', { PATH: process.env.PATH, HOME: process.env.HOME, TOPOLOGY_PROXY_ROUTES: JSON.stringify(routes), ...httpLimitsEnv() }),
    probe: async () => ((await httpStatus(`http://127.0.0.1:${ctx.ports.sandbox}/health`)) > 0 ? 'ok' : 'starting'),
  };
}
