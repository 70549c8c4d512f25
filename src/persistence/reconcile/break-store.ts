import type { Orm } from '../orm';
import type { ChangeActor } from '../../domain/operator-action';
import { newId } from '../../support/new-id';
import { iso, isoOrNull } from '../sql-values';
import { BREAK_KINDS, zeroBreakCounts, type BreakKind } from '../../domain/break-kinds';
import { resolveRefusal } from '../../reconcile/resolve-rules';
import { breakFacts } from './break-facts';
import { PARTNERS, type PartnerName } from '../../domain/rail-routes';

/** One break as `reconcile breaks` lists it (the pinned fields first). */
export interface BreakRow {
  id: string;
  kind: BreakKind;
  reference: string;
  payment_id: string | null;
  amount: number | null;
  currency: string | null;
  status: 'open' | 'resolved';
  /** Whose statement found it (issue 45): `momo` or `aggregator`. */
  partner: PartnerName;
  product: string;
  statement_date: string;
  partner_status: string | null;
  our_status: string | null;
  reason: string;
  resolved_by: string | null;
  resolved_reason: string | null;
  resolved_at: string | null;
  /** What the operator checked when resolving by hand (issue 43); null for a break closed by a refetch. */
  resolved_checked: string | null;
  created_at: string;
}

type Raw = Omit<BreakRow, 'amount' | 'created_at' | 'resolved_at'> & { amount: string | null; created_at: Date | string; resolved_at: Date | string | null; merchant_id: string | null };

const COLUMNS = `id, kind, reference_id as reference, payment_id, amount::text as amount, currency, status, partner, product, to_char(statement_date, 'YYYY-MM-DD') as statement_date,
  partner_status, our_status, reason, resolved_by, resolved_reason, resolved_at, resolved_checked, created_at, merchant_id`;

function row(r: Raw): BreakRow {
  const { merchant_id: _merchant, ...rest } = r;
  return { ...rest, amount: r.amount === null ? null : Number(r.amount), created_at: iso(r.created_at), resolved_at: isoOrNull(r.resolved_at) };
}

export interface BreakFilter {
  since?: Date;
  kind?: BreakKind;
  status?: 'open' | 'resolved';
  /** The breaks of one partner's statements. */
  partner?: PartnerName;
  limit: number;
}

/** `reconcile breaks [--since ISO] [--kind KIND] [--status S] [--partner P]`: newest first. */
export async function listBreaks(orm: Orm, filter: BreakFilter): Promise<{ object: 'list'; data: BreakRow[]; has_more: boolean }> {
  const where: string[] = [];
  const params: unknown[] = [];
  const add = (clause: string, value: unknown) => {
    where.push(clause);
    params.push(value);
  };
  if (filter.since) add('created_at >= ?', filter.since.toISOString());
  if (filter.kind) add('kind = ?', filter.kind);
  if (filter.status) add('status = ?', filter.status);
  if (filter.partner) add('partner = ?', filter.partner);
  const rows = await orm.em.fork().execute<Raw[]>(
    `select ${COLUMNS} from reconciliation_breaks ${where.length ? `where ${where.join(' and ')}` : ''} order by created_at desc, id desc limit ?`,
    [...params, filter.limit + 1],
  );
  return { object: 'list', data: rows.slice(0, filter.limit).map(row), has_more: rows.length > filter.limit };
}

export class BreakNotFound extends Error {}
export class BreakAlreadyResolved extends Error {}
/** A break the engine cannot verify, or one whose payment's late money is not settled (src/reconcile/resolve-rules.ts). */
export class BreakResolveRefused extends Error {}

/**
 * Resolves an open break through the operators' audited path: the break's row and an operator_audit
 * row (`reconciliation_break.resolve`: who, why, what they checked, the state before and after, the
 * request id) in one transaction. A break already resolved is refused, saying by whom; so is one the
 * engine cannot verify against the partner's records or whose late money is unsettled (issue 43,
 * src/reconcile/resolve-rules.ts), read under the break's and the late money's row locks.
 */
export async function resolveBreak(orm: Orm, breakId: string, actor: ChangeActor, checked: string): Promise<BreakRow> {
  return orm.em.fork().transactional(async (em) => {
    const [before] = await em.execute<Array<Raw & { statement_id: string }>>(`select ${COLUMNS}, environment, statement_id from reconciliation_breaks where id = ? for update`, [breakId]);
    if (!before) throw new BreakNotFound(`no reconciliation break ${breakId}`);
    if (before.status === 'resolved') throw new BreakAlreadyResolved(`break ${breakId} was already resolved by ${before.resolved_by} (${before.resolved_reason})`);
    const refusal = resolveRefusal(await breakFacts(em, before));
    if (refusal) throw new BreakResolveRefused(refusal);
    const [after] = await em.execute<Raw[]>(
      `update reconciliation_breaks set status = 'resolved', resolved_by = ?, resolved_reason = ?, resolved_checked = ?, resolved_at = clock_timestamp() where id = ? returning ${COLUMNS}`,
      [actor.operator.slice(0, 100), actor.reason.slice(0, 500), checked.slice(0, 500), breakId],
    );
    const state = (r: Raw) => ({
      status: r.status,
      kind: r.kind,
      reference: r.reference,
      payment_id: r.payment_id,
      amount: r.amount === null ? null : Number(r.amount),
      currency: r.currency,
      partner_status: r.partner_status,
      our_status: r.our_status,
      ...(r.resolved_checked ? { checked: r.resolved_checked } : {}),
    });
    await em.execute(
      `insert into operator_audit (id, payment_id, action, operator, reason, state_before, state_after, request_id, batch_id, merchant_id, environment, created_at)
       values (?, ?, 'reconciliation_break.resolve', ?, ?, ?::jsonb, ?::jsonb, ?, null, ?, 'live', clock_timestamp())`,
      [newId('audit'), breakId, actor.operator.slice(0, 100), actor.reason.slice(0, 500), JSON.stringify(state(before)), JSON.stringify(state(after)), actor.requestId, before.merchant_id],
    );
    return row(after);
  });
}

