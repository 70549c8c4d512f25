import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../../src/config';
import { openOrm } from '../../../src/persistence/orm';
import type { ServiceDeps } from '../../../src/services/context';
import { isPortFree } from '../../../src/support/port-free';
import { createLogger } from '../../../src/support/logger';
import { createApiMetrics } from '../../../src/support/metrics';
import { createSecretBox, parseKeyring, parseSecretsKey } from '../../../src/support/secret-box';
import { createPayloadCodec } from '../../../src/temporal/payload-codec';
import { connectTemporal } from '../../../src/temporal/connection';
import { readTopologyState, topologyDown, topologyUp, type TopologyState } from '../../../src/topology';
import { allPorts, topologyPorts } from '../../../src/topology/ports';
import { topologySecrets } from '../../../src/topology/secrets';
import { postgresUrl } from '../../../src/topology/postgres';
import { isAlive } from '../../../src/topology/state';
import { temporalServerInstall } from '../../../src/topology/temporal-server';
import type { BenchInfra } from './bench-infra';
import type { PaymentsSide } from './payments';
import type { CpuRoots } from './procs';
import type { Variant } from './variants';

/** Offsets the bench tries for the topology's ports (the chaos tests use 14000–20000; 24524 is the highest allowed). */
const OFFSETS = Array.from({ length: 8 }, (_, i) => 21_000 + 500 * i);

/**
 * Throws the topology's own one-line StartupError (naming scripts/install-temporal-server.sh) when
 * the Temporal server is not built; run.ts calls it before the first variant.
 */
export function checkTopologyInstall(): void {
  temporalServerInstall();
}

/** BENCH_TOPOLOGY_PORT_OFFSET, else the first offset whose every port is free. */
async function portOffset(): Promise<number> {
  const given = process.env.BENCH_TOPOLOGY_PORT_OFFSET;
  if (given) return Number(given);
  for (const offset of OFFSETS) {
    const free = await Promise.all(allPorts(topologyPorts(offset), 'server').map((p) => isPortFree('127.0.0.1', p)));
    if (free.every(Boolean)) return offset;
  }
  throw new Error(`no port offset of ${OFFSETS[0]}–${OFFSETS.at(-1)} has every topology port free (set BENCH_TOPOLOGY_PORT_OFFSET)`);
}

/** The state's pieces by CPU column; the supervisor counts with the APIs (it probes them every second). */
function rootsOf(state: TopologyState): CpuRoots {
  const roots: CpuRoots = { worker: [], temporal: [], postgres: [], apis: [], apisOwnOnly: [state.supervisor.pid] };
  // The server before its UI: peakRss reports temporal[0].
  const order = (name: string) => (name === 'temporal' ? 0 : 1);
  for (const piece of [...state.pieces].sort((a, b) => order(a.name) - order(b.name))) {
    if (!piece.pid || piece.process_of) continue;
    if (piece.name.startsWith('worker-')) roots.worker.push(piece.pid);
    else if (piece.name === 'temporal' || piece.name === 'temporal-ui') roots.temporal.push(piece.pid);
    else if (piece.kind === 'postgres') roots.postgres.push(piece.pid);
    else roots.apis.push(piece.pid);
  }
  return roots;
}

/**
 * The production topology as the `topology` variant: `topologyUp({ temporal: 'server' })` in a new
 * temporary folder on a free port offset, with the bench's environment (the receiver on
 * http://127.0.0.1, the sandbox rate limit) passed to its APIs and workers. Requests go through the
 * proxy's sandbox port; the bench reads events and deliveries through the service database and waits
 * on workflows through the topology's Temporal (the state file's database_url and temporal_address,
 * SECRETS_KEY from its secrets.json). `stop` runs `topologyDown` and removes the folder.
 */
