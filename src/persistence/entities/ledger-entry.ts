import { defineEntity, p } from '@mikro-orm/postgresql';

/** One leg of a double-entry transfer. Rows are only ever inserted. */
export const LedgerEntry = defineEntity({
  name: 'LedgerEntry',
  tableName: 'ledger_entries',
  properties: {
    transferId: p.string().primary(),
    account: p.string().primary(),
    kind: p.string(),
    merchantId: p.string(),
    environment: p.string(),
    currency: p.string(),
    amount: p.bigint('number'),
    resourceId: p.string(),
    createdAt: p.datetime(),
  },
});
