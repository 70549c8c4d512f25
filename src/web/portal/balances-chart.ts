import type { Orm } from '../../persistence/orm';
import type { Caller } from '../../services/context';
import html, { join, type HtmlSafeString } from 'escape-html-template-tag';
import { formatMoney, type MinorUnits } from './balances-money';
import { readAvailableDays } from '../../persistence/ledger/balance-days';

export const CHART_DAYS = 30;
const DAY_MS = 86_400_000;

export interface ChartDay {
  /** YYYY-MM-DD, UTC. */
  day: string;
  /** The day's net movement of the available balance (sum of the available items' nets). */
  net: bigint;
  /** The available balance at the day's end (today: now). */
  close: bigint;
}

/**
 * The last 30 UTC days (today included) of one currency's available balance (issue 34: from the
 * daily snapshots, src/persistence/ledger/balance-days.ts, not by walking every balance transaction
 * of the window): a closed day shows its stored net movement and closing balance; today's close is
 * the available balance now (GET /v1/balances's figure) and its net the sum of today's available
 * postings; a day not yet closed before today (its last postings may still be committing, for a
 * moment after midnight) closes at the next day's close less the next day's net.
 *
 * The figures are those of the walk it replaces (the sum of a day's available balance transactions'
 * nets is the sum of its merchant_available postings; the closes are the balance row less the
 * later nets, which the snapshots keep). One difference: a transaction committed between the
 * balance's read and the chart's no longer shifts the closed days' closes, only today's bar.
 */
export async function availableByDay(orm: Orm, caller: Caller, currency: string, availableNow: string, now: Date): Promise<ChartDay[]> {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const start = today - (CHART_DAYS - 1) * DAY_MS;
  const days = Array.from({ length: CHART_DAYS }, (_, i) => new Date(start + i * DAY_MS).toISOString().slice(0, 10));
  const read = await readAvailableDays(orm, { merchantId: caller.merchantId, environment: caller.environment, currency }, days[0], days[days.length - 1]);
  const closed = new Map(read.closed.map((d) => [d.day, d]));
  const nets = new Map(read.open.map((d) => [d.day, d.net]));
  const out: ChartDay[] = [];
  let close = BigInt(availableNow);
  for (let i = days.length - 1; i >= 0; i--) {
    const stored = closed.get(days[i]);
    const day = stored ?? { day: days[i], net: nets.get(days[i]) ?? 0n, close };
    out.unshift({ day: day.day, net: day.net, close: day.close });
    close = day.close - day.net;
  }
  return out;
}

const W = 900;
const H = 230;
const TOP = 24;
const BOTTOM = 196;

/**
 * The chart: one bar per day, the day's closing available balance, above or below the zero line; an
 * inline SVG with presentation attributes only (the web port's CSP blocks style attributes), a title
 * and description for assistive technology, a <title> per bar, and the figures as a table beside it.
 */
export function chartHtml(currency: string, days: ChartDay[], units: MinorUnits): HtmlSafeString {
  const values = days.map((d) => Number(d.close));
  const high = Math.max(0, ...values);
  const low = Math.min(0, ...values);
  const span = high - low || 1;
  const y = (v: number) => TOP + ((high - v) / span) * (BOTTOM - TOP);
  const zero = y(0);
  const slot = W / days.length;
  const bars = days.map((d, i) => {
      const v = values[i];
      const top = Math.min(y(v), zero);
      const height = Math.max(Math.abs(y(v) - zero), v === 0 ? 0 : 1);
      return html`<rect x="${(i * slot + 3).toFixed(1)}" y="${top.toFixed(1)}" width="${(slot - 6).toFixed(1)}" height="${height.toFixed(1)}" fill="${v < 0 ? '#a1160a' : '#0b5fbd'}" data-day="${d.day}"><title>${d.day}: ${formatMoney(d.close, currency, units)}</title></rect>`;
    });
  const first = days[0]?.day ?? '';
  const last = days[days.length - 1]?.day ?? '';
  const title = `Available ${currency} balance at the end of each day, ${first} to ${last} (UTC)`;
  const desc = `Highest ${formatMoney(BigInt(Math.round(high)), currency, units)}, lowest ${formatMoney(BigInt(Math.round(low)), currency, units)}, today ${formatMoney(days[days.length - 1]?.close ?? 0n, currency, units)}. The figures are in the table below the chart.`;
  return html`<svg id="balance-chart" class="chart" role="img" aria-labelledby="balance-chart-title balance-chart-desc" viewBox="0 0 ${W} ${H}" preserveAspectRatio="xMidYMid meet" xmlns="http://www.w3.org/2000/svg">
<title id="balance-chart-title">${title}</title>
<desc id="balance-chart-desc">${desc}</desc>
<line x1="0" y1="${zero.toFixed(1)}" x2="${W}" y2="${zero.toFixed(1)}" stroke="#5f6b7a" stroke-width="1"/>
${join(bars, '\n')}
<text x="0" y="${H - 8}" font-size="14" fill="#1a1a1a">${first}</text>
<text x="${W}" y="${H - 8}" font-size="14" fill="#1a1a1a" text-anchor="end">${last}</text>
<text x="0" y="12" font-size="14" fill="#1a1a1a">${formatMoney(BigInt(Math.round(high)), currency, units)}</text>
</svg>
<details id="chart-figures"><summary>The chart's figures</summary>
<table id="balance-chart-data"><caption>${title}</caption>
<thead><tr><th scope="col">Day (UTC)</th><th scope="col" class="num">Net movement</th><th scope="col" class="num">Available at the day's end</th></tr></thead>
<tbody>
${join(
  days.map((d) => html`<tr data-day="${d.day}" data-close="${d.close}"><td>${d.day}</td><td class="num">${formatMoney(d.net, currency, units)}</td><td class="num">${formatMoney(d.close, currency, units)}</td></tr>`),
  '\n',
)}
</tbody></table></details>`;
}
