import { ledgerCheck } from '../services/ledger-check';
import { act, CliExit, type CliCommand } from './command';
import { withDatabase } from './connect';

/** `cli ledger check`. */
export function addLedgerCommands(program: CliCommand): void {
  const ledger = program.command('ledger').description('the double-entry ledger');
  const check = ledger.command('check').description('every transfer sums to zero and every balance equals its postings; otherwise the offending rows and exit 1');
  act(check, async (config, _values, _args, { stdout, stderr }) => {
    const report = await withDatabase(config, (orm) => ledgerCheck(orm));
    if (!report.ok) {
      stdout.write(JSON.stringify(report) + '\n');
      stderr.write('error: the ledger does not balance (rows above)\n');
      throw new CliExit(1);
    }
    return report;
  });
}
