import { describeLedgerProblems, ledgerCheck } from '../../src/services/ledger-check';
import type { Harness } from './harness';

/**
 * The end of an integration test file that moves money (afterAll): `ledger check` over the whole
 * database while the harness still runs, then the harness closed; fails the file if the ledger does
 * not add up. Nothing to do when the harness never started.
 */
export async function closeWithLedgerCheck(h: Harness | undefined): Promise<void> {
  if (!h) return;
  const report = await ledgerCheck(h.orm);
  await h.close();
  if (!report.ok) throw new Error(describeLedgerProblems(report));
}
