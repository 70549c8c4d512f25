/**
 * The aggregator partner (issue 45; docs/aggregator.md): a second live rail, modelled on
 * Flutterwave's v3 API, behind the one PartnerRail interface (src/rail/partner-rail.ts).
 */
export { AggregatorRail, type AggregatorRailOptions } from './adapter';
export { aggregatorConfigFromEnv, aggregatorConfigSummary, type AggregatorConfig } from './config';
export { verifyAggregatorWebhook } from './webhook';
export { startFakeAggregator, type FakeAggregator, type FakeAggregatorOptions, type FakeAggregatorTransaction } from './fake';
export {
  AggregatorCards,
  AUTHORIZATION_NOT_SUPPORTED,
  cardBrand,
  cardProblem,
  type CardChallenge,
  type CardChargeAnswer,
  type CardChargeRequest,
  type CardInput,
  type CardSummary,
  type OtpAnswer,
} from './card';
