import { defineEntity, p } from '@mikro-orm/postgresql';

export const Merchant = defineEntity({
  name: 'Merchant',
  tableName: 'merchants',
  properties: {
    id: p.string().primary(),
    name: p.text(),
    verifiedAt: p.datetime().nullable(),
    createdAt: p.datetime(),
  },
});
