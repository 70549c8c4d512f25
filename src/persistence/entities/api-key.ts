import { defineEntity, p } from '@mikro-orm/postgresql';

/** An API key; only the SHA-256 of its secret is stored. */
export const ApiKey = defineEntity({
  name: 'ApiKey',
  tableName: 'api_keys',
  properties: {
    id: p.string().primary(),
    merchantId: p.string(),
    environment: p.string(),
    secretHash: p.string(),
    /** A recognisable, non-secret form for listings: prefix and last four characters. */
    display: p.string(),
    scopes: p.array(),
    revokedAt: p.datetime().nullable(),
    createdAt: p.datetime(),
    /** A rolled key's end (`keys roll --expires-in`); null: no expiry. */
    expiresAt: p.datetime().nullable(),
    /** The key that replaced this one (`keys roll`). */
    rolledTo: p.string().nullable(),
    /** Last request it authenticated, to the minute (merchant-store.ts findKeyBySecret). */
    lastUsedAt: p.datetime().nullable(),
  },
});
