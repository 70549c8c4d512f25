import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RailProduct, RailResource } from '../../partner-rail';
import type { FakeLog } from '../../fake-partner/callbacks';
import { parseJson } from '../../momo-status';
import { isStatementDate, statementToCsv } from '../../momo-statement';
import { errorAnswer } from '../errors';
import { AUTHORIZATION_SCHEME, PATH, STATUS_QUERY } from '../protocol';
import { CARD_PATH, CARD_TYPE } from '../card-protocol';
import type { FakeBooks } from './books';
import { submitCharge } from './charges';
import { submitCardCharge, validateCharge, type FakeCardSettings } from './cards';
import { threeDsPage, threeDsSubmit, type PageReply } from './three-ds';
import { submitTransfer } from './transfers';
import { submitRefund } from './refunds';
import { fakeStatement } from './statement';
import { maskHeaders, recordedBody, type RecordedAggregatorRequest } from './recording';
import { chargeView, refundView, transferView, type Reply } from './views';
import { invalid } from './fields';

export const MAX_BODY_BYTES = 64 * 1024;

export interface FakeAggregatorContext {
  books: FakeBooks;
  secretKey: string;
  slowMs: number;
  requests: RecordedAggregatorRequest[];
  log: FakeLog;
  /** Slow answers waiting, cleared by close. */
  timers: Set<NodeJS.Timeout>;
  /** Card charges: on or off, their payload's key, the fake's address (its 3-D Secure page). */
  cards: FakeCardSettings;
  /** Issue 46: the `partner_declining` fault (setDeclining): new charges and transfers refused SERVICE_DECLINING. */
  modes: { declining: boolean };
}

type Route =
  | { kind: 'charge' }
  | { kind: 'validate' }
  | { kind: 'three_ds'; flwRef: string }
  | { kind: 'verify' }
  | { kind: 'transfer' }
  | { kind: 'refund'; chargeId: number }
  | { kind: 'list'; resource: Exclude<RailResource, 'collection'> }
  | { kind: 'statement'; product: RailProduct; format: 'json' | 'csv' }
  | { kind: 'pay'; txRef: string }
  | { kind: 'declining' };

function route(method: string, path: string): Route | null {
  if (method === 'POST' && path === PATH.charges) return { kind: 'charge' };
  if (method === 'POST' && path === CARD_PATH.validateCharge) return { kind: 'validate' };
  if ((method === 'GET' || method === 'POST') && path.startsWith(CARD_PATH.fakeThreeDs) && path.length > CARD_PATH.fakeThreeDs.length) return { kind: 'three_ds', flwRef: decodeURIComponent(path.slice(CARD_PATH.fakeThreeDs.length)) };
  if (method === 'GET' && path === PATH.verifyCharge) return { kind: 'verify' };
  if (method === 'POST' && path === PATH.transfers) return { kind: 'transfer' };
  if (method === 'GET' && path === PATH.transfers) return { kind: 'list', resource: 'disbursement' };
  if (method === 'GET' && path === PATH.refunds) return { kind: 'list', resource: 'refund' };
  const refund = /^\/v3\/transactions\/([0-9]{1,15})\/refund$/.exec(path);
  if (method === 'POST' && refund) return { kind: 'refund', chargeId: Number(refund[1]) };
  for (const product of ['collection', 'disbursement'] as const) {
    for (const format of ['json', 'csv'] as const) if (method === 'GET' && path === PATH.statement(product, format)) return { kind: 'statement', product, format };
  }
  if (method === 'POST' && path === PATH.fakeDeclining) return { kind: 'declining' };
  if (method === 'POST' && path.startsWith(PATH.fakePay) && path.length > PATH.fakePay.length) return { kind: 'pay', txRef: decodeURIComponent(path.slice(PATH.fakePay.length)) };
  return null;
}

function sendPage(res: ServerResponse, reply: PageReply): void {
  if (res.writableEnded || res.destroyed) return;
  res.writeHead(reply.status, { ...reply.headers, 'content-length': String(Buffer.byteLength(reply.body)) }).end(reply.body);
}

