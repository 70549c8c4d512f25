import { acknowledgements, type CreateRecord } from '../create-history';
import { result, type CheckContext, type CheckResult } from './check';

/**
 * The history check (issue 44, Jepsen's shape): every create the load sent, with every answer it
 * got under its Idempotency-Key (create-history.ts), against what the database holds after the run.
 * - acknowledged_lost: a create answered 2xx with an id whose resource does not exist;
 * - amount_mismatches: a resource whose amount (or currency) is not what its create asked for, or not
 *   what its acknowledgement said;
 * - duplicates_by_key: one create (one key) acknowledged with two different ids; the key's stored
 *   answer naming another resource than the one acknowledged; or, for charges and payouts, more than
 *   one resource with the create's own `reference` (unique per create in the load; `your_reference` in the tables).
 * A create refused with a 4xx must have made nothing (for charges and payouts: no row holds its
 * reference; a violation otherwise). Creates never answered definitely (the load gave up after its
 * retries) are counted, not judged: the resource may or may not exist, and either is allowed.
 */

export interface HistoryCounts {
  acknowledged_lost: number;
  duplicates_by_key: number;
  amount_mismatches: number;
}

const TABLES: Array<{ table: string; path: RegExp; referenced: boolean }> = [
  { table: 'charges', path: /^\/v1\/charges$/, referenced: true },
  { table: 'payouts', path: /^\/v1\/payouts$/, referenced: true },
  { table: 'refunds', path: /^\/v1\/refunds$/, referenced: false },
  { table: 'disputes', path: /^\/v1\/sandbox\/charges\/[^/]+\/disputes$/, referenced: false },
];

interface Row {
  id: string;
  amount: string;
  currency: string;
}

function tableOf(record: CreateRecord) {
  return TABLES.find((t) => t.path.test(record.path));
}

export async function checkHistory(ctx: CheckContext & { history: CreateRecord[] }): Promise<CheckResult & { counts: HistoryCounts }> {
  const counts: HistoryCounts = { acknowledged_lost: 0, duplicates_by_key: 0, amount_mismatches: 0 };
  const violations: string[] = [];
  const judged = ctx.history.filter((r) => tableOf(r));
  const rowsOf = new Map<string, Row>();
  for (const { table } of TABLES) {
    const ids = judged.filter((r) => tableOf(r)!.table === table).flatMap((r) => acknowledgements(r).map((a) => a.id!));
    for (const row of await ctx.db.rows<Row>(`select id, amount::text as amount, currency from ${table} where id = any($1)`, [ids])) rowsOf.set(row.id, row);
  }
  const keys = judged.filter((r) => r.idempotencyKey !== null);
  const stored = new Map(
    (
      await ctx.db.rows<{ merchant_id: string; environment: string; key: string; resource_id: string }>(
        `select merchant_id, environment, key, resource_id from idempotency_keys where key = any($1)`,
        [keys.map((r) => r.idempotencyKey)],
      )
    ).map((k) => [`${k.merchant_id}|${k.environment}|${k.key}`, k.resource_id]),
  );
  const references = judged.filter((r) => tableOf(r)!.referenced && r.reference !== null);
  const byReference = new Map<string, string[]>();
  for (const table of ['charges', 'payouts']) {
    const rows = await ctx.db.rows<{ merchant_id: string; environment: string; reference: string; id: string }>(
      `select merchant_id, environment, your_reference as reference, id from ${table} where your_reference = any($1)`,
      [references.filter((r) => tableOf(r)!.table === table).map((r) => r.reference)],
    );
    for (const row of rows) {
      const at = `${table}|${row.merchant_id}|${row.environment}|${row.reference}`;
      byReference.set(at, [...(byReference.get(at) ?? []), row.id]);
    }
  }

  let refused = 0;
  let unanswered = 0;
  for (const record of judged) {
    const { table, referenced } = tableOf(record)!;
    const label = `${record.op} ${record.idempotencyKey ?? '(no key)'} (${record.answers.length} attempt${record.answers.length === 1 ? '' : 's'})`;
    const acked = acknowledgements(record);
    const last = record.answers.at(-1);
    if (acked.length === 0 && last && last.status >= 400 && last.status < 500) {
      // Refused (a definite 4xx): nothing may have been made of it.
      refused++;
      const holders = referenced && record.reference !== null ? (byReference.get(`${table}|${record.merchantId}|${record.environment}|${record.reference}`) ?? []) : [];
      if (holders.length > 0) violations.push(`${label}: refused with ${last.status}, yet ${table} holds its reference ${record.reference} (${holders.join(', ')})`);
      continue;
    }
    if (acked.length === 0) unanswered++;
    const ids = [...new Set(acked.map((a) => a.id!))];
    if (ids.length > 1) {
      counts.duplicates_by_key++;
      violations.push(`${label}: acknowledged as ${ids.join(' and ')}: one key, ${ids.length} resources`);
    }
    for (const id of ids) {
      const row = rowsOf.get(id);
      if (!row) {
        counts.acknowledged_lost++;
        violations.push(`${label}: acknowledged as ${id}, which ${table} does not hold`);
        continue;
      }
      const said = acked.find((a) => a.id === id)!;
      const asked = record.amount !== null && Number(row.amount) !== record.amount;
      const answered = said.amount !== null && Number(row.amount) !== said.amount;
      const currency = (record.currency !== null && row.currency !== record.currency) || (said.currency !== null && row.currency !== said.currency);
      if (asked || answered || currency) {
        counts.amount_mismatches++;
        violations.push(`${label}: ${id} holds ${row.amount} ${row.currency}; asked ${record.amount ?? '-'} ${record.currency ?? ''}, acknowledged ${said.amount ?? '-'} ${said.currency ?? ''}`);
      }
    }
    if (record.idempotencyKey !== null && ids.length === 1) {
      const kept = stored.get(`${record.merchantId}|${record.environment}|${record.idempotencyKey}`);
      if (kept !== undefined && kept !== ids[0]) {
        counts.duplicates_by_key++;
        violations.push(`${label}: acknowledged as ${ids[0]}, while the key's stored answer names ${kept}`);
      }
    }
    if (referenced && record.reference !== null) {
      const holders = byReference.get(`${table}|${record.merchantId}|${record.environment}|${record.reference}`) ?? [];
      if (holders.length > 1) {
        counts.duplicates_by_key++;
        violations.push(`${label}: ${holders.length} ${table} hold its reference ${record.reference} (${holders.join(', ')})`);
      }
    }
  }
  const acknowledged = judged.length - refused - unanswered;
  return {
    ...result('every acknowledged create exists with its amount, one resource per key', judged.length, violations, [
      `${judged.length} creates sent: ${acknowledged} acknowledged, ${refused} refused (4xx: nothing made of them), ${unanswered} never answered definitely (not judged); ${counts.acknowledged_lost} acknowledged and lost, ${counts.duplicates_by_key} duplicated, ${counts.amount_mismatches} with another amount`,
    ]),
    counts,
  };
}
