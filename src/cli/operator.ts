import { OPERATOR_COMMANDS, runOperatorCommand, type OperatorInput } from './operator-actions';
import { act, flag, type CliCommand } from './command';
import { withTemporalAndDatabase } from './connect';
import { OPERATOR_HELP, operatorName, REASON_HELP, requiredReason, UsageError, type Values } from './shared';

/** What each operator action's help adds: the bulk form (docs/operations.md, "In bulk"). */
export const BULK_HELP = `
By id, or in bulk, on exactly the set a dry run showed:
  1. --query 'a Temporal list query' [--merchant MERCHANT_ID] [--save-ids PATH]: a dry run; nothing
     changes. Prints the count by environment and merchant, the first 20 and a token (opsel_…) that
     names exactly those payments, this command and its options; it lasts one hour and serves once.
  2. --yes --token opsel_… with the same options: acts on those payments only, each re-checked first
     (one that no longer matches the query is refused and reported), at BULK_ACTIONS_PER_SECOND
     (default 5), under one batch id. With --ids-file PATH too (the dry run's --save-ids, shortened
     by hand): only the ids of the file, each of them in the token's set (any other refuses the run).
  Live money (charges resolve|reverse, payouts approve|reject|reverse, settlements retry, payments
  settle-late|restart) needs --expect N, N the live payments of the set (the dry run's "live").
  --yes with only --query is refused. Each action writes an audit row.`;

/** Options that only a bulk selection takes (camelCase, as commander names them). */
const BULK_ONLY = ['merchant', 'token', 'idsFile', 'saveIds', 'expect'] as const;

/** `--expect N`: a whole number. */
function expectOption(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^(0|[1-9][0-9]{0,5})$/.test(raw)) throw new UsageError('--expect must be a whole number (the live payments in the set)');
  return Number(raw);
}

/** What one operator action adds to the common options: its own options, and their part of the input. */
export interface OperatorExtras {
  options?: (command: CliCommand) => void;
  input?: (values: Values, input: OperatorInput) => void;
}

/**
 * An operator action of src/cli/operator-actions.ts (`charges resolve`, `payouts approve`, …): on an
 * id, or on what --query selects; --reason required, --operator defaulting to `cli:<login>`.
 */
export function operatorCommand(group: CliCommand, verb: string, idName: string, description: string, extras: OperatorExtras = {}): CliCommand {
  const noun = group.name();
  const name = `${noun} ${verb}`;
  if (!(name in OPERATOR_COMMANDS)) throw new Error(`${name} is not an operator command of src/cli/operator-actions.ts`);
  const command = group
    .command(verb)
    .description(description)
    .argument(`[${idName}]`, 'the payment (or --query)')
    .option('--reason <TEXT>', REASON_HELP)
    .option('--operator <NAME>', OPERATOR_HELP)
    .option('--query <QUERY>', 'instead of an id: every payment this Temporal list query selects (a dry run without --yes)')
    .option('--merchant <MERCHANT_ID>', 'with --query: only this merchant\'s payments')
    .option('--yes', 'apply the action to a dry run\'s set: with its --token (without --yes: a dry run)')
    .option('--token <TOKEN>', 'with --yes: the token a dry run printed (opsel_…): act on exactly its payments')
    .option('--ids-file <PATH>', 'with --yes --token: act only on the ids of this file (one a line), each in the token\'s set')
    .option('--save-ids <PATH>', 'dry run: also write the ids to this new file (never overwritten)')
    .option('--expect <N>', 'with --yes: the number of live payments in the set (required when the action moves live money)');
  extras.options?.(command);
  command.addHelpText('after', BULK_HELP);
  return act(command, (config, values, [id], { env }) => {
    // By id, or in bulk: a dry run of --query, then --yes with its token (or an ids file).
    const query = values.query;
    const yes = flag(values, 'yes');
    const bulk = query !== undefined || yes || BULK_ONLY.some((option) => values[option] !== undefined);
    if (bulk && id) throw new UsageError('give an id or a bulk selection (--query, --yes --token …), not both');
    if (!bulk && !id) throw new UsageError(`${noun.replace(/s$/, '')} id is required (or --query 'a Temporal list query' for a dry run)`);
    const expect = expectOption(values.expect);
    const input: OperatorInput = { operator: operatorName(values), reason: requiredReason(values) };
    extras.input?.(values, input);
    const target = { id, query, merchantId: values.merchant, yes, token: values.token, idsFile: values.idsFile, saveIds: values.saveIds, expect };
    return withTemporalAndDatabase(config, (temporal, orm) => runOperatorCommand(name, { orm, temporal, config, env }, target, input));
  });
}
