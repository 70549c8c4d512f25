import fs from 'node:fs';
import type { Client } from '@temporalio/client';
import type { Config } from '../config';
import { isIdOf } from '../domain/ids';
import { reasonProblem } from '../domain/operator-action';
import { isRailProduct } from '../rail/momo-protocol';
import type { RailProduct } from '../rail/partner-rail';
import { isPartnerName, PARTNERS, type PartnerName } from '../domain/rail-routes';
import { isStatementDate, parseStatementFile } from '../rail/momo-statement';
import { flagPaymentReview } from '../services/payment-review';
import { newId } from '../support/new-id';
import { BREAK_KINDS, isBreakKind, type ImportSummary } from '../domain/break-kinds';
import { importStatementsNow } from '../temporal/statement-import-start';
import { addSummaries, importAndFlag, importDayAndRefetch, yesterdayUtc } from '../reconcile/import-statement';
import { configuredPartners, statementClientFor, type PartnerStatementClient } from '../reconcile/statement-source';
import { dayReport, listBreaks, type BreakFilter } from '../persistence/reconcile/break-store';
import { releaseReview, resolveBreakAndReview } from '../reconcile/resolve-break';
import { act, flag, type CliCommand } from './command';
import type { CliContext } from './context';
import { withClientAndDatabase, withDatabase } from './connect';
import { OPERATOR_HELP, operatorName, parseLimit, REASON_HELP, requiredReason, sinceOption, UsageError, type Values } from './shared';

/** `cli reconcile …`: reconciliation against each partner's statements (docs/operations.md, "Reconciliation"). */

function dateOption(raw: string | undefined): string {
  if (raw === undefined) return new Date().toISOString().slice(0, 10);
  if (!isStatementDate(raw)) throw new UsageError('--date must be a day YYYY-MM-DD');
  return raw;
}

/**
 * `reconcile run`'s day (issue 43): default yesterday (UTC), the last day that is over. Today's
 * statement is incomplete: only with --partial (which never locks the day; the full import after it
 * replaces it). A day to come is refused.
 */
export function runDateOption(values: Values, now: Date = new Date()): string {
  const today = now.toISOString().slice(0, 10);
  const partial = flag(values, 'partial');
  const date = values.date === undefined ? (partial ? today : yesterdayUtc(now)) : dateOption(values.date);
  if (date > today) throw new UsageError(`--date ${date} is a day to come (today is ${today} UTC)`);
  if (date === today && !partial) throw new UsageError(`--date ${date} is today (UTC): its statement is not complete; add --partial to import it so far (it does not lock the day), or reconcile yesterday (the default)`);
  if (date < today && partial) throw new UsageError(`--partial is for today's statement (${today}); the statement of ${date} is complete: run without --partial`);
  return date;
}

function productsOption(raw: string | undefined): RailProduct[] {
  if (raw === undefined) return ['collection', 'disbursement'];
  if (!isRailProduct(raw)) throw new UsageError('--product must be collection or disbursement');
  return [raw];
}

function partnerOption(raw: string | undefined): PartnerName | undefined {
  if (raw === undefined) return undefined;
  if (!isPartnerName(raw)) throw new UsageError(`--partner must be one of: ${PARTNERS.join(', ')}`);
  return raw;
}

