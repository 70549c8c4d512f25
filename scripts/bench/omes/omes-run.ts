/**
 * `npm run bench -- --only omes [--variants deployed,topology] [--iterations 1000] [--concurrency 20] [--rate R]`
 *
 * Issue 34's baseline: on fresh servers per variant (startBenchInfra, as the other phases), Temporal's
 * load generator omes (scripts/bench/omes/omes.ts: `workflow_with_single_noop_activity`, its TypeScript
 * worker) beside the bench's own bare one-activity baseline (scripts/bench/shared/baseline.ts, `start-activity`)
 * at the same iterations and concurrency, then omes again as an open loop at a fixed offered rate
 * (`--rate`, default half of omes's closed-loop rate just measured). Markdown on stdout (through the
 * launcher), progress on stderr. Needs `bash scripts/install-omes.sh` first; fails otherwise.
 */
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { createBareWorker, runBaselinePhase } from '../shared/baseline';
import { startBenchInfra } from '../shared/infra';
import { omesInstall, runOmesBaseline, type OmesBaselineResult } from './omes';
import { parseVariants, type Variant } from '../shared/variants';

const { values: args } = parseArgs({
  options: {
    only: { type: 'string' },
    variants: { type: 'string' },
    iterations: { type: 'string' },
    concurrency: { type: 'string' },
    rate: { type: 'string' },
  },
  allowPositionals: true,
});

function count(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  const v = Number(raw);
  if (!Number.isFinite(v) || v <= 0) throw new Error(`--${name} must be a positive number, got "${raw}"`);
  return v;
}

const ITERATIONS = Math.round(count('iterations', args.iterations, 1000));
const CONCURRENCY = Math.round(count('concurrency', args.concurrency, 20));
const RATE = args.rate === undefined ? undefined : count('rate', args.rate, 1);
const VARIANTS = parseVariants(args.variants ?? 'deployed');
const log = (m: string) => console.error(`bench omes: ${m}`);
const load = () => `load average ${os.loadavg().map((l) => l.toFixed(2)).join(', ')}`;
const f1 = (n: number) => n.toFixed(1);

interface Row {
  name: string;
  done: number;
  failed: number;
  wallS: number;
  perS: number;
  note: string;
}

const omesRow = (name: string, r: OmesBaselineResult, note: string): Row => ({ name, done: r.iterations, failed: r.failed + r.errors.length, wallS: r.wallS, perS: r.workflowsPerSecond, note });

async function runVariant(v: Variant): Promise<string[]> {
  const infra = await startBenchInfra(v, log);
  const rows: Row[] = [];
  const commands: string[] = [];
  try {
    const bare = await createBareWorker(infra);
    await bare.run();
    try {
      log(`${v.name}: bare start-activity, ${ITERATIONS} at ${CONCURRENCY} in flight`);
      const phase = await runBaselinePhase(infra, bare, 'start-activity', ITERATIONS, CONCURRENCY, 0);
      const wallS = phase.completeWallMs / 1000;
      rows.push({ name: phase.name, done: phase.completed, failed: phase.create.errors.length + phase.completeErrors.length, wallS, perS: phase.completed / wallS, note: `closed loop, ${CONCURRENCY} in flight` });
    } finally {
      await bare.stop();
    }
    const closed = await runOmesBaseline({ temporalAddress: infra.temporalAddress, namespace: infra.config.temporalNamespace, iterations: ITERATIONS, maxConcurrent: CONCURRENCY, log });
    rows.push(omesRow(`omes: ${closed.scenario}`, closed, `closed loop, ${CONCURRENCY} in flight`));
    commands.push(...closed.commands);
    const rate = RATE ?? Math.max(1, Math.round(closed.workflowsPerSecond / 2));
    // Open loop: starts at a fixed rate, the in-flight bound far above what that rate needs.
    const open = await runOmesBaseline({ temporalAddress: infra.temporalAddress, namespace: infra.config.temporalNamespace, iterations: ITERATIONS, maxConcurrent: 1000, ratePerSecond: rate, log });
    rows.push(omesRow(`omes: ${open.scenario}`, open, `open loop, offered ${rate}/s`));
    commands.push(open.commands[1]);
  } finally {
    await infra.stop();
  }
  return [
    `### ${v.title}`,
    '',
    '| baseline | completed | failed | wall s | workflows/s | load |',
    '|:--|--:|--:|--:|--:|:--|',
    ...rows.map((r) => `| ${r.name} | ${r.done} | ${r.failed} | ${f1(r.wallS)} | ${f1(r.perS)} | ${r.note} |`),
    '',
    'omes commands:',
    '',
    ...commands.map((c) => `    ${c}`),
    '',
  ];
}

async function main(): Promise<void> {
  const installed = omesInstall().stamp;
  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    // not a checkout
  }
  const out = [
    '## omes baseline (`npm run bench -- --only omes`)',
    '',
    `Commit ${commit}; ${installed}; ${os.cpus().length} cores; ${load()} at the start. ${ITERATIONS} iterations per row; wall time from the first start to the last completion.`,
    '',
  ];
  for (const v of VARIANTS) out.push(...(await runVariant(v)));
  out.push(`${load()} at the end.`);
  const report = out.join('\n');
  if (process.send) process.send({ report }, () => process.exit(0));
  else {
    console.log(report);
    process.exit(0);
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
