import { ledgerCheck } from '../../services/ledger-check';
import type { Invariant } from '../types';

/**
 * `ledger check` (src/services/ledger-check.ts) over the run's database, resource-level checks
 * included: every transfer balances within one scope, every balance row equals its postings, every
 * finished charge, payout and refund has the transfers its status implies, `reserved` equals what is
 * open against it, `available` equals the postings no settlement swept, late money matches its rows.
 * One line per offending row (describeLedgerProblems shows the first five of each kind only).
 */
export const ledgerBalanced: Invariant = {
  name: 'ledger check (resource-level checks included)',
  async check(ctx) {
    const report = await ledgerCheck(ctx.orm);
    if (report.ok) return [];
    const line = (kind: string) => (row: unknown) => `${kind}: ${JSON.stringify(row)}`;
    return [
      ...report.unbalanced_transfers.map(line('unbalanced transfer')),
      ...report.drifted_balances.map(line('drifted balance')),
      ...report.unfinished_resources.map(line('unfinished resource')),
      ...report.reserved_mismatches.map(line('reserved mismatch')),
      ...report.unswept_mismatches.map(line('unswept mismatch')),
      ...report.late_money_mismatches.map(line('late money mismatch')),
    ];
  },
};
