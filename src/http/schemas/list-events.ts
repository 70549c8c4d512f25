import { compile } from '../validate';
import { eventTypesSchema } from './event-type-filter';

export interface ListEventsQuery {
  after_sequence?: string;
  cursor?: string;
  limit?: string;
  /** Made an array by eventTypesOf before the schema reads it. */
  type?: string[];
}

/**
 * GET /v1/events query (the route refuses `after_sequence` with `cursor`); `limit` 1–100; `type` one
 * or more event types, the parameter repeated for several (`type=a&type=b`; a comma-separated list is
 * not read: event-type-filter.ts), each once: only events of those types, in either walk.
 */
export const validateListEvents = compile<ListEventsQuery>({
  type: 'object',
  additionalProperties: false,
  properties: {
    after_sequence: { type: 'string', pattern: '^(0|[1-9][0-9]{0,15})$' },
    cursor: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,40}$' },
    limit: { type: 'string', pattern: '^([1-9]|[1-9][0-9]|100)$' },
    type: eventTypesSchema(),
  },
});
