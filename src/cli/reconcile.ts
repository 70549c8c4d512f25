import fs from 'node:fs';
import { parseArgs } from 'node:util';
import type { Client } from '@temporalio/client';
import type { Config } from '../config';
import type { Orm } from '../persistence/orm';
import { isIdOf } from '../domain/ids';
import { MAX_OPERATOR_LENGTH, MAX_REASON_LENGTH } from '../domain/operator-action';
import { isRailProduct } from '../rail/momo-protocol';
import type { RailProduct } from '../rail/partner-rail';
import { loadPartnerConfig } from '../rail/partner-config';
import { isStatementDate, parseStatementFile, type PartnerStatement } from '../rail/momo-statement';
import { flagPaymentReview } from '../services/payment-review';
import { cliSender } from '../services/operator-errors';
import { newId } from '../support/new-id';
import { BREAK_KINDS, isBreakKind, type ImportSummary } from '../domain/break-kinds';
import { importStatementsNow } from '../temporal/statement-import-start';
import { addSummaries, importAndFlag } from '../reconcile/import-statement';
import { StatementClient } from '../reconcile/statement-client';
import { dayReport, listBreaks, type BreakFilter } from '../persistence/reconcile/break-store';
import { resolveBreakAndReview } from '../reconcile/resolve-break';
import { refusedOption } from './command-options';

/** `cli reconcile …` (docs/operations.md, "Reconciliation"); its lines of the CLI's usage. */
export const RECONCILE_USAGE = `  cli reconcile run [--date YYYY-MM-DD] [--product collection|disbursement]   (fetches the partner's statement of that UTC day, default today, and imports it; without --product both, summed; without PARTNER_* settings here, the worker does it with its own)
  cli reconcile import FILE [--product P --date D]   (a statement file, CSV or JSON; --product and --date only for a CSV file without rows)
  cli reconcile breaks [--since 7d|ISO-TIME] [--kind ${BREAK_KINDS.join('|')}] [--status open|resolved] [--limit N]
  cli reconcile resolve BRK_ID --reason TEXT [--operator NAME]   (audited: reconciliation_break.resolve)
  cli reconcile report [--date YYYY-MM-DD]`;

export class ReconcileUsageError extends Error {}

/** What the CLI hands over: its database and Temporal helpers, bound to its configuration. */
export interface ReconcileCliDeps {
  config: Config;
  withDatabase<T>(work: (orm: Orm) => Promise<T>): Promise<T>;
  withTemporalAndDatabase<T>(work: (client: Client, orm: Orm) => Promise<T>): Promise<T>;
  parseSince(raw: string): Date | null;
}

type Values = Record<string, string | undefined>;

function today(): string {
  return new Date().toISOString().slice(0, 10);
}

function dateOption(raw: string | undefined): string {
  if (raw === undefined) return today();
  if (!isStatementDate(raw)) throw new ReconcileUsageError('--date must be a day YYYY-MM-DD');
  return raw;
}

function productsOption(raw: string | undefined): RailProduct[] {
  if (raw === undefined) return ['collection', 'disbursement'];
  if (!isRailProduct(raw)) throw new ReconcileUsageError('--product must be collection or disbursement');
  return [raw];
}

function breakFilter(values: Values, parseSince: ReconcileCliDeps['parseSince']): BreakFilter {
  const raw = values.limit;
  if (raw !== undefined && (!/^[1-9][0-9]{0,4}$/.test(raw) || Number(raw) > 10_000)) throw new ReconcileUsageError('--limit must be an integer from 1 to 10000');
  const filter: BreakFilter = { limit: raw === undefined ? 100 : Number(raw) };
  if (values.kind !== undefined) {
    if (!isBreakKind(values.kind)) throw new ReconcileUsageError(`--kind must be one of: ${BREAK_KINDS.join(', ')}`);
    filter.kind = values.kind;
  }
  if (values.status !== undefined) {
    if (values.status !== 'open' && values.status !== 'resolved') throw new ReconcileUsageError('--status must be open or resolved');
    filter.status = values.status;
  }
  if (values.since !== undefined) {
    const since = parseSince(values.since);
    if (!since) throw new ReconcileUsageError('--since must be a duration back from now (30m, 24h, 7d) or an ISO time');
    filter.since = since;
  }
  return filter;
}

