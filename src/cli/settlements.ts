import type { SettlementRunInput } from '../domain/settlement-run';
import { listSettlementSkips } from '../persistence/settlements/settlement-skips';
import { runSettlements } from '../services/settlement-run';
import { act, type CliCommand } from './command';
import { withDatabase, withTemporalAndDatabase } from './connect';
import { operatorCommand } from './operator';
import { merchantIdOption, parseEnv, parseLimit, REASON_HELP, REQUIRED_OPERATOR_HELP, requiredActor, UsageError, type Values } from './shared';

/** `settlements run` options. `--outcome failed` is a sandbox control: it limits the run to the sandbox, and is refused with --env live. */
function settlementRunInput(values: Values): SettlementRunInput {
  const input: SettlementRunInput = {};
  if (values.merchant !== undefined) input.merchantId = merchantIdOption(values.merchant);
  // Required (issue 43): without it a run by hand paid live balances too.
  if (values.env === undefined) throw new UsageError('--env is required: test or live (a run by hand settles one environment)');
  input.environment = parseEnv(values.env);
  if (values.outcome !== undefined) {
    if (values.outcome !== 'failed') throw new UsageError('--outcome must be failed');
    if (input.environment === 'live') throw new UsageError('--outcome is a sandbox control: not with --env live');
    input.environment = 'sandbox';
    input.outcome = 'failed';
  }
  return input;
}

/** `cli settlements run|skipped|retry`. */
export function addSettlementCommands(program: CliCommand): void {
  const settlements = program.command('settlements').description('settlement runs: start one, why balances were skipped, retry a failed one');
  const run = settlements
    .command('run')
    .description('a settlement run now (as the Schedule starts one); waits for it and prints what it started and skipped')
    .option('--merchant <MERCHANT_ID>', "only this merchant's balances")
    .option('--env <ENV>', 'test or live (required)')
    .option('--outcome <OUTCOME>', 'failed: a sandbox control (the partner fails the batch); not with --env live')
    .option('--reason <TEXT>', REASON_HELP)
    .option('--operator <NAME>', REQUIRED_OPERATOR_HELP);
  act(run, (config, values) => {
    const actor = requiredActor(values);
    const input = settlementRunInput(values);
    return withTemporalAndDatabase(config, (temporal, orm) => runSettlements({ orm, client: temporal.client, taskQueue: config.taskQueue }, input, actor));
  });
  const skipped = settlements
    .command('skipped')
    .description('why balances were not settled: the latest skip per merchant, environment and currency')
    .option('--merchant <MERCHANT_ID>', "only this merchant's skips")
    .option('--env <ENV>', 'test or live')
    .option('--limit <N>', 'at most N rows (1 to 10000, default 100)');
  act(skipped, (config, values) => {
    const filter = { ...(values.merchant ? { merchantId: values.merchant } : {}), ...(values.env === undefined ? {} : { environment: parseEnv(values.env) }), limit: parseLimit(values.limit) };
    return withDatabase(config, (orm) => listSettlementSkips(orm, filter));
  });
  operatorCommand(settlements, 'retry', 'STL_ID', 'retry a failed settlement');
}
