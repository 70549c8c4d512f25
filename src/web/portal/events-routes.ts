import { EVENT_TYPES } from '../../domain/event-types';
import { isIdOf } from '../../domain/ids';
import { eventsAfter, eventsNewestFirst, findEventBody } from '../../persistence/events/event-store';
import { eventPage, eventRowOf, eventsPage } from './events-page';
import { callerOf, frameOf, html, notFoundText, type PortalRoutes } from './kit';

export const EVENTS_PATH = '/events';
/** Events per page. */
export const EVENTS_PAGE_SIZE = 25;

/**
 * `from` (the first sequence to show) read strictly, as the API reads `after_sequence`: digits only,
 * no leading zero, at least 1, an exact integer (the page shows from `from`, the API after
 * `from - 1`). Absent: 1, the start of the log.
 */
export function parseFrom(raw: unknown): number | null {
  if (raw === undefined) return 1;
  if (typeof raw !== 'string' || !/^[1-9][0-9]{0,15}$/.test(raw)) return null;
  const n = Number(raw);
  return Number.isSafeInteger(n) ? n : null;
}

/**
 * `type` (repeated, as the API's `type`: the filter form's ticked boxes) read strictly: each one of
 * GET /v1/event-types, a repeat ignored. Absent: every type ([]); anything else: null (refused).
 */
export function parseTypes(raw: unknown): string[] | null {
  if (raw === undefined) return [];
  const values = Array.isArray(raw) ? raw : [raw];
  if (!values.every((v) => typeof v === 'string' && EVENT_TYPES.some((t) => t.type === v))) return null;
  return [...new Set(values as string[])];
}

/**
 * Events: the session's merchant and environment's event log, walked by sequence with the API's own
 * store functions (GET /v1/events: eventsAfter oldest first, eventsNewestFirst for where the newest
 * page starts), filtered by type as `GET /v1/events?type=` filters (the same store functions, the
 * same index), and one event's stored JSON.
 */
export const eventsRoutes: PortalRoutes = (router, kit) => {
  const { orm } = kit.deps;

  router.get(EVENTS_PATH, async (ctx) => {
    const session = await kit.page(ctx);
    if (!session) return;
    const caller = callerOf(session);
    const frame = frameOf(session, EVENTS_PATH);
    const types = parseTypes(ctx.query.type);
    if (types === null) {
      html(ctx, 400, eventsPage(frame, { from: 1, types: [], rows: [], hasMore: false, latestFrom: null, error: 'Choose the event types from the list.' }));
      return;
    }
    const filter = types.length ? types : null;
    const newest = await eventsNewestFirst(orm, caller.merchantId, caller.environment, null, EVENTS_PAGE_SIZE, filter);
    const latestFrom = newest.lastSequence;
    const from = parseFrom(ctx.query.from);
    if (from === null) {
      html(ctx, 400, eventsPage(frame, { from: 1, types, rows: [], hasMore: false, latestFrom, error: 'The sequence to start at must be a whole number, 1 or more.' }));
      return;
    }
    const page = await eventsAfter(orm, caller.merchantId, caller.environment, from - 1, EVENTS_PAGE_SIZE, filter);
    html(ctx, 200, eventsPage(frame, { from, types, rows: page.bodies.map(eventRowOf), hasMore: page.hasMore, latestFrom }));
  });

  router.get(`${EVENTS_PATH}/:id`, async (ctx) => {
    const session = await kit.page(ctx);
    if (!session) return;
    const id = ctx.params.id ?? '';
    const caller = callerOf(session);
    const body = isIdOf('event', id) ? await findEventBody(orm, caller.merchantId, caller.environment, id) : null;
    if (body === null) return notFoundText(ctx);
    html(ctx, 200, eventPage(frameOf(session, EVENTS_PATH), eventRowOf(body), body));
  });
};
