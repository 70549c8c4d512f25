import { Readable } from 'node:stream';
import { recordPortalAccess } from '../../persistence/portal/portal-audit';
import { settlementHeldUntil } from '../../persistence/merchants/settlement-holds';
import { readBalances } from '../../persistence/ledger/account-balances';
import { availableByDay } from './balances-chart';
import { csvLine } from './balances-csv';
import { majorDecimal, minorUnitsOf } from './balances-money';
import { balancesPage, type BalancesView } from './balances-page';
import { decodeCursor, encodeCursor, FilterError, FILTER_NAMES, parseFilters, storeQuery, type BalanceFilters } from './balances-query';
import { balanceTransactionPage, walkBalanceTransactions } from './balances-walk';
import { callerOf, frameOf, html, type PortalRoutes } from './kit';

export const BALANCES_PATH = '/balances';
export const CSV_PATH = '/balances/transactions.csv';
/** Balance transactions per page of the table. */
export const BALANCE_PAGE_SIZE = 25;

export const CSV_HEADER = ['id', 'created_at', 'type', 'source', 'balance', 'currency', 'amount', 'fee', 'net'] as const;

/**
 * Balances: GET /v1/balances's figures (readBalances), a 30-day chart of the available balance and
 * the balance transactions (listBalanceTransactions, GET /v1/balance-transactions's store) with its
 * filters and cursor paging; and the CSV export of every matching balance transaction, all pages
 * (a POST from the page's export form: it is an audited action).
 * Everything is the session's merchant and environment (callerOf).
 */
export const balancesRoutes: PortalRoutes = (router, kit) => {
  const { orm } = kit.deps;

  router.get(BALANCES_PATH, async (ctx) => {
    const session = await kit.page(ctx);
    if (!session) return;
    const caller = callerOf(session);
    const frame = frameOf(session, BALANCES_PATH);
    const units = await minorUnitsOf(orm);
    const figures = await readBalances(orm.em.fork(), caller.merchantId, caller.environment);
    const held = figures.available.map((b) => b.currency);
    // Live, while a settlement account change holds the live settlements (issue 43).
    const heldUntil = caller.environment === 'live' ? await settlementHeldUntil(orm, caller.merchantId) : null;
    const base: BalancesView = { figures, units, currencies: [...units.keys()], chart: null, filters: {}, cursor: null, items: [], nextCursor: null, settlementHeldUntil: heldUntil };

    let error: string | undefined;
    let filters: BalanceFilters = {};
    try {
      filters = parseFilters(ctx.query, new Set(units.keys()));
    } catch (e) {
      if (!(e instanceof FilterError)) throw e;
      error = e.message;
    }
    const cursorText = typeof ctx.query.cursor === 'string' ? ctx.query.cursor : null;
    const cursor = decodeCursor(ctx.query.cursor);
    if (cursor === undefined) error ??= 'This page link is not one this page made: start again from the first page.';
    const chartParam = ctx.query.chart;
    if (chartParam !== undefined && (typeof chartParam !== 'string' || !held.includes(chartParam))) error ??= "The chart's currency must be one of your balances' currencies.";
    const chartCurrency = typeof chartParam === 'string' && held.includes(chartParam) ? chartParam : held[0];
    const chart = chartCurrency ? { currency: chartCurrency, days: await availableByDay(orm, caller, chartCurrency, figures.available.find((b) => b.currency === chartCurrency)!.amount, new Date()) } : null;

    if (error !== undefined) {
      html(ctx, 400, balancesPage(frame, { ...base, chart, filters, error }));
      return;
    }
    const page = await balanceTransactionPage(orm, caller, storeQuery(filters, BALANCE_PAGE_SIZE, cursor ?? null));
    const last = page.items[page.items.length - 1];
    html(ctx, 200, balancesPage(frame, { ...base, chart, filters, cursor: cursorText, items: page.items, nextCursor: page.next && last ? encodeCursor(last) : null }));
  });

  // The export is a POST (the Balances page's form: CSRF, environment, the filters as hidden fields),
  // since it writes an audit row; a GET (an old link, a bookmark) shows the page with its filters, exporting nothing.
  router.get(CSV_PATH, async (ctx) => {
    const session = await kit.page(ctx);
    if (!session) return;
    ctx.status = 303;
    ctx.redirect(ctx.querystring ? `${BALANCES_PATH}?${ctx.querystring}` : BALANCES_PATH);
  });

  router.post(CSV_PATH, async (ctx) => {
    const session = await kit.posted(ctx, 'view');
    if (!session) return;
    const caller = callerOf(session);
    const units = await minorUnitsOf(orm);
    const fields = ctx.state.fields as URLSearchParams;
    let filters: BalanceFilters;
    try {
      filters = parseFilters(Object.fromEntries(FILTER_NAMES.filter((n) => fields.has(n)).map((n) => [n, fields.getAll(n).length === 1 ? fields.get(n) : fields.getAll(n)])), new Set(units.keys()));
    } catch (e) {
      if (!(e instanceof FilterError)) throw e;
      ctx.status = 400;
      ctx.type = 'text/plain; charset=utf-8';
      ctx.body = e.message;
      return;
    }
    const query = storeQuery(filters, 1, null);
    // An export of the account's money movements is an action: audited (with its filters) before any row is sent.
    await recordPortalAccess(orm, { action: 'portal.export_balance_transactions', userId: session.userId, email: session.email, merchantId: session.merchantId, environment: session.environment, requestId: ctx.state.requestId as string, after: { filters } });
    const date = new Date().toISOString().slice(0, 10);
    async function* lines(): AsyncGenerator<string> {
      yield csvLine(CSV_HEADER);
      for await (const t of walkBalanceTransactions(orm, caller, { ...query })) {
        yield csvLine([t.id, t.createdAt, t.type, t.source, t.balance, t.currency, majorDecimal(t.amount, t.currency, units), majorDecimal(t.fee, t.currency, units), majorDecimal(t.net, t.currency, units)]);
      }
    }
    ctx.status = 200;
    ctx.type = 'text/csv; charset=utf-8';
    ctx.set('Content-Disposition', `attachment; filename="balance-transactions-${caller.environment}-${date}.csv"`);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = Readable.from(lines());
  });
};