export async function startTopologyInfra(variant: Variant, env: NodeJS.ProcessEnv, log: (m: string) => void): Promise<BenchInfra> {
  const stops: Array<() => Promise<unknown>> = [];
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'payments-bench-topology-'));
  // PostgreSQL runs as `postgres` when the bench runs as root: it must reach its data folders.
  if (process.getuid?.() === 0) fs.chmodSync(root, 0o711);
  const dir = path.join(root, 'topology');
  stops.push(async () => fs.rmSync(root, { recursive: true, force: true }));
  const stop = async () => {
    for (const s of stops.reverse()) await s().catch((e) => console.error('bench: error while stopping:', e));
  };
  try {
    const offset = await portOffset();
    log(`${variant.name}: npm run topology -- up --temporal server (folder ${dir}, TOPOLOGY_PORT_OFFSET=${offset})`);
    // The supervisor takes its environment from this process, and passes WEBHOOK_*, RATE_LIMIT_*, … on.
    const saved = { ...process.env };
    Object.assign(process.env, env);
    stops.push(() => topologyDown(dir));
    let state: TopologyState;
    try {
      ({ state } = await topologyUp({ temporal: 'server', dir, portOffset: offset, onProgress: (line) => log(`${variant.name}: ${line}`) }));
    } finally {
      for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
      Object.assign(process.env, saved);
    }
    const config = loadConfig(env);
    const secretsKey = topologySecrets(dir).secrets_key;
    const payloadCodec = createPayloadCodec(parseKeyring(secretsKey));
    const orm = await openOrm(state.database_url, config.dbPoolMax);
    stops.push(() => orm.close());
    const temporal = await connectTemporal(state.temporal_address, state.temporal_namespace, payloadCodec);
    stops.push(() => temporal.connection.close());
    const server = state.pieces.find((p) => p.name === 'temporal');
    log(`${variant.name}: up: Temporal ${server?.kind} ${server?.version ?? ''} at ${state.temporal_address}, sandbox through the proxy at ${state.public.sandbox}`);

    const payments: PaymentsSide = {
      cpuRoots: () => rootsOf(readTopologyState(dir) ?? state),
      metricsPorts: topologyPorts(offset).workerMetrics,
      apiMetricsPorts: topologyPorts(offset).apis.map((a) => a.metrics),
      temporalMetricsPort: topologyPorts(offset).temporalMetrics,
      namedTrees: () => Object.fromEntries((readTopologyState(dir) ?? state).pieces.filter((p) => p.kind === 'postgres' && p.pid && !p.process_of).map((p) => [p.name, [p.pid!]])),
      failure() {
        const now = readTopologyState(dir);
        if (!now || !isAlive(now.supervisor.pid)) return 'the topology supervisor exited';
        const restarted = now.pieces.filter((p) => p.restarts > 0 && !p.process_of);
        return restarted.length ? `topology piece restarted: ${restarted.map((p) => `${p.name} (${p.restarts}×)`).join(', ')}` : undefined;
      },
      stop: async () => undefined,
    };
    // Only the rate-limit phase builds listeners on these (in the bench process, on the topology's
    // database and Temporal); every other request goes through the proxy to the topology's APIs.
    const deps: ServiceDeps = {
      orm,
      temporal,
      taskQueue: config.taskQueue,
      log: createLogger(config.logLevel, 'api'),
      metrics: createApiMetrics(),
      secretBox: createSecretBox(parseSecretsKey(secretsKey)),
      webhooks: config.webhooks,
      temporalDeadlineMs: config.temporalRequestDeadlineMs,
    };
    const disk = { temporal: [path.join(dir, 'temporal-postgres')], postgres: [path.join(dir, 'service-postgres')] };
    const ports = topologyPorts(offset);
    const postgresAdminUrls = { 'service-postgres': postgresUrl(ports.servicePostgres, 'postgres'), 'temporal-postgres': postgresUrl(ports.temporalPostgres, 'postgres') };
    return { variant, orm, temporal, temporalAddress: state.temporal_address, payloadCodec, taskQueue: config.taskQueue, config, apiUrl: state.public.sandbox, deps, payments, disk, temporalMetricsPort: ports.temporalMetrics, postgresAdminUrls, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
