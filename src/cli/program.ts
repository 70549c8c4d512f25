import { addAuditCommands } from './audit';
import { addChargeCommands } from './charges';
import { addUsageHints, CliCommand } from './command';
import { addKeyCommands } from './keys';
import { addLedgerCommands } from './ledger';
import { addMerchantCommands } from './merchants';
import { addPaymentCommands } from './payments';
import { addPayoutCommands } from './payouts';
import { addReconcileCommands } from './reconcile';
import { addRetentionCommands } from './retention';
import { addSecretCommands } from './secrets';
import { addSettlementCommands } from './settlements';
import { addUserCommands } from './users';

/** What the top-level help adds after the list of commands. */
const NOTES = `
Each command prints JSON on stdout and exits 0; an error goes to stderr and exits 1.
npm run cli -- COMMAND --help lists what a command takes (npm run cli -- charges resolve --help).

Operator actions (charges reverse|resolve|retry, payouts approve|reject|reverse, settlements retry,
payments restart|settle-late|review-close) take --reason TEXT and --operator NAME (default
cli:<login>) and write an audit row each, as do key changes (merchants create, keys create, roll,
revoke), portal user access (users disable|enable|revoke-sessions) and reconcile resolve.
Instead of an id, an operator action takes --query 'a Temporal list query' [--merchant MERCHANT_ID]:
it prints the count and the first 20 (a dry run), and with --yes applies the action to each at
BULK_ACTIONS_PER_SECOND (default 5), under one batch id.
An option a command does not take is refused.`;

/**
 * The operator/admin CLI (`npm run cli -- …`): one commander command per group, declared in its own
 * file under src/cli/. Errors do not exit here: they throw CommanderError (exitOverride), which
 * src/cli.ts turns into the exit code.
 */
export function buildProgram(): CliCommand {
  const program = new CliCommand('cli')
    .description('The payment engine\'s operator and admin commands: they reach the same database and Temporal as the running service.')
    .exitOverride()
    .showSuggestionAfterError(true);
  program.addHelpText('after', NOTES);
  addMerchantCommands(program);
  addUserCommands(program);
  addKeyCommands(program);
  addChargeCommands(program);
  addPayoutCommands(program);
  addPaymentCommands(program);
  addSettlementCommands(program);
  addSecretCommands(program);
  addLedgerCommands(program);
  addAuditCommands(program);
  addReconcileCommands(program);
  addRetentionCommands(program);
  addUsageHints(program);
  return program;
}
