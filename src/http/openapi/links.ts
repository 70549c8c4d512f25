/**
 * OpenAPI links (issue 32): from a create to the reads and actions of what it created, and from a list
 * to its first item, so that a stateful client (schemathesis's stateful phase) walks create → get,
 * list, refund, advance, dispute with real ids.
 */
type Link = { operationId: string; parameters?: Record<string, string>; requestBody?: unknown; description?: string };

const id = '$response.body#/id';
const firstId = '$response.body#/data/0/id';
const byId = (operationId: string, expression = id): Link => ({ operationId, parameters: { 'path.id': expression } });
const query = (operationId: string, name: string): Link => ({ operationId, parameters: { [`query.${name}`]: id } });

/** Links of an operation's success answer, by operationId. */
export const LINKS: Record<string, Record<string, Link>> = {
  createCharge: {
    GetCharge: byId('getCharge'),
    RefundCharge: { operationId: 'createRefund', requestBody: { charge: id } },
    AdvanceCharge: byId('sandboxAdvance'),
    DisputeCharge: byId('sandboxOpenDispute'),
    ChargeRefunds: query('listRefunds', 'charge'),
    ChargeDisputes: query('listDisputes', 'charge'),
    ChargeBalanceTransactions: query('listBalanceTransactions', 'source'),
  },
  createRefund: { GetRefund: byId('getRefund'), AdvanceRefund: byId('sandboxAdvance'), RefundBalanceTransactions: query('listBalanceTransactions', 'source') },
  createPayout: { GetPayout: byId('getPayout'), AdvancePayout: byId('sandboxAdvance'), PayoutBalanceTransactions: query('listBalanceTransactions', 'source') },
  sandboxOpenDispute: { GetDispute: byId('getDispute'), SubmitEvidence: byId('submitDisputeEvidence'), AdvanceDispute: byId('sandboxAdvance') },
  createWebhookEndpoint: {
    GetEndpoint: byId('getWebhookEndpoint'),
    UpdateEndpoint: byId('updateWebhookEndpoint'),
    RotateSecret: byId('rotateWebhookSecret'),
    EndpointDeliveries: byId('listWebhookDeliveries'),
    DeleteEndpoint: byId('deleteWebhookEndpoint'),
    RecoverEndpoint: byId('recoverWebhookEndpoint'),
    SkipEvent: byId('skipWebhookEvent'),
  },
  recoverWebhookEndpoint: { GetRecovery: { operationId: 'getWebhookRecovery', parameters: { 'path.id': '$response.body#/endpoint_id', 'path.rid': id } } },
  listCharges: { FirstCharge: byId('getCharge', firstId) },
  listRefunds: { FirstRefund: byId('getRefund', firstId) },
  listPayouts: { FirstPayout: byId('getPayout', firstId) },
  listDisputes: { FirstDispute: byId('getDispute', firstId) },
  listSettlements: { FirstSettlement: byId('getSettlement', firstId), FirstSettlementEntries: byId('listSettlementEntries', firstId) },
  listBalanceTransactions: { FirstBalanceTransaction: byId('getBalanceTransaction', firstId) },
  listWebhookEndpoints: { FirstEndpoint: byId('getWebhookEndpoint', firstId) },
  listWebhookDeliveries: { FirstDelivery: byId('getWebhookDelivery', firstId), ReplayFirstDelivery: byId('replayWebhookDelivery', firstId) },
  getWebhookDelivery: { ReplayDelivery: byId('replayWebhookDelivery') },
};