/** How many open breaks a payment still has. */
export async function openBreaksOfPayment(orm: Orm, paymentId: string): Promise<number> {
  const [r] = await orm.em.fork().execute<Array<{ n: number }>>(`select count(*)::int as n from reconciliation_breaks where payment_id = ? and status = 'open'`, [paymentId]);
  return r.n;
}

/** Money in breaks: minor units per currency. */
export type MoneyByCurrency = Record<string, number>;

export interface DayReport {
  date: string;
  statements: Array<{ partner: PartnerName; product: string; source: string; imported_at: string }>;
  lines: number;
  matched: number;
  breaks: Record<BreakKind, number>;
  open_breaks: number;
  money_in_breaks: MoneyByCurrency;
}

/** `reconcile report [--date]`: the day's statements (every partner's, both products; each naming its partner), lines, matched, breaks by kind and the money in them. */
export async function dayReport(orm: Orm, date: string): Promise<DayReport> {
  const em = orm.em.fork();
  const statements = await em.execute<Array<{ partner: PartnerName; product: string; source: string; imported_at: Date | string; line_count: number; matched: number }>>(
    `select partner, product, source, imported_at, line_count, matched from partner_statements where statement_date = ?::date order by partner desc, product`,
    [date],
  );
  const kinds = await em.execute<Array<{ kind: BreakKind; n: number; open: number }>>(
    `select kind, count(*)::int as n, (count(*) filter (where status = 'open'))::int as open from reconciliation_breaks where statement_date = ?::date group by kind`,
    [date],
  );
  const money = await em.execute<Array<{ currency: string; total: string }>>(
    `select currency, sum(amount)::text as total from reconciliation_breaks where statement_date = ?::date and amount is not null and currency is not null group by currency order by currency`,
    [date],
  );
  const breaks = zeroBreakCounts();
  for (const k of kinds) breaks[k.kind] = k.n;
  return {
    date,
    statements: statements.map((s) => ({ partner: s.partner, product: s.product, source: s.source, imported_at: iso(s.imported_at) })),
    lines: statements.reduce((n, s) => n + s.line_count, 0),
    matched: statements.reduce((n, s) => n + s.matched, 0),
    breaks,
    open_breaks: kinds.reduce((n, k) => n + k.open, 0),
    money_in_breaks: Object.fromEntries(money.map((m) => [m.currency, Number(m.total)])),
  };
}

/**
 * The /metrics gauges: open breaks by kind (over every partner), and by partner and kind (issue 45:
 * every partner and kind named, zero included); the money in open breaks by currency, over every
 * partner and by partner.
 */
export async function openBreakTotals(orm: Orm): Promise<{
  byKind: Record<BreakKind, number>;
  byPartner: Record<PartnerName, Record<BreakKind, number>>;
  moneyByCurrency: MoneyByCurrency;
  moneyByPartner: Record<PartnerName, MoneyByCurrency>;
}> {
  const em = orm.em.fork();
  const kinds = await em.execute<Array<{ kind: BreakKind; partner: PartnerName; n: number }>>(`select kind, partner, count(*)::int as n from reconciliation_breaks where status = 'open' group by kind, partner`);
  const money = await em.execute<Array<{ currency: string; partner: PartnerName; total: string }>>(
    `select currency, partner, sum(amount)::text as total from reconciliation_breaks where status = 'open' and amount is not null and currency is not null group by currency, partner`,
  );
  const byKind = zeroBreakCounts();
  const byPartner = Object.fromEntries(PARTNERS.map((p) => [p, zeroBreakCounts()])) as Record<PartnerName, Record<BreakKind, number>>;
  for (const k of kinds) {
    if (!(BREAK_KINDS as readonly string[]).includes(k.kind)) continue;
    byKind[k.kind] += k.n;
    if (byPartner[k.partner]) byPartner[k.partner][k.kind] += k.n;
  }
  const moneyByCurrency: MoneyByCurrency = {};
  const moneyByPartner = Object.fromEntries(PARTNERS.map((p) => [p, {}])) as Record<PartnerName, MoneyByCurrency>;
  for (const m of money) {
    moneyByCurrency[m.currency] = (moneyByCurrency[m.currency] ?? 0) + Number(m.total);
    if (moneyByPartner[m.partner]) moneyByPartner[m.partner][m.currency] = Number(m.total);
  }
  return { byKind, byPartner, moneyByCurrency, moneyByPartner };
}
