import type { EntityManager } from '@mikro-orm/postgresql';
import type { Environment } from '../../domain/environment';
import { ACCOUNTS } from '../../domain/ledger';
import type { Orm } from '../orm';

/**
 * Daily snapshots of a merchant's available balance (`balance_days`, issue 34): per balance and
 * closed UTC day, the day's net movement (the sum of its merchant_available postings, which is the
 * sum of its available balance transactions' nets) and the balance at the day's end (the sum of
 * every posting dated before the next midnight). The portal's 30-day chart reads them, so a view
 * reads the snapshot rows and today's postings, not every posting of the window.
 *
 * Written lazily, by the read, for the days of the asked range that have closed and have no row yet
 * (choice: no schedule to run or to miss; a balance nobody looks at costs nothing; the first view
 * after a day closes writes it). Never updated: a closed day cannot change, because
 *
 * - a posting is dated by the database (clock_timestamp) while its transaction holds the merchant's
 *   event counter row, until it commits (src/persistence/events/event-log.ts);
 * - the read takes that row FOR SHARE, then reads the clock: every posting
 *   dated before that instant has committed (its transaction held the row until then), and every
 *   later one is dated after it (the database's clock not stepping back, the ledger's one
 *   assumption). A day is closed when its end is at or before that instant.
 *
 * Postings written outside that path with a date in a closed day (test funding, a seeding script)
 * after the day's row was written are not in it: delete the balance's rows (they are written again
 * at the next view).
 *
 * A day's closing balance is the previous day's stored close plus the day's net; for a balance's
 * first row (or after a gap) it is the balance row less every posting dated since the day's end, in
 * one statement (one snapshot: a posting and its balance row move in one transaction).
 */

const AVAILABLE = ACCOUNTS.merchantAvailable;
const DAY_MS = 86_400_000;

export interface BalanceScope {
  merchantId: string;
  environment: Environment;
  currency: string;
}

export interface BalanceDay {
  /** YYYY-MM-DD, UTC. */
  day: string;
  net: bigint;
  close: bigint;
}

export interface AvailableDays {
  /** The range's closed days, oldest first, from balance_days (written first when missing). */
  closed: BalanceDay[];
  /** The range's days after the last closed one (today, and a day whose last postings may still be committing): their nets, from the ledger. */
  open: { day: string; net: bigint }[];
}

const dayMs = (day: string) => Date.parse(`${day}T00:00:00Z`);
const dayText = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const KEY = `merchant_id = ? and environment = ? and currency = ? and account = '${AVAILABLE}'`;
const POSTINGS = `from ledger_entries le where le.merchant_id = ? and le.environment = ? and le.account = '${AVAILABLE}' and le.currency = ?`;

/**
 * The available balance of `scope` per UTC day from `firstDay` to `lastDay` (YYYY-MM-DD, both
 * included): closed days from their snapshots, the others' nets from their postings.
 */
export async function readAvailableDays(orm: Orm, scope: BalanceScope, firstDay: string, lastDay: string): Promise<AvailableDays> {
  const em = orm.em.fork() as EntityManager;
  const key = [scope.merchantId, scope.environment, scope.currency];
  const settled = await settledDay(em, scope);
  const lastClosed = Math.min(dayMs(settled), dayMs(lastDay) + DAY_MS) - DAY_MS;
  const first = dayMs(firstDay);
  let closed: BalanceDay[] = [];
  if (lastClosed >= first) {
    closed = await storedDays(em, key, firstDay, dayText(lastClosed));
    const wanted = (lastClosed - first) / DAY_MS + 1;
    if (closed.length < wanted) {
      const have = new Set(closed.map((d) => d.day));
      let missing = first;
      while (have.has(dayText(missing))) missing += DAY_MS;
      await writeDays(em, key, missing, lastClosed);
      closed = await storedDays(em, key, firstDay, dayText(lastClosed));
    }
  }
  const openFrom = Math.max(first, lastClosed + DAY_MS);
  const end = dayMs(lastDay) + DAY_MS;
  const open: AvailableDays['open'] = [];
  if (openFrom < end) {
    const nets = await em.execute<{ day: string; net: string }[]>(
      `select to_char((le.created_at at time zone 'UTC')::date, 'YYYY-MM-DD') as day, sum(le.amount)::text as net ${POSTINGS}
         and le.created_at >= ?::timestamptz and le.created_at < ?::timestamptz group by 1`,
      [...key, new Date(openFrom).toISOString(), new Date(end).toISOString()],
    );
    const byDay = new Map(nets.map((r) => [r.day, BigInt(r.net)]));
    for (let d = openFrom; d < end; d += DAY_MS) open.push({ day: dayText(d), net: byDay.get(dayText(d)) ?? 0n });
  }
  return { closed, open };
}

