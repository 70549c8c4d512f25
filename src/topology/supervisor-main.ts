// First: on a Node.js older than 24, one clear line and exit before anything else loads.
import '../support/node-version';
import fs from 'node:fs';
import path from 'node:path';
import { ownShutdownSignals } from '../persistence/embedded-postgres';
import { migrate, openOrm } from '../persistence/orm';
import { ensureDemoMerchant } from '../runtime/demo-merchant';
import { ensurePrivateDir } from '../support/private-dir';
import { setWorkerBuild, TOPOLOGY_DEPLOYMENT } from './builds';
import { faketimeLibrary, SKEWED_WORKER, skewEnv, skewFile } from './clock-skew';
import { apiSpec, fakeAggregatorSpec, fakePartnerSpec, LINK_PIECES, linkSpec, proxySpec, workerSpec, type AppContext } from './app-pieces';
import { topologyPorts } from './ports';
import { ensureDatabases, initialisePostgres, postgresSpec, postgresUrl } from './postgres';
import { topologySecrets } from './secrets';
import { writeTopologyState, type TopologyState } from './state';
import { Supervisor } from './supervisor';
import { devUiSpec, temporalDevSpec } from './temporal-dev';
import { ensureNamespace, makeBuildCurrent } from './temporal-setup';
import { setupTemporalSchema, TEMPORAL_DATABASES, temporalDatabaseUrl, temporalServerInstall, temporalServerSpec } from './temporal-server';
import { temporalUiSpec } from './temporal-ui';

/**
 * The supervisor (started detached by `npm run topology -- up`, src/topology/index.ts): brings the
 * pieces up in order, keeps each running (supervisor.ts), rewrites DIR/topology.json on every
 * change, and on SIGTERM/SIGINT stops them all and removes the state file.
 * Env: TOPOLOGY_DIR, TOPOLOGY_TEMPORAL (server|dev), TOPOLOGY_PORT_OFFSET, TOPOLOGY_BUILD_ID.
 */
