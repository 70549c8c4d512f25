import fs from 'node:fs';
import type { DefectName } from '../../src/simulation/defects';
import { runSession } from '../../src/simulation/session';
import type { Plan } from '../../src/simulation/types';

/**
 * One simulation session in a process of its own (test/support/session-in-child.ts starts it): the job
 * in SIM_SESSION_JOB (JSON: plan, defect, name, out), its RunResult written as JSON to `out`, and a
 * line on stderr per step checked.
 */
interface Job {
  plan: Plan;
  defect?: DefectName;
  name: string;
  out: string;
}

async function main(): Promise<void> {
  const job = JSON.parse(process.env.SIM_SESSION_JOB ?? '') as Job;
  const run = await runSession(job.plan, {
    ...(job.defect ? { defect: job.defect } : {}),
    onChecked: (o: { n: number; kind: string }, t: { stepMs: number; settleMs: number }) =>
      process.stderr.write(`${job.name}: step ${o.n} ${o.kind} (step ${Math.round(t.stepMs)} ms, settle ${Math.round(t.settleMs)} ms)\n`),
    onSlow: (line: string) => process.stderr.write(`${job.name}: slow: ${line}\n`),
  });
  fs.writeFileSync(job.out, JSON.stringify(run));
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
