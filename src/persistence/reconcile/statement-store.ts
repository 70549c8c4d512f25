import { recordPartnerTransactionId } from '../partner/rail-request-store';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Orm } from '../orm';
import type { PartnerStatement } from '../../rail/momo-statement';
import { newId } from '../../support/new-id';
import { matchStatement } from '../../reconcile/match';
import { zeroBreakCounts, type BreakKind, type ImportSummary } from '../../domain/break-kinds';
import { ourPaymentsFor } from './our-payments';
import type { PartnerName } from '../../domain/rail-routes';

/**
 * Imports a statement in one transaction: the statement row (unique per partner, product and day;
 * `options.partner`, default `momo`: issue 45, each partner's statement is its own), its
 * lines, the breaks matching found (src/reconcile/match.ts), the partner's transaction ids on
 * the matched payments' rail references (the first one seen is kept), and each matched line's
 * SUCCESSFUL or FAILED as a `statement` answer in rail_answers (the status gate's partner word).
 *
 * A day is locked once its statement is final (issue 43): imported after the day ended, with no line
 * PENDING. A final statement imported again changes nothing: its stored counts are answered, with
 * `already_imported: true`. A statement of a day not over yet (`partial`: its date is today or later,
 * UTC, by `now`) or one with PENDING lines is fetched again by the next import of its day, and
 * refreshed: its lines replaced, matched again, new breaks recorded, and its open breaks no longer
 * found closed (resolved by `reconciliation`, saying what the partner lists now).
 *
 * Our side is that partner's payments only (src/persistence/reconcile/our-payments.ts): a payment of
 * the other partner is neither matched nor missing here.
 */
