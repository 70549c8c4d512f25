import { OPERATOR_COMMANDS, runOperatorCommand, type OperatorInput } from '../cli-operator-actions';
import { act, flag, type CliCommand } from './command';
import { withTemporalAndDatabase } from './connect';
import { OPERATOR_HELP, operatorName, REASON_HELP, requiredReason, UsageError, type Values } from './shared';

/** What each operator action's help adds: the bulk form. */
export const BULK_HELP = `
By id, or in bulk: instead of an id, --query 'a Temporal list query' [--merchant MERCHANT_ID] prints
the count and the first 20 (a dry run), and with --yes applies the action to each at
BULK_ACTIONS_PER_SECOND (default 5), under one batch id. Each action writes an audit row.`;

/** What one operator action adds to the common options: its own options, and their part of the input. */
export interface OperatorExtras {
  options?: (command: CliCommand) => void;
  input?: (values: Values, input: OperatorInput) => void;
}

/**
 * An operator action of src/cli-operator-actions.ts (`charges resolve`, `payouts approve`, …): on an
 * id, or on what --query selects; --reason required, --operator defaulting to `cli:<login>`.
 */
export function operatorCommand(group: CliCommand, verb: string, idName: string, description: string, extras: OperatorExtras = {}): CliCommand {
  const noun = group.name();
  const name = `${noun} ${verb}`;
  if (!(name in OPERATOR_COMMANDS)) throw new Error(`${name} is not an operator command of src/cli-operator-actions.ts`);
  const command = group
    .command(verb)
    .description(description)
    .argument(`[${idName}]`, 'the payment (or --query)')
    .option('--reason <TEXT>', REASON_HELP)
    .option('--operator <NAME>', OPERATOR_HELP)
    .option('--query <QUERY>', 'instead of an id: every payment this Temporal list query selects (a dry run without --yes)')
    .option('--merchant <MERCHANT_ID>', 'with --query: only this merchant\'s payments')
    .option('--yes', 'with --query: apply the action (without it: a dry run)');
  extras.options?.(command);
  command.addHelpText('after', BULK_HELP);
  return act(command, (config, values, [id]) => {
    // By id, or in bulk with --query (a dry run without --yes).
    const query = values.query;
    const yes = flag(values, 'yes');
    if (query !== undefined && id) throw new UsageError('give an id or --query, not both');
    if (query === undefined && !id) throw new UsageError(`${noun.replace(/s$/, '')} id is required (or --query 'a Temporal list query')`);
    if (query === undefined && (values.merchant !== undefined || yes)) throw new UsageError('--merchant and --yes go with --query');
    const input: OperatorInput = { operator: operatorName(values), reason: requiredReason(values) };
    extras.input?.(values, input);
    const target = { id, query, merchantId: values.merchant, yes };
    return withTemporalAndDatabase(config, (temporal, orm) => runOperatorCommand(name, { orm, temporal, config }, target, input));
  });
}
