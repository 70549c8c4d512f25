import type { IncomingMessage, ServerResponse } from 'node:http';
import { productOfResource, type RailParty, type RailProduct, type RailResource } from '../partner-rail';
import { HEADER, PARTY_FIELD, TRANSACTION_PATH, isReferenceId, type MomoError, type MomoSubmission } from '../momo-protocol';
import { parseJson } from '../momo-status';
import { behaviourOf, type Behaviour } from './behaviours';
import type { FakeAuth } from './auth';
import type { FakeLog } from './callbacks';
import { maskHeaders, type RecordedRequest } from './recording';
import type { FakeTransactions } from './transactions';
import type { FakeStatements } from './statement';
import { isStatementDate, statementToCsv } from '../momo-statement';
import { applyControl, controlRoute, type ControlRoute } from './control';
import { partySubmission } from './submission';
import { checkRefund } from './refunds';

export const MAX_BODY_BYTES = 64 * 1024;

export interface FakeHandlerContext {
  auth: FakeAuth;
  transactions: FakeTransactions;
  statements: FakeStatements;
  targetEnvironment: string;
  slowMs: number;
  requests: RecordedRequest[];
  log: FakeLog;
  /** Slow answers waiting, cleared by close. */
  timers: Set<NodeJS.Timeout>;
  /** Issue 46: the `partner_declining` fault (setDeclining): new requests-to-pay and transfers refused 400 COULD_NOT_PERFORM_TRANSACTION. */
  modes: { declining: boolean };
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function answer(res: ServerResponse, status: number, body?: unknown): void {
  if (res.writableEnded || res.destroyed) return;
  if (body === undefined) {
    res.writeHead(status, { 'content-length': '0' }).end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
}

function error(code: string, message: string): MomoError {
  return { code, message };
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

type Route =
  | { kind: 'token'; product: RailProduct }
  | { kind: 'submit'; product: RailProduct; resource: RailResource }
  | { kind: 'status'; product: RailProduct; resource: RailResource; referenceId: string }
  | { kind: 'statement'; product: RailProduct; format: 'json' | 'csv' }
  | { kind: 'control'; product: RailProduct; control: ControlRoute };

function route(method: string, path: string): Route | null {
  for (const product of ['collection', 'disbursement'] as const) {
    if (method === 'POST' && (path === `/${product}/token/` || path === `/${product}/token`)) return { kind: 'token', product };
    if (method === 'GET' && path === `/${product}/v1_0/statement`) return { kind: 'statement', product, format: 'json' };
    if (method === 'GET' && path === `/${product}/v1_0/statement.csv`) return { kind: 'statement', product, format: 'csv' };
    const control = controlRoute(product, method, path);
    if (control) return { kind: 'control', product, control };
  }
  // A refund is a resource of the disbursement product: its token, credentials and statement (issue 45).
  for (const resource of ['collection', 'disbursement', 'refund'] as const) {
    const product = productOfResource(resource);
    const base = TRANSACTION_PATH[resource];
    if (method === 'POST' && path === base) return { kind: 'submit', product, resource };
    if (method === 'GET' && path.startsWith(`${base}/`)) return { kind: 'status', product, resource, referenceId: decodeURIComponent(path.slice(base.length + 1)) };
  }
  return null;
}

/** The fake partner's one request handler (docs/partner-rail.md, "The fake partner"). */
export function fakePartnerHandler(ctx: FakeHandlerContext): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async (req, res) => {
    const method = req.method ?? 'GET';
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const text = await readBody(req);
    const recorded: RecordedRequest = { at: Date.now(), method, path: req.url ?? '/', headers: maskHeaders(req.headers), body: text ? (parseJson(text) ?? text) : undefined };
    ctx.requests.push(recorded);
    if (text === null) return answer(res, 413, error('REQUEST_TOO_LARGE', `bodies are at most ${MAX_BODY_BYTES} bytes`));

    const target = route(method, path);
    if (!target) return answer(res, 404, error('RESOURCE_NOT_FOUND', 'Requested resource was not found.'));
    const { product } = target;

    if (target.kind === 'token') {
      const token = ctx.auth.issue(product, req.headers);
      if (!token) {
        ctx.log('fake partner: token refused (wrong api user, api key or subscription key)', { product });
        return answer(res, 401, { error: 'login_failed' });
      }
      return answer(res, 200, token);
    }

    if (!ctx.auth.allows(product, req.headers)) {
      ctx.log('fake partner: call refused (no valid bearer token or subscription key)', { product, method, path });
      return answer(res, 401, { statusCode: 401, message: 'Access denied due to invalid subscription key or access token.' });
    }
    if (header(req, HEADER.targetEnvironment) !== ctx.targetEnvironment) {
      return answer(res, 403, error('NOT_ALLOWED_TARGET_ENVIRONMENT', 'Access to target environment is forbidden.'));
    }

    if (target.kind === 'control') {
      const done = applyControl(target.control, product, text ? parseJson(text) : undefined, ctx);
      return answer(res, done.status, done.message ? error('INVALID_REQUEST', done.message) : undefined);
    }

    if (target.kind === 'statement') {
      const date = new URLSearchParams((req.url ?? '').split('?')[1] ?? '').get('date');
      if (!isStatementDate(date)) return answer(res, 400, error('INVALID_DATE', 'date must be a day YYYY-MM-DD.'));
      const statement = ctx.statements.statement(product, date);
      if (target.format === 'json') return answer(res, 200, statement);
      const csv = statementToCsv(statement);
      res.writeHead(200, {
        'content-type': 'text/csv; charset=utf-8',
        'content-disposition': `attachment; filename="statement-${product}-${date}.csv"`,
        'content-length': Buffer.byteLength(csv),
      }).end(csv);
      return;
    }

    if (target.kind === 'status') {
      const found = ctx.transactions.get(target.resource, target.referenceId);
      if (!found) return answer(res, 404, error('RESOURCE_NOT_FOUND', 'Requested resource was not found.'));
      return answer(res, 200, found.state);
    }

    const referenceId = header(req, HEADER.referenceId) ?? '';
    if (!isReferenceId(referenceId)) return answer(res, 400, error('INVALID_REFERENCE_ID', 'X-Reference-Id must be a UUID.'));
    const callbackUrl = header(req, HEADER.callbackUrl);
    if (callbackUrl !== undefined && !/^https?:\/\/[^/\s]+/i.test(callbackUrl)) return answer(res, 400, error('INVALID_CALLBACK_URL_HOST', 'X-Callback-Url is not a valid URL.'));
    const { resource } = target;
    const known = ctx.transactions.get(resource, referenceId);
    if (known?.behaviour === 'duplicate_refused' || known?.behaviour === 'pending_duplicate_refused') {
      // 0013, 0014: this partner validates a submission before it de-duplicates it; the first goes on.
      ctx.log('fake partner: duplicate reference refused with a 400 (behaviour 0013 or 0014)', { product: resource, referenceId });
      return answer(res, 400, error('NOT_ALLOWED', 'A transaction with this X-Reference-Id is already being processed.'));
    }
    if (known) {
      ctx.log('fake partner: duplicate reference refused', { product: resource, referenceId });
      return answer(res, 409, error('RESOURCE_ALREADY_EXIST', 'Duplicated reference id. Creation of resource failed.'));
    }
    const body = text ? parseJson(text) : undefined;
    let parsed: MomoSubmission;
    let behaviour: Behaviour;
    if (resource === 'refund') {
      // Checked against the request-to-pay it refunds (src/rail/fake-partner/refunds.ts); it plays what that payer chooses.
      const verdict = checkRefund(ctx.transactions, body);
      if ('refused' in verdict) {
        ctx.log('fake partner: refund refused', { referenceId, code: verdict.refused.code });
        return answer(res, verdict.refused.status, error(verdict.refused.code, verdict.refused.message));
      }
      ({ accepted: parsed, behaviour } = verdict);
    } else {
      const submission = partySubmission(resource, body);
      if (typeof submission === 'string') return answer(res, 400, error('INVALID_REQUEST', submission));
      parsed = submission;
      behaviour = behaviourOf((parsed[PARTY_FIELD[resource]] as RailParty).partyId);
    }
    if (ctx.modes.declining && resource !== 'refund') {
      ctx.log('fake partner: declining (the partner_declining fault)', { product: resource, referenceId });
      return answer(res, 400, error('COULD_NOT_PERFORM_TRANSACTION', 'The transaction cannot be performed now.'));
    }
    if (behaviour === 'refuse_now') {
      // A refund's recipient is the request-to-pay's payer: the payee of the money going back.
      const code = resource === 'collection' ? 'PAYER_NOT_FOUND' : 'PAYEE_NOT_FOUND';
      return answer(res, 404, error(code, resource === 'collection' ? 'Payer not found.' : 'Payee not found.'));
    }
    if (behaviour === 'error_once' && !ctx.transactions.failedOnce(resource, referenceId)) {
      return answer(res, 500, error('INTERNAL_PROCESSING_ERROR', 'An internal error occurred while processing.'));
    }
    ctx.transactions.accept(resource, referenceId, behaviour, parsed, callbackUrl);
    if (behaviour === 'slow') {
      const timer = setTimeout(() => {
        ctx.timers.delete(timer);
        answer(res, 202);
      }, ctx.slowMs);
      ctx.timers.add(timer);
      return;
    }
    return answer(res, 202);
  };
}