export async function importStatement(orm: Orm, statement: PartnerStatement, source: string, options: { partner?: PartnerName; now?: Date } = {}): Promise<ImportSummary> {
  const partner = options.partner ?? 'momo';
  const now = options.now ?? new Date();
  const partial = statement.date >= now.toISOString().slice(0, 10);
  const pendingLines = statement.lines.filter((l) => l.status === 'PENDING').length;
  return orm.em.fork().transactional(async (em) => {
    const made = await em.execute<Array<{ id: string }>>(
      `insert into partner_statements (id, partner, product, statement_date, environment, source, line_count, matched, partial, pending_lines)
       values (?, ?, ?, ?::date, 'live', ?, ?, 0, ?, ?) on conflict (partner, product, statement_date) do nothing returning id`,
      [newId('partnerStatement'), partner, statement.product, statement.date, source.slice(0, 300), statement.lines.length, partial, pendingLines],
    );
    let id: string;
    let refetched = false;
    if (made.length > 0) id = made[0].id;
    else {
      const [stored] = await em.execute<Array<{ id: string; partial: boolean; pending_lines: number }>>(
        `select id, partial, pending_lines from partner_statements where partner = ? and product = ? and statement_date = ?::date for update`,
        [partner, statement.product, statement.date],
      );
      if (!stored.partial && stored.pending_lines === 0) return storedSummary(em, partner, statement.product, statement.date);
      id = stored.id;
      refetched = true;
      await em.execute(`delete from partner_statement_lines where statement_id = ?`, [id]);
    }

    const ours = await ourPaymentsFor(em, statement.product, statement.date, statement.lines.map((l) => l.referenceId), partner);
    const result = matchStatement(statement, ours);
    // Every line in one statement (a statement may hold many thousands).
    const rows = result.lines.map(({ lineNo, line, paymentId, amountMinor }) => ({
      line_no: lineNo,
      reference_id: line.referenceId,
      financial_transaction_id: line.financialTransactionId,
      external_id: line.externalId || null,
      amount: line.amount,
      amount_minor: amountMinor,
      currency: line.currency,
      status: line.status,
      reason: line.reason,
      party: line.party || null,
      partner_time: line.time,
      completed_at: line.completedAt,
      payment_id: paymentId,
    }));
    await em.execute(
      `insert into partner_statement_lines (statement_id, line_no, reference_id, financial_transaction_id, external_id, amount, amount_minor, currency, status, reason, party, partner_time, completed_at, payment_id)
       select ?, line_no, reference_id, financial_transaction_id, external_id, amount, amount_minor, currency, status, reason, party, partner_time, completed_at, payment_id
       from jsonb_to_recordset(?::jsonb) as l(line_no int, reference_id text, financial_transaction_id text, external_id text, amount text, amount_minor bigint, currency text,
         status text, reason text, party text, partner_time text, completed_at text, payment_id text)`,
      [id, JSON.stringify(rows)],
    );
    // The partner's final word on each of our payments it lists (issue 43): rail_answers rows the
    // status gate reads. A line counts for a payment only under the payment's own reference (a late
    // return's line, matched to its charge, is not the charge's answer).
    await em.execute(
      `insert into rail_answers (payment_id, product, reference_id, source, outcome, partner_status, amount, currency, partner_transaction_id, reason)
       select l.payment_id, r.product, r.reference_id, 'statement', case l.status when 'SUCCESSFUL' then 'succeeded' else 'failed' end, l.status, l.amount_minor, l.currency,
         l.financial_transaction_id, l.reason
       from partner_statement_lines l join rail_references r on r.payment_id = l.payment_id and r.reference_id::text = l.reference_id and r.product = ?
       where l.statement_id = ? and l.status in ('SUCCESSFUL', 'FAILED')
       on conflict (payment_id, reference_id, outcome, source, (coalesce(amount, -1)), (coalesce(currency, ''))) do nothing`,
      [statement.product, id],
    );
    for (const b of result.breaks) {
      await em.execute(
        `insert into reconciliation_breaks (id, statement_id, partner, product, statement_date, environment, kind, reference_id, payment_id, merchant_id, amount, currency,
           partner_amount, partner_currency, partner_status, our_status, reason)
         values (?, ?, ?, ?, ?::date, 'live', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict (statement_id, kind, reference_id) do nothing`,
        [newId('reconciliationBreak'), id, partner, statement.product, statement.date, b.kind, b.referenceId, b.paymentId, b.merchantId, b.amount, b.currency, b.partnerAmount, b.partnerCurrency, b.partnerStatus, b.ourStatus, b.reason.slice(0, 1000)],
      );
    }
    for (const { paymentId, financialTransactionId } of result.transactionIds) {
      await recordPartnerTransactionId(em, paymentId, financialTransactionId);
    }
    const closed = refetched ? await closeBreaksNoLongerFound(em, id, result.breaks, statement.lines) : 0;
    await em.execute(
      `update partner_statements set matched = ?, line_count = ?, partial = ?, pending_lines = ?, source = ?,
         fetch_count = fetch_count + (case when ? then 1 else 0 end), fetched_at = clock_timestamp() where id = ?`,
      [result.matched, statement.lines.length, partial, pendingLines, source.slice(0, 300), refetched, id],
    );
    const breaks = zeroBreakCounts();
    for (const b of result.breaks) breaks[b.kind]++;
    return {
      date: statement.date,
      partner,
      product: statement.product,
      lines: statement.lines.length,
      matched: result.matched,
      breaks,
      already_imported: false,
      partial,
      pending_lines: pendingLines,
      ...(refetched ? { refetched: true, closed_breaks: closed } : {}),
    };
  });
}

/**
 * A refetched statement's open breaks that matching no longer finds are closed, by `reconciliation`,
 * saying what the partner lists now (a PENDING line now final and agreeing, an omitted line now
 * listed, an amount now agreeing). A break an operator resolved stays as it was.
 */
async function closeBreaksNoLongerFound(em: EntityManager, statementId: string, found: ReadonlyArray<{ kind: BreakKind; referenceId: string }>, lines: PartnerStatement['lines']): Promise<number> {
  const open = await em.execute<Array<{ id: string; kind: BreakKind; reference_id: string }>>(`select id, kind, reference_id from reconciliation_breaks where statement_id = ? and status = 'open' for update`, [statementId]);
  const still = new Set(found.map((b) => `${b.kind}:${b.referenceId.trim().toLowerCase()}`));
  let closed = 0;
  for (const b of open) {
    if (still.has(`${b.kind}:${b.reference_id.trim().toLowerCase()}`)) continue;
    const line = lines.find((l) => l.referenceId.trim().toLowerCase() === b.reference_id.trim().toLowerCase());
    const now = line ? `${line.status} ${line.amount} ${line.currency}` : 'no line for it';
    await em.execute(
      `update reconciliation_breaks set status = 'resolved', resolved_by = 'reconciliation', resolved_at = clock_timestamp(),
         resolved_reason = ? where id = ? and status = 'open'`,
      [`the statement fetched again no longer shows it (the partner lists ${now})`.slice(0, 500), b.id],
    );
    closed++;
  }
  return closed;
}

