import Router from '@koa/router';
import { EVENT_TYPES } from '../../domain/event-types';
import { ApiError } from '../../domain/errors';
import { eventsAfter, eventsNewestFirst, type EventPage } from '../../persistence/events/event-store';
import type { Caller, ServiceDeps } from '../../services/context';
import { requireScope } from '../middleware/auth';
import { validateListEvents } from '../schemas/list-events';
import { check } from '../validate';

const encodeCursor = (sequence: number) => Buffer.from(`seq:${sequence}`).toString('base64url');

/** A sequence from a query: an exact integer (no rounding past 2^53), else undefined. */
function exactSequence(digits: string): number | undefined {
  const n = Number(digits);
  return Number.isSafeInteger(n) && String(n) === digits ? n : undefined;
}

/** Strictly the encoding encodeCursor writes (a canonical sequence); anything else is 400 on `cursor`. */
function decodeCursor(cursor: string): number {
  const match = /^seq:(\d{1,16})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  const sequence = match ? exactSequence(match[1]) : undefined;
  if (sequence === undefined || encodeCursor(sequence) !== cursor) throw new ApiError('invalid_request', 'cursor is not one this API returned.', { param: 'cursor' });
  return sequence;
}

/** The list envelope around stored event bodies: each element is the stored bytes, untouched. */
function renderPage(page: EventPage, withCursor: boolean): string {
  const next = withCursor && page.hasMore && page.lastSequence !== null ? `,"next_cursor":${JSON.stringify(encodeCursor(page.lastSequence))}` : '';
  return `{"object":"list","data":[${page.bodies.join(',')}],"has_more":${page.hasMore}${next}}`;
}

export function eventRoutes(deps: ServiceDeps): Router {
  const router = new Router();

  router.get('/v1/events', requireScope('events:read'), async (ctx) => {
    const query = { ...ctx.query };
    if (query.after_sequence !== undefined && query.cursor !== undefined) {
      throw new ApiError('invalid_request', 'after_sequence (oldest first) and cursor (newest first) cannot be combined.', { param: 'cursor' });
    }
    const q = check(validateListEvents, query);
    const limit = q.limit ? Number(q.limit) : 10;
    const caller = ctx.state.caller as Caller;
    ctx.type = 'application/json';
    if (q.after_sequence !== undefined) {
      const after = exactSequence(q.after_sequence);
      if (after === undefined) throw new ApiError('invalid_request', `after_sequence must be an integer from 0 to ${Number.MAX_SAFE_INTEGER}.`, { param: 'after_sequence' });
      ctx.body = renderPage(await eventsAfter(deps.orm, caller.merchantId, caller.environment, after, limit), false);
    } else {
      const before = q.cursor ? decodeCursor(q.cursor) : null;
      ctx.body = renderPage(await eventsNewestFirst(deps.orm, caller.merchantId, caller.environment, before, limit), true);
    }
  });

  router.get('/v1/event-types', async (ctx) => {
    ctx.body = { object: 'list', data: EVENT_TYPES.map((t) => ({ object: 'event_type', ...t })), has_more: false };
  });

  return router;
}