function breakFilter(values: Values): BreakFilter {
  const filter: BreakFilter = { limit: parseLimit(values.limit) };
  const partner = partnerOption(values.partner);
  if (partner) filter.partner = partner;
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

/**
 * `reconcile run`: the partners' statements of a day (issue 45: `--partner momo|aggregator`, default
 * every partner configured here: PARTNER_* → momo, AGGREGATOR_* → aggregator), each fetched here with
 * its settings. With none configured here, the worker fetches and imports with its own (a `--partner`
 * it lacks fails; without `--partner`, every partner the worker has). One statement answers its own
 * summary (naming its partner and product); more are added up (`partners`, `products`).
 */
async function reconcileRun(config: Config, values: Values, _args: unknown, { env }: CliContext): Promise<unknown> {
  const date = runDateOption(values);
  const products = productsOption(values.product);
  const asked = partnerOption(values.partner);
  const summarize = (summaries: ImportSummary[]) => (summaries.length === 1 ? summaries[0] : addSummaries(date, summaries));
  const here = configuredPartners(env);
  if (here.length === 0) {
    // No partner settings here: the worker fetches and imports with its own (npm start's fakes included).
    const input = asked ? { date, products, partners: [asked] } : { date, products, partners: [...PARTNERS], configuredOnly: true };
    return withClientAndDatabase(config, async (client) => summarize((await importStatementsNow(client, config.taskQueue, input)).imports));
  }
  const partners = asked ? [asked] : here;
  const clients: PartnerStatementClient[] = [];
  try {
    for (const partner of partners) {
      const client = statementClientFor(env, partner);
      if (!client) throw new UsageError(`--partner ${partner}: it is not configured here (${partner === 'momo' ? 'PARTNER_*' : 'AGGREGATOR_*'}); configured: ${here.join(', ')}`);
      clients.push(client);
    }
    return await withClientAndDatabase(config, async (client, orm) => {
      const summaries = [];
      const deps = { orm, flag: flagWith(config, client), release: (paymentId: string, reason: string) => releaseReview(client, paymentId, reason) };
      // Each partner's day, product by product, then earlier days of it still unfinished (partial, or with PENDING lines) fetched again.
      for (const statements of clients) {
        for (const product of products) {
          summaries.push(await importDayAndRefetch(deps, (p, d) => statements.fetch(p, d), { product, date, partner: statements.partner }, statements.source));
        }
      }
      return summarize(summaries);
    });
  } finally {
    for (const statements of clients) await statements.close();
  }
}

/** `cli reconcile run|import|breaks|resolve|report`. */
export function addReconcileCommands(program: CliCommand): void {
  const reconcile = program.command('reconcile').description("reconciliation against the partner's statement");
  const run = reconcile
    .command('run')
    .description(
      "fetches each partner's statement of that UTC day and imports it, then fetches again earlier days still unfinished (partial, or with PENDING lines); without partner settings here (PARTNER_*, AGGREGATOR_*), the worker does it with its own",
    )
    .option('--date <YYYY-MM-DD>', 'the day (default yesterday, UTC; today only with --partial)')
    .option('--partial', "today's statement so far: it does not lock the day (the next import of the day fetches it again)")
    .option('--product <PRODUCT>', 'collection or disbursement (default both, summed)')
    .option('--partner <PARTNER>', `${PARTNERS.join(' or ')} (default every partner configured: PARTNER_* momo, AGGREGATOR_* aggregator; summed)`);
  act(run, reconcileRun);
  const importFile = reconcile
    .command('import')
    .description('a statement file the partner sent, CSV or JSON')
    .requiredArgument('FILE', 'the statement file', 'reconcile import needs a statement FILE (CSV or JSON)')
    .option('--product <PRODUCT>', 'for a CSV file without rows: collection or disbursement')
    .option('--date <YYYY-MM-DD>', 'for a CSV file without rows: its day')
    .option('--partner <PARTNER>', `whose statement: ${PARTNERS.join(' or ')} (default momo)`);
  act(importFile, async (config, values, [file]) => {
    const fallback = { product: values.product === undefined ? undefined : productsOption(values.product)[0], date: values.date === undefined ? undefined : dateOption(values.date) };
    const partner = partnerOption(values.partner) ?? 'momo';
    const statement = parseStatementFile(await fs.promises.readFile(file!, 'utf8'), fallback);
    return withClientAndDatabase(config, (client, orm) => importAndFlag({ orm, flag: flagWith(config, client) }, statement, `file:${file}`, partner));
  });
  const breaks = reconcile
    .command('breaks')
    .description('reconciliation breaks, newest first')
    .option('--since <7d|ISO-TIME>', 'breaks since a duration back from now (30m, 24h, 7d) or an ISO time')
    .option('--kind <KIND>', `one of ${BREAK_KINDS.join(', ')}`)
    .option('--status <STATUS>', 'open or resolved')
    .option('--partner <PARTNER>', `the breaks of one partner's statements: ${PARTNERS.join(' or ')}`)
    .option('--limit <N>', 'at most N rows (1 to 10000, default 100)');
  act(breaks, (config, values) => {
    const filter = breakFilter(values);
    return withDatabase(config, (orm) => listBreaks(orm, filter));
  });
  const resolve = reconcile
    .command('resolve')
    .description('resolves a break the engine can verify, recording what was checked (audited: reconciliation_break.resolve); refuses pending_at_partner, an unverifiable missing_there or status_mismatch, and a mismatch whose late money is unsettled')
    .requiredArgument('BRK_ID', 'the break', 'reconcile resolve needs a break id (brk_…)')
    .option('--checked <TEXT>', "what you checked with the partner (its transaction id, statement line, ticket; required, kept on the break and in the audit log)")
    .option('--reason <TEXT>', REASON_HELP)
    .option('--operator <NAME>', OPERATOR_HELP);
  act(resolve, (config, values, [id]) => {
    if (!id || !isIdOf('reconciliationBreak', id)) throw new UsageError('reconcile resolve needs a break id (brk_…)');
    const reason = requiredReason(values);
    const checked = values.checked?.trim();
    if (!checked) throw new UsageError("--checked is required: what you checked with the partner (its transaction id, statement line, ticket)");
    const problem = reasonProblem(checked, '--checked');
    if (problem) throw new UsageError(problem);
    const actor = { operator: operatorName(values), reason, requestId: newId('request') };
    return withClientAndDatabase(config, (client, orm) => resolveBreakAndReview(orm, client, id, actor, checked));
  });
  const report = reconcile.command('report').description("the day's statements, lines, matched lines and breaks").option('--date <YYYY-MM-DD>', 'the day (default today)');
  act(report, (config, values) => {
    const date = dateOption(values.date);
    return withDatabase(config, (orm) => dayReport(orm, date));
  });
}
