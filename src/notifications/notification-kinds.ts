import type { Environment } from '../domain/environment';
/**
 * What is sent when (issue 20; docs/notifications.md). Each event type that notifies names one
 * notification kind and its recipient: the customer gets a receipt for a succeeded charge, the
 * merchant an email for a payout held for review, a settlement paid or failed and a dispute opened.
 * `dispute_deadline` has no event: the relay finds disputes whose evidence is due soon.
 * `settlement_account_changed` has no event either: `merchants set` writes it with the change that
 * replaced the merchant's settlement account (issue 43), its source that change's audit row.
 * `portal_password_reset` neither: the portal's reset form writes it with the reset (issue 47), to the
 * portal user's own email (not the merchant's notification address), its source the reset's row.
 */
export const NOTIFICATION_KINDS = ['charge_receipt', 'payout_held_for_review', 'settlement_paid', 'settlement_failed', 'dispute_opened', 'dispute_deadline', 'settlement_account_changed', 'portal_password_reset'] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

export type Recipient = 'customer' | 'merchant';
export type NotificationChannel = 'email' | 'sms';

/** What a notification row is about and to whom, as the relay writes it and an attempt reads it. */
export interface NotificationSubject {
  id: string;
  merchantId: string;
  environment: Environment;
  kind: NotificationKind;
  recipient: Recipient;
  sourceId: string;
  resourceId: string;
  channel: NotificationChannel | null;
}

/**
 * The event types that notify. The `events` trigger of migration 20261128000004 queues exactly these
 * (a type added here needs a new migration that queues it too).
 */
export const NOTIFYING_EVENTS: Readonly<Record<string, { kind: NotificationKind; recipient: Recipient }>> = {
  'transaction.succeeded': { kind: 'charge_receipt', recipient: 'customer' },
  'payout.held_for_review': { kind: 'payout_held_for_review', recipient: 'merchant' },
  'settlement.paid': { kind: 'settlement_paid', recipient: 'merchant' },
  'settlement.failed': { kind: 'settlement_failed', recipient: 'merchant' },
  'dispute.opened': { kind: 'dispute_opened', recipient: 'merchant' },
};

export function isNotificationKind(text: string): text is NotificationKind {
  return (NOTIFICATION_KINDS as readonly string[]).includes(text);
}

/** Why a merchant's notification is skipped when it has no address. */
export const MERCHANT_WITHOUT_EMAIL = 'the merchant has no notification email (merchants set ID --notification-email EMAIL)';
