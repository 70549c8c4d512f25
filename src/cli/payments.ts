import { SETTLE_LATE_ACTIONS, type SettleLateAction } from '../domain/payment-review';
import { reconcilerSettings } from '../runtime/charge-reconciler';
import { stuckPayments } from '../services/stuck-payments';
import { act, type CliCommand } from './command';
import { withTemporalAndDatabase } from './connect';
import { operatorCommand } from './operator';
import { parseEnv, UsageError } from './shared';

/** `payments settle-late --action`: credit, return or accept. */
function settleLateActionOf(raw: string | undefined): SettleLateAction {
  if (!raw || !(SETTLE_LATE_ACTIONS as readonly string[]).includes(raw)) throw new UsageError(`--action must be one of: ${SETTLE_LATE_ACTIONS.join(', ')}`);
  return raw as SettleLateAction;
}

/** `cli payments stuck|restart|settle-late|review-close`: payments of any kind. */
export function addPaymentCommands(program: CliCommand): void {
  const payments = program.command('payments').description('payments of any kind: the stuck ones, and operator actions (each audited)');
  const stuck = payments
    .command('stuck')
    .description('payments that need attention or whose workflow does not answer')
    .option('--env <ENV>', 'test or live')
    .option('--query <QUERY>', 'a Temporal list query that narrows the list');
  act(stuck, (config, values) => {
    const environment = values.env === undefined ? undefined : parseEnv(values.env);
    const query = values.query?.trim() || undefined;
    return withTemporalAndDatabase(config, (temporal, orm) =>
      stuckPayments({ orm, client: temporal.client, namespace: config.temporalNamespace, uiBaseUrl: config.temporalUiUrl, environment, query, graceMs: reconcilerSettings().graceMs, requestDeadlineMs: config.temporalRequestDeadlineMs }),
    );
  });
  operatorCommand(payments, 'restart', 'PO_ID|RE_ID|DP_ID', 'a new run for an open payout, refund or dispute whose workflow is closed (it finishes the record)');
  operatorCommand(
    payments,
    'settle-late',
    'PAYMENT_ID',
    'late money: credit the merchant or return it to the payer for a charge; accept a payout or settlement as paid',
    {
      options: (command) =>
        command
          .option('--action <ACTION>', `one of ${SETTLE_LATE_ACTIONS.join(', ')}`)
          .option('--evidence <PARTNER_TXN_ID|STATEMENT_LINE>', "the partner's evidence"),
      input: (values, input) => {
        input.settleLate = settleLateActionOf(values.action);
        if (values.evidence !== undefined) input.evidence = values.evidence;
      },
    },
  );
  operatorCommand(
    payments,
    'review-close',
    'PAYMENT_ID',
    "close a payment review whose contradiction was looked at (the partner said FAILED for a payment we recorded as paid, or another amount)",
  );
}
