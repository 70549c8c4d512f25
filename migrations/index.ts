import { Migration20261122000001_initial_schema } from './Migration20261122000001_initial_schema';
import { Migration20261122000002_reference_data } from './Migration20261122000002_reference_data';
import { Migration20261122000003_webhooks } from './Migration20261122000003_webhooks';
import { Migration20261123000001_delivery_start } from './Migration20261123000001_delivery_start';
import { Migration20261123000002_account_balances } from './Migration20261123000002_account_balances';
import { Migration20261123000003_charge_workflow_start } from './Migration20261123000003_charge_workflow_start';
import { Migration20261123000004_outbox_notify } from './Migration20261123000004_outbox_notify';
import { Migration20261124000001_idempotency_retention } from './Migration20261124000001_idempotency_retention';
import { Migration20261124000002_payouts } from './Migration20261124000002_payouts';
import { Migration20261124000003_refunds } from './Migration20261124000003_refunds';
import { Migration20261125000001_settlements } from './Migration20261125000001_settlements';
import { Migration20261125000002_disputes } from './Migration20261125000002_disputes';
import { Migration20261125000003_balance_transactions } from './Migration20261125000003_balance_transactions';
import { Migration20261125000004_settlement_runs } from './Migration20261125000004_settlement_runs';
import { Migration20261125000005_settlement_accounts_sealed } from './Migration20261125000005_settlement_accounts_sealed';
import { Migration20261126000001_operator_audit } from './Migration20261126000001_operator_audit';
import { Migration20261127000001_webhook_deliveries_pending } from './Migration20261127000001_webhook_deliveries_pending';
import { Migration20261128000001_api_key_roll } from './Migration20261128000001_api_key_roll';
import { Migration20261128000002_rate_limits } from './Migration20261128000002_rate_limits';
import { Migration20261128000003_live_rail } from './Migration20261128000003_live_rail';
import { Migration20261128000004_notifications } from './Migration20261128000004_notifications';
import { Migration20261128000005_checkout } from './Migration20261128000005_checkout';
import { Migration20261128000006_portal_users } from './Migration20261128000006_portal_users';
import { Migration20261128000007_events_by_resource } from './Migration20261128000007_events_by_resource';
import { Migration20261201000001_reconciliation } from './Migration20261201000001_reconciliation';
import { Migration20261204000001_partner_transaction_id } from './Migration20261204000001_partner_transaction_id';
import { Migration20261202000001_late_answers } from './Migration20261202000001_late_answers';
import { Migration20261203000001_live_limits_per_currency } from './Migration20261203000001_live_limits_per_currency';
import { Migration20261205000001_portal_sign_in } from './Migration20261205000001_portal_sign_in';
import { Migration20261207000001_partner_callback_signals } from './Migration20261207000001_partner_callback_signals';
import { Migration20261208000001_bulk_selections } from './Migration20261208000001_bulk_selections';
import { Migration20261209000001_webhook_retired_secrets } from './Migration20261209000001_webhook_retired_secrets';
import { Migration20261209000002_webhook_redispatches } from './Migration20261209000002_webhook_redispatches';
import { Migration20261210000001_retention_indexes } from './Migration20261210000001_retention_indexes';
import { Migration20261211000001_relay_claim_indexes } from './Migration20261211000001_relay_claim_indexes';
import { Migration20261212000001_sweep_marks_balance_days } from './Migration20261212000001_sweep_marks_balance_days';
import { Migration20261213000001_list_filter_indexes } from './Migration20261213000001_list_filter_indexes';
import { Migration20261213000002_delivery_status_index } from './Migration20261213000002_delivery_status_index';
import { Migration20261214000001_balance_day_index } from './Migration20261214000001_balance_day_index';

/**
 * Every migration, in order. Landed migrations are never edited: add a new one. The pending ones run
 * together in one transaction (`allOrNothing`, persistence/orm.ts), on the application pool, whose statement_timeout is 20 s: a migration that needs
 * longer begins with `this.addSql('set local statement_timeout = 0')`.
 */
