import type { PayloadCodec } from '@temporalio/common';
import type { Config } from '../../../src/config';
import type { Orm } from '../../../src/persistence/orm';
import type { ServiceDeps } from '../../../src/services/context';
import type { TemporalHandle } from '../../../src/temporal/connection';
import type { PaymentsSide } from './payments';
import type { Variant } from './variants';

/**
 * What a bench phase runs against, however it was started: in one process (infra.ts
 * `startBenchInfra`) or as the production topology (topology.ts `startTopologyInfra`). Its own file,
 * so the two starters share it without importing each other.
 */
export interface BenchInfra {
  variant: Variant;
  /** The API's ORM; the bench also reads events and deliveries through it. */
  orm: Orm;
  /** The API's Temporal client; the bench also waits on workflow results through it. */
  temporal: TemporalHandle;
  temporalAddress: string;
  /** The payload codec of this variant's SECRETS_KEY, as the API and the payments worker use it (the bare worker needs it too). */
  payloadCodec: PayloadCodec;
  taskQueue: string;
  /** The configuration `npm start` would load from this environment (plus the receiver's host). */
  config: Config;
  /** The sandbox listener, loopback, ephemeral port. */
  apiUrl: string;
  /** What the sandbox listener was built with (the rate-limit phase builds two more on them). */
  deps: ServiceDeps;
  payments: PaymentsSide;
  /** Temporal's Prometheus listener, when it has one the bench knows (the cost mode's dev server; the topology's server). */
  temporalMetricsPort?: number;
  /** Each PostgreSQL server by name, its `postgres` database (the cost mode reads pg_stat_statements there). */
  postgresAdminUrls?: Record<string, string>;
  /** Where each store keeps its data on disk (the in-flight bench's disk figures): Temporal's (SQLite files, or its PostgreSQL) and the service's PostgreSQL. */
  disk?: { temporal: string[]; postgres: string[] };
  stop(): Promise<void>;
}

/** Opt-ins of one mode (the cost mode, scripts/bench/cost/cost.ts); every other mode starts its servers without them. */
export interface BenchInfraOptions {
  /** Extra `postgres` flags for the bench's embedded PostgreSQL (`deployed`, `single`, `tuned`). */
  postgresFlags?: string[];
  /** Give the dev server a Prometheus listener on a free port (`--metrics-port`). */
  temporalMetrics?: boolean;
  /** Added to the environment of the forked worker process (e.g. NODE_OPTIONS=--cpu-prof). */
  workerEnv?: NodeJS.ProcessEnv;
  /** Added to the topology supervisor's environment (e.g. TOPOLOGY_PG_STAT_STATEMENTS=1). */
  topologyEnv?: NodeJS.ProcessEnv;
}
