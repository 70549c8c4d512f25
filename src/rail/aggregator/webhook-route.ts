/**
 * Where the aggregator's webhooks reach us: the one webhook URL of the account, on the live listener
 * (src/http/routes/aggregator-webhooks.ts). Set it in the aggregator's dashboard as
 * `<live listener's public URL>/partner/aggregator/webhooks`; `npm start` sets its fake's.
 */
export const AGGREGATOR_WEBHOOK_ROUTE = '/partner/aggregator/webhooks';