function send(res: ServerResponse, reply: Reply): void {
  if (res.writableEnded || res.destroyed) return;
  if (reply.body === undefined) {
    res.writeHead(reply.status, { 'content-length': '0' }).end();
    return;
  }
  const text = JSON.stringify(reply.body);
  res.writeHead(reply.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
}

async function readBody(req: IncomingMessage): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return null;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function authorized(req: IncomingMessage, secretKey: string): boolean {
  const header = req.headers.authorization ?? '';
  const match = new RegExp(`^${AUTHORIZATION_SCHEME}\\s+(.+)$`, 'i').exec(header);
  if (!match) return false;
  const given = Buffer.from(match[1].trim());
  const expected = Buffer.from(secretKey);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function listReply(resource: 'disbursement' | 'refund', items: unknown[]): Reply {
  return { status: 200, body: { status: 'success', message: resource === 'disbursement' ? 'Transfers fetched' : 'Refunds fetched', meta: { page_info: { total: items.length } }, data: items } };
}

/** The fake aggregator's one request handler (docs/aggregator.md, "The fake aggregator"). */
export function fakeAggregatorHandler(ctx: FakeAggregatorContext): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async (req, res) => {
    const method = req.method ?? 'GET';
    const url = new URL(req.url ?? '/', 'http://fake');
    const text = await readBody(req);
    // A card charge's `client` (the encrypted card) and an OTP are recorded masked.
    ctx.requests.push({ at: Date.now(), method, path: req.url ?? '/', headers: maskHeaders(req.headers), body: recordedBody(text) });
    if (text === null) return send(res, invalid(`bodies are at most ${MAX_BODY_BYTES} bytes`));
    const target = route(method, url.pathname);
    if (!target) return send(res, { status: 404, body: { status: 'error', message: `Route ${method} ${url.pathname.slice(0, 80)} not found`, data: null } });

    if (target.kind === 'three_ds') {
      // The customer's browser on the card issuer's check: no merchant key.
      try {
        return sendPage(res, method === 'GET' ? threeDsPage(ctx.books, target.flwRef) : threeDsSubmit(ctx.books, target.flwRef, text ?? ''));
      } catch {
        return sendPage(res, { status: 400, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: 'Bad request' });
      }
    }

    if (target.kind === 'pay') {
      // The customer paying into the virtual account: no merchant key (docs/aggregator.md).
      const paid = ctx.books.pay(target.txRef);
      if (paid === 'unknown') return send(res, errorAnswer('TRANSACTION_NOT_FOUND'));
      if (paid === 'not_payable') return send(res, { status: 409, body: { status: 'error', message: 'Only a bank transfer still awaiting payment can be paid', data: null } });
      return send(res, { status: 200, body: { status: 'success', message: 'Transfer received', data: chargeView(ctx.books.get('collection', target.txRef)!) } });
    }

    if (!authorized(req, ctx.secretKey)) {
      ctx.log('fake aggregator: call refused (no valid secret key)', { method, path: url.pathname });
      return send(res, errorAnswer('INVALID_AUTHORIZATION'));
    }
    const body = text ? parseJson(text) : undefined;
    const ours = { books: ctx.books, slowMs: ctx.slowMs, declining: () => ctx.modes.declining };

    let reply: Reply;
    switch (target.kind) {
      case 'declining': {
        // A test control (issue 46): the `partner_declining` fault over HTTP, for a fake in its own process.
        const on = (body as { on?: unknown } | undefined)?.on;
        if (typeof on !== 'boolean') return send(res, invalid('on must be true or false'));
        ctx.modes.declining = on;
        ctx.log('fake aggregator: declining mode', { on });
        return send(res, { status: 204 });
      }
      case 'charge':
        reply = url.searchParams.get('type') === CARD_TYPE ? submitCardCharge(ours, ctx.cards, body) : submitCharge(ours, url.searchParams.get('type'), body);
        break;
      case 'validate':
        reply = validateCharge(ctx.books, body);
        break;
      case 'transfer':
        reply = submitTransfer(ours, body);
        break;
      case 'refund':
        reply = submitRefund(ours, target.chargeId, body);
        break;
      case 'verify': {
        const txRef = url.searchParams.get(STATUS_QUERY.collection);
        if (!txRef) return send(res, invalid('tx_ref is required'));
        const charge = ctx.books.get('collection', txRef);
        reply = charge ? { status: 200, body: { status: 'success', message: 'Transaction fetched successfully', data: chargeView(charge) } } : errorAnswer('TRANSACTION_NOT_FOUND');
        break;
      }
      case 'list': {
        const reference = url.searchParams.get(STATUS_QUERY[target.resource]);
        const kept = ctx.books.all().filter((t) => t.resource === target.resource);
        const items = reference === null ? kept : kept.filter((t) => t.referenceId.toLowerCase() === reference.toLowerCase());
        reply = listReply(target.resource, items.map((t) => (t.resource === 'disbursement' ? transferView(t) : refundView(t))));
        break;
      }
      case 'statement': {
        const date = url.searchParams.get('date');
        if (!isStatementDate(date)) return send(res, invalid('date must be a day YYYY-MM-DD'));
        const statement = fakeStatement(ctx.books, target.product, date);
        if (target.format === 'json') return send(res, { status: 200, body: statement });
        const csv = statementToCsv(statement);
        res.writeHead(200, {
          'content-type': 'text/csv; charset=utf-8',
          'content-disposition': `attachment; filename="statement-${target.product}-${date}.csv"`,
          'content-length': Buffer.byteLength(csv),
        }).end(csv);
        return;
      }
    }
    if (reply.status >= 400) ctx.log('fake aggregator: refused', { method, path: url.pathname, status: reply.status, code: (reply.body as { code?: string } | undefined)?.code });
    if (!reply.delayMs) return send(res, reply);
    const timer = setTimeout(() => {
      ctx.timers.delete(timer);
      send(res, reply);
    }, reply.delayMs);
    ctx.timers.add(timer);
  };
}
