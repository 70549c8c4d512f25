import type { OperatorInput } from './operator-actions';
import { FAILURE_CLASSES, isFailureClass } from '../domain/failure-classes';
import type { CliCommand } from './command';
import { operatorCommand } from './operator';
import { UsageError, type Values } from './shared';

/** `charges resolve --as succeeded|failed [--failure-class CLASS] [--evidence …]`. */
function resolutionOf(values: Values): NonNullable<OperatorInput['resolution']> {
  const as = values.as;
  if (as !== 'succeeded' && as !== 'failed') throw new UsageError('--as must be succeeded or failed');
  const request: NonNullable<OperatorInput['resolution']> = { as };
  const failureClass = values.failureClass;
  if (failureClass !== undefined) {
    if (as !== 'failed') throw new UsageError('--failure-class goes with --as failed');
    if (!isFailureClass(failureClass)) throw new UsageError(`--failure-class must be one of: ${FAILURE_CLASSES.join(', ')}`);
    request.failure_class = failureClass;
  }
  if (values.evidence !== undefined) request.evidence = values.evidence;
  return request;
}

/** `cli charges reverse|resolve|retry`: operator actions on a charge (src/cli/operator-actions.ts). */
export function addChargeCommands(program: CliCommand): void {
  const charges = program.command('charges').description('operator actions on a charge (each audited)');
  operatorCommand(charges, 'reverse', 'TXN_ID', 'reverse a succeeded charge: the money goes back to the payer');
  operatorCommand(charges, 'resolve', 'TXN_ID', 'settle a charge whose outcome the partner left unknown (--evidence is required for a live charge)', {
    options: (command) =>
      command
        .option('--as <OUTCOME>', 'succeeded or failed')
        .option('--failure-class <CLASS>', `with --as failed: one of ${FAILURE_CLASSES.join(', ')}`)
        .option('--evidence <PARTNER_TXN_ID|STATEMENT_LINE>', "the partner's evidence (required for a live charge)"),
    input: (values, input) => {
      input.resolution = resolutionOf(values);
    },
  });
  operatorCommand(charges, 'retry', 'TXN_ID', 'retry the step a charge that needs attention stopped at');
}
