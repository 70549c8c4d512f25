import { runRetentionNow } from '../temporal/retention-schedule';
import { act, type CliCommand } from './command';
import { withTemporal } from './connect';

/** `cli retention run`. */
export function addRetentionCommands(program: CliCommand): void {
  const retention = program.command('retention').description('the retention job: delete rows past their windows (docs/operations.md, Retention)');
  const run = retention
    .command('run')
    .description('a retention run now (as the hourly Schedule starts one), on a running worker; waits for it and prints the rows it deleted by kind, its batches and the windows it used');
  act(run, (config) => withTemporal(config, (temporal) => runRetentionNow(temporal.client, config.taskQueue)));
}