export const MIGRATIONS = [
  { name: 'Migration20261122000001_initial_schema', class: Migration20261122000001_initial_schema },
  { name: 'Migration20261122000002_reference_data', class: Migration20261122000002_reference_data },
  { name: 'Migration20261122000003_webhooks', class: Migration20261122000003_webhooks },
  { name: 'Migration20261123000001_delivery_start', class: Migration20261123000001_delivery_start },
  { name: 'Migration20261123000002_account_balances', class: Migration20261123000002_account_balances },
  { name: 'Migration20261123000003_charge_workflow_start', class: Migration20261123000003_charge_workflow_start },
  { name: 'Migration20261123000004_outbox_notify', class: Migration20261123000004_outbox_notify },
  { name: 'Migration20261124000001_idempotency_retention', class: Migration20261124000001_idempotency_retention },
  { name: 'Migration20261124000002_payouts', class: Migration20261124000002_payouts },
  { name: 'Migration20261124000003_refunds', class: Migration20261124000003_refunds },
  { name: 'Migration20261125000001_settlements', class: Migration20261125000001_settlements },
  { name: 'Migration20261125000002_disputes', class: Migration20261125000002_disputes },
  { name: 'Migration20261125000003_balance_transactions', class: Migration20261125000003_balance_transactions },
  { name: 'Migration20261125000004_settlement_runs', class: Migration20261125000004_settlement_runs },
  { name: 'Migration20261125000005_settlement_accounts_sealed', class: Migration20261125000005_settlement_accounts_sealed },
  { name: 'Migration20261126000001_operator_audit', class: Migration20261126000001_operator_audit },
  { name: 'Migration20261127000001_webhook_deliveries_pending', class: Migration20261127000001_webhook_deliveries_pending },
  { name: 'Migration20261128000001_api_key_roll', class: Migration20261128000001_api_key_roll },
  { name: 'Migration20261128000002_rate_limits', class: Migration20261128000002_rate_limits },
  { name: 'Migration20261128000003_live_rail', class: Migration20261128000003_live_rail },
  { name: 'Migration20261128000004_notifications', class: Migration20261128000004_notifications },
  { name: 'Migration20261128000005_checkout', class: Migration20261128000005_checkout },
  { name: 'Migration20261128000006_portal_users', class: Migration20261128000006_portal_users },
  { name: 'Migration20261128000007_events_by_resource', class: Migration20261128000007_events_by_resource },
  { name: 'Migration20261201000001_reconciliation', class: Migration20261201000001_reconciliation },
  { name: 'Migration20261204000001_partner_transaction_id', class: Migration20261204000001_partner_transaction_id },
  { name: 'Migration20261202000001_late_answers', class: Migration20261202000001_late_answers },
  { name: 'Migration20261203000001_live_limits_per_currency', class: Migration20261203000001_live_limits_per_currency },
  { name: 'Migration20261205000001_portal_sign_in', class: Migration20261205000001_portal_sign_in },
  { name: 'Migration20261207000001_partner_callback_signals', class: Migration20261207000001_partner_callback_signals },
  { name: 'Migration20261208000001_bulk_selections', class: Migration20261208000001_bulk_selections },
  { name: 'Migration20261209000001_webhook_retired_secrets', class: Migration20261209000001_webhook_retired_secrets },
  { name: 'Migration20261209000002_webhook_redispatches', class: Migration20261209000002_webhook_redispatches },
  { name: 'Migration20261210000001_retention_indexes', class: Migration20261210000001_retention_indexes },
  { name: 'Migration20261211000001_relay_claim_indexes', class: Migration20261211000001_relay_claim_indexes },
  { name: 'Migration20261212000001_sweep_marks_balance_days', class: Migration20261212000001_sweep_marks_balance_days },
  { name: 'Migration20261213000001_list_filter_indexes', class: Migration20261213000001_list_filter_indexes },
  { name: 'Migration20261213000002_delivery_status_index', class: Migration20261213000002_delivery_status_index },
  { name: 'Migration20261214000001_balance_day_index', class: Migration20261214000001_balance_day_index },
];
