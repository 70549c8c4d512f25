import type { CliCommand } from './command';
import { operatorCommand } from './operator';

/** `cli payouts approve|reject|reverse`: operator actions on a payout (src/cli/operator-actions.ts). */
export function addPayoutCommands(program: CliCommand): void {
  const payouts = program.command('payouts').description('operator actions on a payout (each audited)');
  operatorCommand(payouts, 'approve', 'PO_ID', 'approve a payout held for review');
  operatorCommand(payouts, 'reject', 'PO_ID', 'reject a payout held for review: the money goes back to the balance');
  operatorCommand(payouts, 'reverse', 'PO_ID', 'reverse a paid payout');
}
