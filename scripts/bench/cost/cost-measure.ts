import os from 'node:os';
import { performance } from 'node:perf_hooks';
import type { BenchInfra } from '../shared/bench-infra';
import { counterDeltas, readCounters, type CounterDeltas } from './cost-counters';
import type { SqlReading, StatStatements } from './cost-sql';
import { cpuTarget } from '../shared/payments';
import { cpuDelta, cpuSnapshot, type CpuSnapshot } from '../shared/procs';

/** What one cost phase used, over the whole phase (the report divides by the items it completed). */
export interface CostMeasurement {
  /** CPU seconds by process group (procs.ts), and the machine's busy seconds. */
  cpu: CpuSnapshot;
  counters: CounterDeltas;
  sql: SqlReading[];
  wallMs: number;
  /** The 1-minute load average at the phase's end. */
  load1: number;
}

/** Where the counts are read: Temporal's listener, the SDK listeners, the PostgreSQL servers. */
export interface CostProbes {
  infra: BenchInfra;
  sdkPorts: number[];
  sql: StatStatements;
}

/**
 * How long to let Temporal's counters settle before each reading: the server's metrics (tally) are
 * published to /metrics on an interval (about a second), so a reading right after a phase lacks its
 * last second's counts, which then land in the next phase.
 */
const COUNTERS_SETTLE_MS = 2000;
const settle = () => new Promise((resolve) => setTimeout(resolve, COUNTERS_SETTLE_MS));

/**
 * Runs `run` between two readings of everything: pg_stat_statements reset before and read after,
 * the Prometheus counters, and the CPU of every process group (read last before and first after,
 * so that the scrapes' own CPU stays mostly outside). The counters are read after COUNTERS_SETTLE_MS
 * of quiet on both sides, so they count what the CPU counts and little of the background beside it.
 */
export async function measureCost<T>(probes: CostProbes, run: () => Promise<T>): Promise<{ value: T; cost: CostMeasurement }> {
  const { infra } = probes;
  await settle();
  const countersBefore = await readCounters(infra.temporalMetricsPort, probes.sdkPorts);
  await probes.sql.reset();
  const before = cpuSnapshot(cpuTarget(infra.payments));
  const t0 = performance.now();
  const value = await run();
  const wallMs = performance.now() - t0;
  const cpu = cpuDelta(before, cpuSnapshot(cpuTarget(infra.payments)));
  await settle();
  const countersAfter = await readCounters(infra.temporalMetricsPort, probes.sdkPorts);
  const sql = await probes.sql.read();
  return { value, cost: { cpu, counters: counterDeltas(countersBefore, countersAfter), sql, wallMs, load1: os.loadavg()[0] } };
}