/**
 * The UTC day of an instant before which every posting of the merchant and environment has
 * committed: the database's clock, read while the merchant's event counter row is held FOR SHARE
 * (a transaction of two statements, the lock then the clock, so the clock is read once the lock is
 * granted; the row is held for that round trip only). A merchant without a counter row has never
 * posted.
 */
async function settledDay(em: EntityManager, scope: BalanceScope): Promise<string> {
  return em.transactional(async (tx) => {
    await tx.execute(`select 1 from event_counters where merchant_id = ? and environment = ? for share`, [scope.merchantId, scope.environment]);
    const [{ day }] = await tx.execute<{ day: string }[]>(`select to_char(clock_timestamp() at time zone 'UTC', 'YYYY-MM-DD') as day`);
    return day;
  });
}

async function storedDays(em: EntityManager, key: unknown[], from: string, to: string): Promise<BalanceDay[]> {
  const rows = await em.execute<{ day: string; net: string; close: string }[]>(
    `select to_char(day, 'YYYY-MM-DD') as day, net::text as net, close::text as close from balance_days where ${KEY} and day between ?::date and ?::date order by day`,
    [...key, from, to],
  );
  return rows.map((r) => ({ day: r.day, net: BigInt(r.net), close: BigInt(r.close) }));
}

/**
 * Writes the snapshots of the closed days `from` to `to` (UTC midnights, in ms): their nets from
 * their postings, their closes from the stored close of the day before, else from the balance row
 * less every posting dated since `from` (read in the same statement as those postings: one snapshot;
 * one pass over them, the closed days' nets grouped out of it). A row another view wrote meanwhile is
 * kept (the same figures: a closed day).
 */
async function writeDays(em: EntityManager, key: unknown[], from: number, to: number): Promise<void> {
  const before = await em.execute<{ close: string }[]>(`select close::text as close from balance_days where ${KEY} and day = ?::date`, [...key, dayText(from - DAY_MS)]);
  const anchored = before.length === 0;
  // Without the day before's close, every posting since `from` (today's too) goes into the anchor.
  const upper = anchored ? '' : ' and le.created_at < ?::timestamptz';
  const [read] = await em.execute<{ balance: string; nets: { day: string; net: string }[] }[]>(
    `select (select coalesce(sum(amount), 0) from account_balances where ${KEY})::text as balance,
            coalesce((select json_agg(json_build_object('day', to_char(g.day, 'YYYY-MM-DD'), 'net', g.net::text))
                      from (select (le.created_at at time zone 'UTC')::date as day, sum(le.amount) as net ${POSTINGS}
                              and le.created_at >= ?::timestamptz${upper} group by 1) g), '[]'::json) as nets`,
    [...key, ...key, new Date(from).toISOString(), ...(anchored ? [] : [new Date(to + DAY_MS).toISOString()])],
  );
  const nets = typeof read.nets === 'string' ? (JSON.parse(read.nets) as { day: string; net: string }[]) : read.nets;
  const byDay = new Map(nets.map((r) => [r.day, BigInt(r.net)]));
  let close = anchored ? BigInt(read.balance) - nets.reduce((sum, r) => sum + BigInt(r.net), 0n) : BigInt(before[0].close);
  const rows: { day: string; net: string; close: string }[] = [];
  for (let d = from; d <= to; d += DAY_MS) {
    const net = byDay.get(dayText(d)) ?? 0n;
    close += net;
    rows.push({ day: dayText(d), net: net.toString(), close: close.toString() });
  }
  await em.execute(
    `insert into balance_days (merchant_id, environment, currency, account, day, net, close)
     select ?, ?, ?, '${AVAILABLE}', d.day::date, d.net::bigint, d.close::bigint from jsonb_to_recordset(?::jsonb) as d(day text, net text, close text)
     on conflict (merchant_id, environment, currency, account, day) do nothing`,
    [...key, JSON.stringify(rows)],
  );
}
