import { checkApiAnswers } from './checks/api-answers';
import type { CheckContext, CheckResult } from './checks/check';
import { checkDeliveries } from './checks/deliveries';
import { checkEvents } from './checks/events';
import { checkLedger } from './checks/ledger';
import { checkHistory, type HistoryCounts } from './checks/history';
import { checkMoneyOnce } from './checks/money-once';
import { checkPayments } from './checks/payments';
import { ChaosDb } from './db';
import { drain } from './drain';
import { runFaults, type InjectedFault } from './faults';
import { LoadGenerator } from './load';
import type { ChaosOptions } from './options';
import { readPartnerLines, type PartnerLines } from './partner-records';
import { Prober } from './prober';
import { Rng } from './random';
import { ChaosReceiver } from './receiver';
import { longestRecovery, reportLines, type ChaosSummary } from './report';
import { RequestLog } from './request-log';
import { planFaults, type FaultKind } from './schedule';
import { setUpMerchants } from './setup';
import { ensureTopology, stopTopology } from './topology-control';
import { rollable } from '../topology/builds';
import { skewable } from '../topology/clock-skew';
import { TopologyView } from './topology-view';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface ChaosOutcome {
  summary: ChaosSummary;
  lines: string[];
  faults: InjectedFault[];
  checks: CheckResult[];
}

/**
 * One chaos run (issue 32, "Faults"): the topology up, merchants and webhook endpoints set up, the
 * seeded load and the prober running while the seeded faults are injected in turn, each waited out
 * until everything recovered; then the load stops, the sandbox drains, and the checks run.
 */
export async function runChaos(options: ChaosOptions & { dir: string }, say: (line: string) => void): Promise<ChaosOutcome> {
  const root = new Rng(options.seed);
  const topology = new TopologyView(options.dir);
  const ensured = await ensureTopology(options.dir, options.temporal, options.up, say);
  const receiver = new ChaosReceiver(root.fork('receiver'), 4_000);
  const log = new RequestLog();
  let db: ChaosDb | undefined;
  try {
    const state = topology.state();
    // Temporal's PostgreSQL only on the real server; partitions only on a topology with its links (TOPOLOGY_LINKS=1, set by --up).
    // Clock skew only on a topology whose worker runs with libfaketime (TOPOLOGY_CLOCK_SKEW=1 and scripts/install-faketime.sh);
    // a rollover only on one whose workers read their builds from files (src/topology/builds.ts).
    const notApplicable: FaultKind[] = [...(state.mode === 'dev' ? (['kill_temporal_postgres'] as const) : []), ...(topology.hasPiece('link-worker-postgres') ? [] : (['partition'] as const)), ...(skewable(options.dir) ? [] : (['clock_skew'] as const)), ...(rollable(options.dir) ? [] : (['build_rollover'] as const))];
    const plan = planFaults(root.fork('faults'), { short: options.short, durationS: options.durationS, notApplicable });
    await receiver.start();
    const ports = topology.ports();
    say(`seed ${options.seed}; topology ${options.dir} (Temporal ${state.mode}); receiver ${receiver.url}; ${plan.length} faults planned`);
    const merchants = await setUpMerchants({ dir: options.dir, log, receiver, ports }, root.fork('setup'), options.seed);
    say(`merchants ${merchants.map((m) => m.id).join(', ')}`);
    db = new ChaosDb(state.database_url);

    const started = Date.now();
    const prober = new Prober(log, ports, merchants[0]!);
    prober.start();
    const load = new LoadGenerator({ dir: options.dir, log, ports, merchants, say }, root.fork('load'), {
      ratePerS: options.short ? 3 : 2,
      settlementEveryS: options.short ? 30 : 90,
      maxInFlight: 24,
    });
    const loading = load.run();
    const until = options.short ? Infinity : started + options.durationS * 1000;
    const faults = await runFaults({ topology, log, receiver, recoveryLimitS: options.short ? 150 : 300, say }, plan, until);
    // A full run keeps its load to the end of its duration; a short run stops a few seconds after the last recovery.
    const rest = options.short ? Math.max(5_000, started + options.durationS * 1000 - Date.now()) : until - Date.now();
    if (rest > 0) await sleep(Math.min(rest, options.short ? 30_000 : rest));
    load.stop();
    await loading;
    say(`load stopped after ${Math.round((Date.now() - started) / 1000)} s; draining`);
    const drained = await drain(db, merchants, receiver, options.short ? 120 : 300, say);
    await prober.stop();

    const readPartner = (): Promise<PartnerLines> => readPartnerLines(topology, started);
    const ctx: CheckContext = { db, dir: options.dir, merchants, receiver, log, faults, readPartner };
    const checks: CheckResult[] = [];
    for (const check of [checkLedger, checkPayments, checkEvents, checkDeliveries, checkMoneyOnce]) {
      try {
        checks.push(await check(ctx));
      } catch (e) {
        checks.push({ name: check.name, checked: 0, violationCount: 1, violations: [`the check could not run: ${(e as Error).message}`], notes: [] });
      }
    }
    checks.push(checkApiAnswers(ctx));
    // The history check: every acknowledged create against the database (checks/history.ts).
    let history: HistoryCounts | null = null;
    try {
      const checked = await checkHistory({ ...ctx, history: load.history });
      history = checked.counts;
      checks.push(checked);
    } catch (e) {
      checks.push({ name: checkHistory.name, checked: 0, violationCount: 1, violations: [`the check could not run: ${(e as Error).message}`], notes: [] });
    }
    const missingKinds = options.short ? plan.filter((p) => !faults.some((f) => f.kind === p.kind)).map((p) => p.kind) : [];
    if (missingKinds.length) checks.push({ name: 'every fault kind injected', checked: plan.length, violationCount: missingKinds.length, violations: missingKinds.map((k) => `${k} was not injected`), notes: [] });
    const payments = checks.find((c) => c.name.startsWith('every payment'));
    const summary: ChaosSummary = {
      seed: options.seed,
      faults: faults.length,
      requests: log.count(),
      payments_checked: payments?.checked ?? 0,
      violations: checks.reduce((n, c) => n + c.violationCount, 0),
      longest_recovery_s: longestRecovery(faults),
      mode: options.short ? 'short' : 'full',
      temporal: state.mode,
      duration_s: Math.round((Date.now() - started) / 1000),
      not_applicable: notApplicable,
      // null when the history check could not run (its failure is a violation above).
      acknowledged_lost: history?.acknowledged_lost ?? null,
      duplicates_by_key: history?.duplicates_by_key ?? null,
      amount_mismatches: history?.amount_mismatches ?? null,
    };
    return { summary, lines: reportLines({ summary, faults, log, load, checks, drain: drained }), faults, checks };
  } finally {
    await receiver.close();
    await db?.close();
    if (ensured.started && !options.keep) await stopTopology(options.dir, say);
  }
}
