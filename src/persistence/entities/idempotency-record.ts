import { defineEntity, p } from '@mikro-orm/postgresql';

/** An Idempotency-Key, scoped by merchant and environment, with the first answer once it is known. */
export const IdempotencyRecord = defineEntity({
  name: 'IdempotencyRecord',
  tableName: 'idempotency_keys',
  properties: {
    merchantId: p.string().primary(),
    environment: p.string().primary(),
    key: p.string().primary(),
    requestHash: p.string(),
    resourceId: p.string(),
    state: p.string(),
    responseStatus: p.integer().nullable(),
    responseBody: p.text().nullable(),
    lockedUntil: p.datetime(),
    createdAt: p.datetime(),
  },
});
