import { defineEntity, p } from '@mikro-orm/postgresql';

/** The event log and outbox: `body` is the event serialised once, served and signed as those bytes. */
export const Event = defineEntity({
  name: 'Event',
  tableName: 'events',
  properties: {
    id: p.string().primary(),
    merchantId: p.string(),
    environment: p.string(),
    sequence: p.bigint('number'),
    type: p.string(),
    resourceType: p.string(),
    resourceId: p.string(),
    dedupeKey: p.string(),
    body: p.text(),
    createdAt: p.datetime(),
  },
});