async function main(): Promise<void> {
  // embedded-postgres's exit hook would exit this process on SIGTERM before the pieces are stopped.
  ownShutdownSignals();
  const dir = path.resolve(process.env.TOPOLOGY_DIR!);
  const mode = process.env.TOPOLOGY_TEMPORAL === 'dev' ? 'dev' : 'server';
  const ports = topologyPorts(Number(process.env.TOPOLOGY_PORT_OFFSET || 0));
  const namespace = 'default';
  const say = (line: string) => process.stdout.write(`${new Date().toISOString()} ${line}\n`);
  ensurePrivateDir(dir, say);
  const install = mode === 'server' ? temporalServerInstall() : undefined;
  const secrets = topologySecrets(dir);
  const databaseUrl = postgresUrl(ports.servicePostgres, 'payments');
  const temporalAddress = `127.0.0.1:${ports.temporal}`;

  const state: TopologyState = {
    supervisor: { pid: process.pid, started_at: new Date().toISOString() },
    mode,
    dir,
    temporal_address: temporalAddress,
    temporal_namespace: namespace,
    database_url: databaseUrl,
    temporal_database_url: mode === 'server' ? temporalDatabaseUrl(ports) : null,
    public: { sandbox: `http://127.0.0.1:${ports.sandbox}`, live: `http://127.0.0.1:${ports.live}`, web: `http://127.0.0.1:${ports.web}`, temporal_ui: `http://127.0.0.1:${ports.temporalUi}` },
    ready: false,
    pieces: [],
  };
  let stopped = false;
  const write = () => {
    if (stopped) return;
    state.pieces = supervisor.states();
    writeTopologyState(dir, state);
  };
  const supervisor = new Supervisor(path.join(dir, 'logs'), write, say);
  write();

  const stop = async (code: number) => {
    say('stopping every piece');
    await supervisor.stopAll();
    stopped = true;
    if (code === 0) fs.rmSync(path.join(dir, 'topology.json'), { force: true });
    say('stopped');
    process.exit(code);
  };
  let stopping = false;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      void stop(0);
    });
  }

  try {
    const servicePg = { name: 'service-postgres', port: ports.servicePostgres, dataDir: path.join(dir, 'service-postgres') };
    await initialisePostgres(servicePg);
    await supervisor.add(postgresSpec(servicePg));
    await ensureDatabases(servicePg.port, ['payments']);
    const orm = await openOrm(databaseUrl, 1);
    await migrate(orm);
    say('service database migrated');

    if (install) {
      const temporalPg = { name: 'temporal-postgres', port: ports.temporalPostgres, dataDir: path.join(dir, 'temporal-postgres') };
      await initialisePostgres(temporalPg);
      await supervisor.add(postgresSpec(temporalPg));
      await ensureDatabases(temporalPg.port, [...TEMPORAL_DATABASES]);
      await setupTemporalSchema(install.sqlTool, install.schemaDir, temporalPg.port, say);
      await supervisor.add(temporalServerSpec({ server: install.server, dir, ports, namespace }));
      await ensureNamespace(temporalAddress, namespace);
      say('namespace and search attributes registered');
      await supervisor.add(temporalUiSpec({ uiServer: install.uiServer, dir, ports, namespace }));
    } else {
      await supervisor.add(temporalDevSpec({ dir, ports, namespace, cliPath: process.env.TEMPORAL_CLI_PATH || undefined }));
      await supervisor.addShared(devUiSpec(ports));
    }

    const ctx: AppContext = { dir, ports, databaseUrl, temporalAddress, namespace, secrets, deployment: { deploymentName: TOPOLOGY_DEPLOYMENT, buildId: process.env.TOPOLOGY_BUILD_ID || 'topology' } };
    // Every worker on the topology's build at `up` (builds.ts: a rollout changes a worker's file).
    for (const worker of ['worker-1', 'worker-2']) setWorkerBuild(dir, worker, ctx.deployment.buildId);
    // Links a chaos run partitions (TOPOLOGY_LINKS=1, src/topology/link.ts): workers to the service's PostgreSQL, APIs to Temporal.
    if (process.env.TOPOLOGY_LINKS === '1') {
      await supervisor.add(linkSpec(LINK_PIECES.workerPostgres, ports.links.workerPostgres, ports.servicePostgres));
      await supervisor.add(linkSpec(LINK_PIECES.apiTemporal, ports.links.apiTemporal, ports.temporal));
      ctx.links = { workerDatabaseUrl: postgresUrl(ports.links.workerPostgres, 'payments'), apiTemporalAddress: `127.0.0.1:${ports.links.apiTemporal}` };
    }
    // A worker on a clock a chaos fault moves (TOPOLOGY_CLOCK_SKEW=1, src/topology/clock-skew.ts).
    fs.rmSync(skewFile(dir), { force: true });
    if (process.env.TOPOLOGY_CLOCK_SKEW === '1') {
      const lib = faketimeLibrary();
      if (lib) ctx.skew = { worker: SKEWED_WORKER, env: skewEnv(dir, lib) };
      say(lib ? `${SKEWED_WORKER} runs with libfaketime (its clock moves with ${skewFile(dir)})` : `no libfaketime (bash scripts/install-faketime.sh): ${SKEWED_WORKER} runs on the machine's clock, and a chaos run leaves clock_skew out`);
    }
    await supervisor.add(fakePartnerSpec(ctx));
    await supervisor.add(fakeAggregatorSpec(ctx));
    await Promise.all([0, 1].map((i) => supervisor.add(workerSpec(ctx, i))));
    await makeBuildCurrent(temporalAddress, namespace, ctx.deployment);
    say(`build ${ctx.deployment.buildId} of deployment ${ctx.deployment.deploymentName} is current`);
    await Promise.all([0, 1].map((i) => supervisor.add(apiSpec(ctx, i))));
    await supervisor.add(proxySpec(ctx));

    // The demo merchant, as npm start makes it (its sandbox key kept in DIR/demo-merchant.json, 0600).
    await ensureDemoMerchant(orm, dir);
    await orm.close();
    state.ready = true;
    write();
    say('every piece is healthy');
  } catch (error) {
    state.error = (error as Error).message.split('\n')[0];
    write();
    say(`start-up failed: ${(error as Error).stack ?? String(error)}`);
    if (!stopping) {
      stopping = true;
      await stop(1);
    }
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
