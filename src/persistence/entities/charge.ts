import { defineEntity, p } from '@mikro-orm/postgresql';

/** A charge: written by the API with its hold and first event, then only by the charge workflow's activities. */
export const Charge = defineEntity({
  name: 'Charge',
  tableName: 'charges',
  properties: {
    id: p.string().primary(),
    merchantId: p.string(),
    environment: p.string(),
    status: p.string(),
    reference: p.string(),
    yourReference: p.text().nullable(),
    amount: p.bigint('number'),
    currency: p.string(),
    channel: p.string(),
    momoNetworkId: p.uuid().nullable(),
    feePlatform: p.bigint('number'),
    feeTax: p.bigint('number'),
    feeBearer: p.string(),
    merchantAmount: p.bigint('number'),
    customerMasked: p.string(),
    customerName: p.text().nullable(),
    description: p.text().nullable(),
    action: p.json<{ type: string; url?: string }>().nullable(),
    metadataJson: p.text(),
    failureClass: p.string().nullable(),
    /** Sum of the charge's succeeded refunds (moved by the refund workflow's success transition). */
    amountRefunded: p.bigint('number').default(0),
    createdAt: p.datetime(),
    expiresAt: p.datetime(),
    updatedAt: p.datetime(),
    /** The partner it went to (`momo`, `aggregator`) or `sandbox` (issue 45; null: a row from before, src/domain/rail-routes.ts railOf). */
    rail: p.string().nullable(),
    /** Issue 46: the partners it may use in order (`momo,aggregator`), decided at creation; null: its one partner, no failover. */
    railRoute: p.string().nullable(),
    /** A live card charge's card (issue 45): its brand and last four digits, set by the hosted page's claim; null otherwise. */
    cardBrand: p.string().nullable(),
    cardLast4: p.string().nullable(),
    /** When the charge's workflow was known to exist (its first step ran, or a start found it); null until then. */
    workflowStartedAt: p.datetime().nullable(),
  },
});
