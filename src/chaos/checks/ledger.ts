import { cliOutcome } from '../cli-runner';
import { result, type CheckContext, type CheckResult } from './check';

/** `npm run cli -- ledger check`: every transfer sums to zero and every balance equals its postings. */
export async function checkLedger(ctx: CheckContext): Promise<CheckResult> {
  const out = await cliOutcome(ctx.dir, ['ledger', 'check']);
  let report: Record<string, unknown> = {};
  try {
    report = JSON.parse(out.stdout) as Record<string, unknown>;
  } catch {
    /* no JSON: the exit code and stderr say why */
  }
  const checked = Number(report.transfers_checked ?? report.transfers ?? 0) || 0;
  if (out.code === 0 && report.ok === true) return result('ledger check balances', checked, [], [`ledger check: ${JSON.stringify(report).slice(0, 300)}`]);
  return result('ledger check balances', checked, [`ledger check exited ${out.code}: ${out.stdout.trim().slice(0, 800)} ${out.stderr.trim().slice(0, 400)}`]);
}
