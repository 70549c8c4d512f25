import { compile } from '../validate';

export interface ListEventsQuery {
  after_sequence?: string;
  cursor?: string;
  limit?: string;
}

/** GET /v1/events query (the route refuses `after_sequence` with `cursor`); `limit` 1–100. */
export const validateListEvents = compile<ListEventsQuery>({
  type: 'object',
  additionalProperties: false,
  properties: {
    after_sequence: { type: 'string', pattern: '^(0|[1-9][0-9]{0,15})$' },
    cursor: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,40}$' },
    limit: { type: 'string', pattern: '^([1-9]|[1-9][0-9]|100)$' },
  },
});