function actorOf(values: Values): { operator: string; reason: string; requestId: string } {
  const reason = values.reason?.trim();
  if (!reason) throw new ReconcileUsageError('--reason is required (it goes to the audit log)');
  if (reason.length > MAX_REASON_LENGTH) throw new ReconcileUsageError(`--reason is longer than ${MAX_REASON_LENGTH} characters`);
  const operator = values.operator === undefined ? cliSender() : values.operator.trim();
  if (!operator || operator.length > MAX_OPERATOR_LENGTH) throw new ReconcileUsageError(`--operator must be 1 to ${MAX_OPERATOR_LENGTH} characters`);
  return { operator, reason, requestId: newId('request') };
}

/** `cli reconcile VERB …`: what it prints (as JSON). */
export async function runReconcile(argv: string[], deps: ReconcileCliDeps): Promise<unknown> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { date: { type: 'string' }, product: { type: 'string' }, since: { type: 'string' }, kind: { type: 'string' }, status: { type: 'string' }, limit: { type: 'string' }, reason: { type: 'string' }, operator: { type: 'string' } },
  });
  const [verb, arg] = positionals;
  const refused = refusedOption(`reconcile ${verb ?? ''}`, Object.keys(values));
  if (refused) throw new ReconcileUsageError(refused);
  const flagWith = (client: Client) => (start: Parameters<typeof flagPaymentReview>[1]) => flagPaymentReview(client, start, deps.config.taskQueue);
  switch (verb) {
    case 'run': {
      const date = dateOption(values.date);
      const products = productsOption(values.product);
      const partner = loadPartnerConfig(process.env);
      const summarize = (summaries: ImportSummary[]) => (summaries.length === 1 ? summaries[0] : addSummaries(date, summaries));
      if (!partner) {
        // No PARTNER_* here: the worker fetches and imports with its own (npm start's fake partner included).
        return deps.withTemporalAndDatabase(async (temporal) => summarize((await importStatementsNow(temporal, deps.config.taskQueue, { date, products })).imports));
      }
      const client = new StatementClient(partner);
      try {
        const statements: PartnerStatement[] = [];
        for (const product of products) statements.push(await client.fetch(product, date));
        return await deps.withTemporalAndDatabase(async (temporal, orm) => {
          const summaries = [];
          for (const statement of statements) summaries.push(await importAndFlag({ orm, flag: flagWith(temporal) }, statement, `partner:${partner.baseUrl}`));
          return summarize(summaries);
        });
      } finally {
        await client.close();
      }
    }
    case 'import': {
      if (!arg) throw new ReconcileUsageError('reconcile import needs a statement FILE (CSV or JSON)');
      const fallback = { product: values.product === undefined ? undefined : productsOption(values.product)[0], date: values.date === undefined ? undefined : dateOption(values.date) };
      const statement = parseStatementFile(await fs.promises.readFile(arg, 'utf8'), fallback);
      return deps.withTemporalAndDatabase((temporal, orm) => importAndFlag({ orm, flag: flagWith(temporal) }, statement, `file:${arg}`));
    }
    case 'breaks': {
      const filter = breakFilter(values, deps.parseSince);
      return deps.withDatabase((orm) => listBreaks(orm, filter));
    }
    case 'resolve': {
      if (!arg || !isIdOf('reconciliationBreak', arg)) throw new ReconcileUsageError('reconcile resolve needs a break id (brk_…)');
      const actor = actorOf(values);
      return deps.withTemporalAndDatabase((temporal, orm) => resolveBreakAndReview(orm, temporal, arg, actor));
    }
    case 'report': {
      const date = dateOption(values.date);
      return deps.withDatabase((orm) => dayReport(orm, date));
    }
    default:
      throw new ReconcileUsageError(`unknown command "reconcile ${verb ?? ''}"`.trim());
  }
}
