import type { RailProduct } from '../partner-rail';
import { statementLine, type StatementLine } from '../momo-statement';
import type { FakeStatements, StatementAmendment } from './statement';
import type { FakeTransactions } from './transactions';

/**
 * The fake partner's test controls over HTTP (only the fake has them; docs/partner-rail.md), so a
 * test driving `npm start`'s servers can play what `settle`, `amendStatement` and
 * `addStatementLine` play in process. Same authentication as the product's other calls.
 *
 * - `POST /{product}/_fake/settle/{referenceId}` `{"status":"SUCCESSFUL"|"FAILED","reason"?,"callback"?:false}`
 *   (under `disbursement`: the transfer of that reference, else the refund of it)
 * - `POST /{product}/_fake/statement/amend/{referenceId}` `{"omit"?,"currency"?,"amount"?,"status"?}` (`"omit": false` lists an omitted line again)
 * - `POST /{product}/_fake/statement/lines` a statement line (JSON, as the statement lists it)
 * - `POST /{product}/_fake/declining` `{"on": true|false}` (issue 46: setDeclining, the `partner_declining`
 *   fault; under either product, it turns the mode on or off for the whole fake)
 */
export type ControlRoute = { kind: 'settle' | 'amend'; referenceId: string } | { kind: 'line' } | { kind: 'declining' };

export function controlRoute(product: RailProduct, method: string, path: string): ControlRoute | null {
  if (method !== 'POST') return null;
  const base = `/${product}/_fake/`;
  if (!path.startsWith(base)) return null;
  const rest = path.slice(base.length);
  if (rest === 'statement/lines') return { kind: 'line' };
  if (rest === 'declining') return { kind: 'declining' };
  const settle = /^settle\/([^/]+)$/.exec(rest);
  if (settle) return { kind: 'settle', referenceId: decodeURIComponent(settle[1]) };
  const amend = /^statement\/amend\/([^/]+)$/.exec(rest);
  if (amend) return { kind: 'amend', referenceId: decodeURIComponent(amend[1]) };
  return null;
}

/** Applies a control; the HTTP status to answer and, on a refusal, why. */
export function applyControl(route: ControlRoute, product: RailProduct, body: unknown, fake: { transactions: FakeTransactions; statements: FakeStatements; modes: { declining: boolean } }): { status: number; message?: string } {
  const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  if (route.kind === 'declining') {
    if (typeof b.on !== 'boolean') return { status: 400, message: 'on must be true or false' };
    fake.modes.declining = b.on;
    return { status: 204 };
  }
  if (route.kind === 'settle') {
    const final = b.status === 'SUCCESSFUL' ? { status: 'SUCCESSFUL' as const } : b.status === 'FAILED' ? { status: 'FAILED' as const, reason: typeof b.reason === 'string' ? b.reason : 'APPROVAL_REJECTED' } : null;
    if (!final) return { status: 400, message: 'status must be SUCCESSFUL or FAILED' };
    const options = { callback: b.callback !== false };
    const settled = fake.transactions.settle(product, route.referenceId, final, options) || (product === 'disbursement' && fake.transactions.settle('refund', route.referenceId, final, options));
    return settled ? { status: 204 } : { status: 404, message: 'unknown reference' };
  }
  if (route.kind === 'amend') {
    const amendment: StatementAmendment = {};
    if (typeof b.omit === 'boolean') amendment.omit = b.omit; // false: the line is listed again
    if (typeof b.currency === 'string') amendment.currency = b.currency;
    if (typeof b.amount === 'string') amendment.amount = b.amount;
    if (b.status === 'SUCCESSFUL' || b.status === 'FAILED' || b.status === 'PENDING') amendment.status = b.status;
    fake.statements.amend(product, route.referenceId, amendment);
    return { status: 204 };
  }
  let line: StatementLine;
  try {
    line = statementLine(b);
  } catch (error) {
    return { status: 400, message: (error as Error).message };
  }
  fake.statements.addLine(product, line);
  return { status: 204 };
}
