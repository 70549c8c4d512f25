import fs from 'node:fs';
import type { Client } from '@temporalio/client';
import type { Config } from '../config';
import { isIdOf } from '../domain/ids';
import { isRailProduct } from '../rail/momo-protocol';
import type { RailProduct } from '../rail/partner-rail';
import { loadPartnerConfig } from '../rail/partner-config';
import { isStatementDate, parseStatementFile, type PartnerStatement } from '../rail/momo-statement';
import { flagPaymentReview } from '../services/payment-review';
import { newId } from '../support/new-id';
import { BREAK_KINDS, isBreakKind, type ImportSummary } from '../domain/break-kinds';
import { importStatementsNow } from '../temporal/statement-import-start';
import { addSummaries, importAndFlag } from '../reconcile/import-statement';
import { StatementClient } from '../reconcile/statement-client';
import { dayReport, listBreaks, type BreakFilter } from '../persistence/reconcile/break-store';
import { resolveBreakAndReview } from '../reconcile/resolve-break';
import { act, type CliCommand } from './command';
import type { CliContext } from './context';
import { withClientAndDatabase, withDatabase } from './connect';
import { OPERATOR_HELP, operatorName, parseLimit, REASON_HELP, requiredReason, sinceOption, UsageError, type Values } from './shared';

/** `cli reconcile …`: reconciliation against the partner's statement (docs/operations.md, "Reconciliation"). */

function dateOption(raw: string | undefined): string {
  if (raw === undefined) return new Date().toISOString().slice(0, 10);
  if (!isStatementDate(raw)) throw new UsageError('--date must be a day YYYY-MM-DD');
  return raw;
}

function productsOption(raw: string | undefined): RailProduct[] {
  if (raw === undefined) return ['collection', 'disbursement'];
  if (!isRailProduct(raw)) throw new UsageError('--product must be collection or disbursement');
  return [raw];
}

function breakFilter(values: Values): BreakFilter {
  const filter: BreakFilter = { limit: parseLimit(values.limit) };
  if (values.kind !== undefined) {
    if (!isBreakKind(values.kind)) throw new UsageError(`--kind must be one of: ${BREAK_KINDS.join(', ')}`);
    filter.kind = values.kind;
  }
  if (values.status !== undefined) {
    if (values.status !== 'open' && values.status !== 'resolved') throw new UsageError('--status must be open or resolved');
    filter.status = values.status;
  }
  if (values.since !== undefined) filter.since = sinceOption(values.since);
  return filter;
}

const flagWith = (config: Config, client: Client) => (start: Parameters<typeof flagPaymentReview>[1]) => flagPaymentReview(client, start, config.taskQueue);

/** `reconcile run`: the partner's statements of a day, fetched here (PARTNER_* set in the run's environment) or by the worker. */
async function reconcileRun(config: Config, values: Values, _args: unknown, { env }: CliContext): Promise<unknown> {
  const date = dateOption(values.date);
  const products = productsOption(values.product);
  const partner = loadPartnerConfig(env);
  const summarize = (summaries: ImportSummary[]) => (summaries.length === 1 ? summaries[0] : addSummaries(date, summaries));
  if (!partner) {
    // No PARTNER_* here: the worker fetches and imports with its own (npm start's fake partner included).
    return withClientAndDatabase(config, async (client) => summarize((await importStatementsNow(client, config.taskQueue, { date, products })).imports));
  }
  const statements = new StatementClient(partner);
  try {
    const fetched: PartnerStatement[] = [];
    for (const product of products) fetched.push(await statements.fetch(product, date));
    return await withClientAndDatabase(config, async (client, orm) => {
      const summaries = [];
      for (const statement of fetched) summaries.push(await importAndFlag({ orm, flag: flagWith(config, client) }, statement, `partner:${partner.baseUrl}`));
      return summarize(summaries);
    });
  } finally {
    await statements.close();
  }
}

/** `cli reconcile run|import|breaks|resolve|report`. */
export function addReconcileCommands(program: CliCommand): void {
  const reconcile = program.command('reconcile').description("reconciliation against the partner's statement");
  const run = reconcile
    .command('run')
    .description("fetches the partner's statement of that UTC day and imports it; without PARTNER_* settings here, the worker does it with its own")
    .option('--date <YYYY-MM-DD>', 'the day (default today)')
    .option('--product <PRODUCT>', 'collection or disbursement (default both, summed)');
  act(run, reconcileRun);
  const importFile = reconcile
    .command('import')
    .description('a statement file the partner sent, CSV or JSON')
    .requiredArgument('FILE', 'the statement file', 'reconcile import needs a statement FILE (CSV or JSON)')
    .option('--product <PRODUCT>', 'for a CSV file without rows: collection or disbursement')
    .option('--date <YYYY-MM-DD>', 'for a CSV file without rows: its day');
  act(importFile, async (config, values, [file]) => {
    const fallback = { product: values.product === undefined ? undefined : productsOption(values.product)[0], date: values.date === undefined ? undefined : dateOption(values.date) };
    const statement = parseStatementFile(await fs.promises.readFile(file!, 'utf8'), fallback);
    return withClientAndDatabase(config, (client, orm) => importAndFlag({ orm, flag: flagWith(config, client) }, statement, `file:${file}`));
  });
  const breaks = reconcile
    .command('breaks')
    .description('reconciliation breaks, newest first')
    .option('--since <7d|ISO-TIME>', 'breaks since a duration back from now (30m, 24h, 7d) or an ISO time')
    .option('--kind <KIND>', `one of ${BREAK_KINDS.join(', ')}`)
    .option('--status <STATUS>', 'open or resolved')
    .option('--limit <N>', 'at most N rows (1 to 10000, default 100)');
  act(breaks, (config, values) => {
    const filter = breakFilter(values);
    return withDatabase(config, (orm) => listBreaks(orm, filter));
  });
  const resolve = reconcile
    .command('resolve')
    .description('resolves a break (audited: reconciliation_break.resolve)')
    .requiredArgument('BRK_ID', 'the break', 'reconcile resolve needs a break id (brk_…)')
    .option('--reason <TEXT>', REASON_HELP)
    .option('--operator <NAME>', OPERATOR_HELP);
  act(resolve, (config, values, [id]) => {
    if (!id || !isIdOf('reconciliationBreak', id)) throw new UsageError('reconcile resolve needs a break id (brk_…)');
    const reason = requiredReason(values);
    const actor = { operator: operatorName(values), reason, requestId: newId('request') };
    return withClientAndDatabase(config, (client, orm) => resolveBreakAndReview(orm, client, id, actor));
  });
  const report = reconcile.command('report').description("the day's statements, lines, matched lines and breaks").option('--date <YYYY-MM-DD>', 'the day (default today)');
  act(report, (config, values) => {
    const date = dateOption(values.date);
    return withDatabase(config, (orm) => dayReport(orm, date));
  });
}
