import { parse } from 'csv-parse/sync';
import type { RailProduct } from './partner-rail';
import { isRailProduct } from './momo-protocol';

/**
 * The partner's daily statement (docs/partner-rail.md, "The statement"), shared by the fake partner
 * (which publishes it) and reconciliation (which imports it), so the two cannot drift apart.
 *
 * One statement per product and UTC day: every transaction the partner received that day (by its
 * acceptance time), with its status when the statement was made. Served as JSON
 * (`GET /{product}/v1_0/statement?date=YYYY-MM-DD`) and as a CSV file
 * (`GET /{product}/v1_0/statement.csv?date=YYYY-MM-DD`), with the same authentication as the
 * product's other calls.
 */

export type StatementStatus = 'SUCCESSFUL' | 'FAILED' | 'PENDING';

export interface StatementLine {
  /** Our X-Reference-Id (a UUID). */
  referenceId: string;
  /** The partner's id of the money movement (SUCCESSFUL only), else null. */
  financialTransactionId: string | null;
  /** The externalId we sent (our payment id). */
  externalId: string;
  /** The partner's decimal string of major units, as in its status answers ("150.00"). */
  amount: string;
  currency: string;
  status: StatementStatus;
  /** With FAILED: the partner's reason code. */
  reason: string | null;
  /** The payer (collection) or payee (disbursement), masked: `****` and its last four characters. */
  party: string;
  /** When the partner received the submission (ISO, UTC). */
  time: string;
  /** When it became final (ISO, UTC), null while PENDING. */
  completedAt: string | null;
}

export interface PartnerStatement {
  product: RailProduct;
  /** The UTC day, YYYY-MM-DD. */
  date: string;
  lines: StatementLine[];
}

/** The CSV file's columns, in order (its first row). */
export const STATEMENT_CSV_COLUMNS = [
  'product',
  'statement_date',
  'reference_id',
  'financial_transaction_id',
  'external_id',
  'amount',
  'currency',
  'status',
  'reason',
  'party',
  'time',
  'completed_at',
] as const;

const STATUSES: ReadonlySet<string> = new Set(['SUCCESSFUL', 'FAILED', 'PENDING']);
const DATE = /^\d{4}-\d{2}-\d{2}$/;

export function isStatementDate(text: unknown): text is string {
  return typeof text === 'string' && DATE.test(text) && new Date(`${text}T00:00:00Z`).toISOString().slice(0, 10) === text;
}

/** A party identifier as a statement shows it: `****` and its last four characters. */
export function maskParty(partyId: string): string {
  return `****${partyId.slice(-4)}`;
}

function csvField(value: string | null): string {
  const text = value ?? '';
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The statement as its CSV file: a header row, then one row per line (an empty statement: the header only). */
export function statementToCsv(statement: PartnerStatement): string {
  const rows = statement.lines.map((l) =>
    [statement.product, statement.date, l.referenceId, l.financialTransactionId, l.externalId, l.amount, l.currency, l.status, l.reason, l.party, l.time, l.completedAt].map(csvField).join(','),
  );
  return [STATEMENT_CSV_COLUMNS.join(','), ...rows].join('\r\n') + '\r\n';
}

function text(value: unknown, field: string): string {
  if (typeof value !== 'string' || value === '') throw new Error(`statement line: ${field} is missing`);
  return value;
}

function optional(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

/** One line, checked (a line the importer cannot read stops the import, naming the field). */
export function statementLine(raw: Record<string, unknown>): StatementLine {
  const status = text(raw.status, 'status');
  if (!STATUSES.has(status)) throw new Error(`statement line: status "${status}" is not SUCCESSFUL, FAILED or PENDING`);
  const currency = text(raw.currency, 'currency');
  if (!/^[A-Z]{3}$/.test(currency)) throw new Error(`statement line: currency "${currency}" is not an ISO 4217 code`);
  return {
    referenceId: text(raw.referenceId, 'referenceId'),
    financialTransactionId: optional(raw.financialTransactionId),
    externalId: typeof raw.externalId === 'string' ? raw.externalId : '',
    amount: text(raw.amount, 'amount'),
    currency,
    status: status as StatementStatus,
    reason: optional(raw.reason),
    party: typeof raw.party === 'string' ? raw.party : '',
    time: text(raw.time, 'time'),
    completedAt: optional(raw.completedAt),
  };
}

/** The JSON statement (the HTTP endpoint's answer), checked. */
export function parseStatementJson(body: unknown): PartnerStatement {
  if (typeof body !== 'object' || body === null) throw new Error('a statement is a JSON object {product, date, lines}');
  const { product, date, lines } = body as Record<string, unknown>;
  if (!isRailProduct(product)) throw new Error('statement: product must be collection or disbursement');
  if (!isStatementDate(date)) throw new Error('statement: date must be YYYY-MM-DD');
  if (!Array.isArray(lines)) throw new Error('statement: lines must be a list');
  return { product, date, lines: lines.map((l) => statementLine(l as Record<string, unknown>)) };
}

/**
 * The CSV file, checked. Every row names its product and day; a file with no rows takes them from
 * `fallback` (the operator's --product and --date), else it cannot be imported.
 */
export function parseStatementCsv(csv: string, fallback: { product?: RailProduct; date?: string } = {}): PartnerStatement {
  const rows = parse(csv, { columns: true, skip_empty_lines: true, trim: true, bom: true }) as Array<Record<string, string>>;
  const products = new Set(rows.map((r) => r.product));
  const dates = new Set(rows.map((r) => r.statement_date));
  if (products.size > 1 || dates.size > 1) throw new Error('a statement file holds one product and one day');
  const product = rows[0]?.product ?? fallback.product;
  const date = rows[0]?.statement_date ?? fallback.date;
  if (!isRailProduct(product)) throw new Error('statement file: no product (an empty file needs --product)');
  if (!isStatementDate(date)) throw new Error('statement file: no statement_date (an empty file needs --date YYYY-MM-DD)');
  const lines = rows.map((r) =>
    statementLine({
      referenceId: r.reference_id,
      financialTransactionId: r.financial_transaction_id,
      externalId: r.external_id,
      amount: r.amount,
      currency: r.currency,
      status: r.status,
      reason: r.reason,
      party: r.party,
      time: r.time,
      completedAt: r.completed_at,
    }),
  );
  return { product, date, lines };
}

/** A statement file's text, CSV or JSON (by its first character). */
export function parseStatementFile(content: string, fallback: { product?: RailProduct; date?: string } = {}): PartnerStatement {
  const trimmed = content.replace(/^\uFEFF/, '').trimStart();
  if (trimmed.startsWith('{')) return parseStatementJson(JSON.parse(trimmed));
  return parseStatementCsv(content, fallback);
}
