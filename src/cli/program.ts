import { addAuditCommands } from './audit';
import { addChargeCommands } from './charges';
import { addUsageHints, CliCommand } from './command';
import type { CliContext } from './context';
import { addKeyCommands } from './keys';
import { addLedgerCommands } from './ledger';
import { addMerchantCommands } from './merchants';
import { addPaymentCommands } from './payments';
import { addPayoutCommands } from './payouts';
import { addReconcileCommands } from './reconcile';
import { addRetentionCommands } from './retention';
import { addRoutingCommands } from './routing';
import { addSecretCommands } from './secrets';
import { addSettlementCommands } from './settlements';
import { addUserCommands } from './users';
import { addWebhookCommands } from './webhooks';

/** What the top-level help adds after the list of commands. */
const NOTES = `
Each command prints JSON on stdout and exits 0; an error goes to stderr and exits 1.
npm run cli -- COMMAND --help lists what a command takes (npm run cli -- charges resolve --help).

Operator actions (charges reverse|resolve|retry, payouts approve|reject|reverse, settlements retry,
payments restart|settle-late|review-close) take --reason TEXT and --operator NAME (default
cli:<login>) and write an audit row each, as do key changes (merchants create, keys create, roll,
revoke), portal user access (users disable|enable|revoke-sessions), reconcile resolve,
routing drain|resume (routing status prints a table; --json for JSON) and webhooks recover|skip.
Instead of an id, an operator action takes --query 'a Temporal list query' [--merchant MERCHANT_ID]:
it prints the count and the first 20 (a dry run), and with --yes applies the action to each at
BULK_ACTIONS_PER_SECOND (default 5), under one batch id.
An option a command does not take is refused.`;

/**
 * The operator/admin CLI (`npm run cli -- …`): one commander command per group, declared in its own
 * file under src/cli/, each reading its settings from `context.env` and writing to `context.stdout`
 * and `context.stderr` (commander's help and usage errors too). Errors do not exit here: they throw
 * CommanderError (exitOverride), which runCommandLine (src/cli/run.ts) turns into the exit code.
 * A program is for one run: build another for the next.
 */
export function buildProgram(context: CliContext): CliCommand {
  // Output and exit first: commander hands them to each command as it is declared.
  const program = new CliCommand('cli', context)
    .configureOutput({
      writeOut: (text) => context.stdout.write(text),
      writeErr: (text) => context.stderr.write(text),
      // A terminal's width, else commander's own 80.
      getOutHelpWidth: () => context.stdout.columns?.() ?? 80,
      getErrHelpWidth: () => context.stderr.columns?.() ?? 80,
      // The help has no colours of its own: never the host terminal's settings.
      getOutHasColors: () => false,
      getErrHasColors: () => false,
    })
    .exitOverride()
    .description('The payment engine\'s operator and admin commands: they reach the same database and Temporal as the running service.')
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
  addRoutingCommands(program);
  addWebhookCommands(program);
  addUsageHints(program);
  return program;
}