/**
 * Payments whose breaks on the statement of `partner`, `product` and `date` a refetch closed, that
 * were flagged for review and have no open break left: their reviews are told the reconciliation's
 * reasons are closed (src/reconcile/import-statement.ts).
 */
export async function paymentsReleasedBy(orm: Orm, partner: PartnerName, product: string, date: string): Promise<string[]> {
  const rows = await orm.em.fork().execute<Array<{ payment_id: string }>>(
    `select distinct b.payment_id from reconciliation_breaks b join partner_statements s on s.id = b.statement_id
     where s.partner = ? and s.product = ? and s.statement_date = ?::date and b.resolved_by = 'reconciliation' and b.flagged_at is not null and b.payment_id is not null
       and not exists (select 1 from reconciliation_breaks o where o.payment_id = b.payment_id and o.status = 'open')`,
    [partner, product, date],
  );
  return rows.map((r) => r.payment_id);
}

/** Statements fetched again (issue 43): days of a partner's `product` before `today` whose statement is partial or still has PENDING lines, oldest first. */
export async function unfinishedDays(orm: Orm, partner: PartnerName, product: string, before: string, limit = 31): Promise<string[]> {
  const rows = await orm.em.fork().execute<Array<{ day: string }>>(
    `select to_char(statement_date, 'YYYY-MM-DD') as day from partner_statements
     where partner = ? and product = ? and (partial or pending_lines > 0) and statement_date < ?::date order by statement_date limit ?`,
    [partner, product, before, limit],
  );
  return rows.map((r) => r.day);
}

async function storedSummary(em: EntityManager, partner: PartnerName, product: string, date: string): Promise<ImportSummary> {
  const [row] = await em.execute<Array<{ id: string; line_count: number; matched: number }>>(
    `select id, line_count, matched from partner_statements where partner = ? and product = ? and statement_date = ?::date`,
    [partner, product, date],
  );
  const counts = await em.execute<Array<{ kind: BreakKind; n: number }>>(`select kind, count(*)::int as n from reconciliation_breaks where statement_id = ? group by kind`, [row.id]);
  const breaks = zeroBreakCounts();
  for (const c of counts) breaks[c.kind] = c.n;
  return { date, partner, product: product as ImportSummary['product'], lines: row.line_count, matched: row.matched, breaks, already_imported: true, partial: false, pending_lines: 0 };
}

/**
 * A break whose payment is not flagged for review yet (a flag that failed is sent again at the next
 * import). A pending_at_partner break flags nothing: the payment's own run is waiting for the
 * partner's word (and flags itself NeedsAttention); the break is closed by a later fetch.
 */
export interface UnflaggedBreak {
  id: string;
  kind: BreakKind;
  paymentId: string;
  merchantId: string;
  product: 'collection' | 'disbursement';
  reason: string;
}

/** How a review's reason names a break's statement: MoMo's as before (`statement`), the aggregator's by name. */
const statementOf = (partner: PartnerName) => (partner === 'aggregator' ? "the aggregator's statement" : 'statement');

export async function unflaggedBreaks(orm: Orm): Promise<UnflaggedBreak[]> {
  const rows = await orm.em.fork().execute<Array<{ id: string; kind: BreakKind; payment_id: string; merchant_id: string; product: UnflaggedBreak['product']; reason: string; statement_date: string; partner: PartnerName }>>(
    `select id, kind, payment_id, merchant_id, product, reason, to_char(statement_date, 'YYYY-MM-DD') as statement_date, partner from reconciliation_breaks
     where status = 'open' and flagged_at is null and payment_id is not null and merchant_id is not null and kind <> 'pending_at_partner' order by created_at, id limit 1000`,
  );
  return rows.map((r) => ({ id: r.id, kind: r.kind, paymentId: r.payment_id, merchantId: r.merchant_id, product: r.product, reason: `reconciliation ${r.kind} (${r.id}, ${statementOf(r.partner)} ${r.statement_date}): ${r.reason}` }));
}

export async function markFlagged(orm: Orm, breakId: string): Promise<void> {
  await orm.em.fork().execute(`update reconciliation_breaks set flagged_at = now() where id = ? and flagged_at is null`, [breakId]);
}
