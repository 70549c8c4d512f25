import Router from '@koa/router';
import { EVENT_TYPES } from '../../domain/event-types';
import { ApiError } from '../../domain/errors';
import { eventsAfter, eventsNewestFirst, firstSequenceSince, type EventPage } from '../../persistence/events/event-store';
import { DEFAULT_EVENTS_WALK_WINDOW_MS } from '../../runtime/retention-settings';
import type { Caller, ServiceDeps } from '../../services/context';
import { requireScope } from '../middleware/auth';
import { eventTypesOf } from '../schemas/event-type-filter';
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

const windowText = (ms: number) => (ms % 86_400_000 === 0 ? `${ms / 86_400_000} days` : `${Math.round(ms / 3_600_000)} hours`);

/**
 * The walkable window (SPEC 8: 90 days; EVENTS_WALK_WINDOW): events are never deleted, but a walk
 * whose position is behind the window (its next event is older) is refused with 410 `events_expired`
 * rather than answered, so the window a client can rely on is the one the spec promises, and a walk
 * never silently skips events if older ones are ever archived. The position is checked, not each
 * event: a page that begins inside the window is answered whole, and the first page of a walk always is.
 *
 * A walk filtered by `type` is checked on its own page: its next event is the next one of those types.
 * The `after_sequence` to go on from is the log's (firstSequenceSince takes no type): from it, the
 * filtered walk answers that type's events inside the window, as the unfiltered walk answers every one.
 */
async function refuseBeforeWindow(deps: ServiceDeps, caller: Caller, page: EventPage, position: { afterSequence: number } | { cursor: true }, types: readonly string[] | null): Promise<void> {
  const windowMs = deps.eventsWalkWindowMs ?? DEFAULT_EVENTS_WALK_WINDOW_MS;
  if (!page.firstCreatedAt) return;
  const since = new Date(Date.now() - windowMs);
  if (page.firstCreatedAt >= since) return;
  if ('cursor' in position) {
    throw new ApiError('events_expired', `The events before this cursor are older than the walkable window (${windowText(windowMs)}): the newest-first walk ends here.`, { param: 'cursor' });
  }
  const resume = await firstSequenceSince(deps.orm, caller.merchantId, caller.environment, position.afterSequence, since);
  // A filtered walk goes on filtered: the message says to keep the same `type` parameters.
  const keep = types ? ` and the same type parameter${types.length > 1 ? 's' : ''} (${types.map((t) => `type=${t}`).join('&')})` : '';
  const next = resume === null ? `no event after it is inside the window yet: walk on from the newest (GET /v1/events without after_sequence${keep})` : `go on with after_sequence=${resume - 1}${keep}`;
  throw new ApiError('events_expired', `after_sequence ${position.afterSequence} is before the walkable window (${windowText(windowMs)}): the events after it are older than that; ${next}.`, { param: 'after_sequence' });
}

export function eventRoutes(deps: ServiceDeps): Router {
  const router = new Router();

  router.get('/v1/events', requireScope('events:read'), async (ctx) => {
    const query = { ...ctx.query };
    if (query.after_sequence !== undefined && query.cursor !== undefined) {
      throw new ApiError('invalid_request', 'after_sequence (oldest first) and cursor (newest first) cannot be combined.', { param: 'cursor' });
    }
    const types = eventTypesOf(query, 'type') ?? null;
    const q = check(validateListEvents, query);
    const limit = q.limit ? Number(q.limit) : 10;
    const caller = ctx.state.caller as Caller;
    ctx.type = 'application/json';
    if (q.after_sequence !== undefined) {
      const after = exactSequence(q.after_sequence);
      if (after === undefined) throw new ApiError('invalid_request', `after_sequence must be an integer from 0 to ${Number.MAX_SAFE_INTEGER}.`, { param: 'after_sequence' });
      const page = await eventsAfter(deps.orm, caller.merchantId, caller.environment, after, limit, types);
      await refuseBeforeWindow(deps, caller, page, { afterSequence: after }, types);
      ctx.body = renderPage(page, false);
    } else {
      const before = q.cursor ? decodeCursor(q.cursor) : null;
      const page = await eventsNewestFirst(deps.orm, caller.merchantId, caller.environment, before, limit, types);
      if (before !== null) await refuseBeforeWindow(deps, caller, page, { cursor: true }, types);
      ctx.body = renderPage(page, true);
    }
  });

  router.get('/v1/event-types', async (ctx) => {
    ctx.body = { object: 'list', data: EVENT_TYPES.map((t) => ({ object: 'event_type', ...t })), has_more: false };
  });

  return router;
}
