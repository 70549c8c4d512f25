import { AUDITED_ACTIONS, isAuditedAction } from '../domain/operator-action';
import { listOperatorAudit, type AuditFilter } from '../persistence/operators/operator-audit-store';
import { act, type CliCommand } from './command';
import { withDatabase } from './connect';
import { merchantIdOption, parseLimit, sinceOption, UsageError, type Values } from './shared';

/** `audit list` filters; --since takes a duration back from now (`7d`, `24h`) or an ISO time. */
function auditFilter(values: Values): AuditFilter {
  const filter: AuditFilter = { limit: parseLimit(values.limit) };
  if (values.payment !== undefined) filter.paymentId = values.payment;
  if (values.action !== undefined) {
    if (!isAuditedAction(values.action)) throw new UsageError(`--action must be one of: ${AUDITED_ACTIONS.join(', ')}`);
    filter.action = values.action;
  }
  if (values.batch !== undefined) filter.batchId = values.batch;
  if (values.merchant !== undefined) filter.merchantId = merchantIdOption(values.merchant);
  if (values.since !== undefined) filter.since = sinceOption(values.since);
  return filter;
}

/** `cli audit list`: the operator audit log. */
export function addAuditCommands(program: CliCommand): void {
  const audit = program.command('audit').description('the operator audit log (every operator action and key change)');
  const list = audit
    .command('list')
    .description('audit rows, newest first')
    .option('--payment <ID>', "only this payment's rows")
    .option('--merchant <MERCHANT_ID>', "only this merchant's rows")
    .option('--since <7d|ISO-TIME>', 'rows since a duration back from now (30m, 24h, 7d) or an ISO time')
    .option('--action <ACTION>', 'only this action (such as api_key.create)')
    .option('--batch <BATCH_ID>', 'only the rows of one bulk run')
    .option('--limit <N>', 'at most N rows (1 to 10000, default 100)');
  act(list, (config, values) => {
    // The filter is checked before the database is reached.
    const filter = auditFilter(values);
    return withDatabase(config, (orm) => listOperatorAudit(orm, filter));
  });
}
