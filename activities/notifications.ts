import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import {
  loadMessageParts,
  loadNotificationContext,
  markNotificationSkipped,
  recordNotificationAttempt,
  type MessageParts,
  type NotificationContext,
  type RecordedNotificationAttempt,
} from '../src/persistence/notifications/notification-attempt-store';
import type { Orm } from '../src/persistence/orm';
import { addressOf, type NotificationConfig } from '../src/notifications/notification-config';
import { notificationTransports } from '../src/notifications/notification-transports';
import { customerContact, type Contact } from '../src/notifications/recipient';
import { renderEmail, renderSms } from '../src/notifications/templates';
import { oneLine, SendFailure, type NotificationTransports, type Sent } from '../src/notifications/transport';
import type { SecretBox } from '../src/support/secret-box';
import type { NotificationActivities, SendNotificationInput, SendNotificationOutcome } from './notification-types';
import { processDbQueues, READ_WAIT_MAX_MS, RECORD_RESERVE_MS } from './webhooks';
import { environmentOfQueue } from '../src/webhooks/db-queue';
import type { Environment } from '../src/domain/environment';
import { heartbeatingAttempt } from './attempt-heartbeat';

export interface NotificationActivityDeps {
  orm: Orm;
  /** Opens the customer's identifier (payment_parties). */
  secretBox: SecretBox;
  /** The settings: the transports (SMTP, the SMS provider, or files) and NOTIFICATION_FROM. */
  config: NotificationConfig;
  /** Instead of the transports the settings name (tests). */
  transports?: NotificationTransports;
  /** The process's webhook database lanes (WEBHOOK_DB_CONNECTIONS by environment), which notification attempts share. */
  dbLanes?: Partial<Record<Environment, number>>;
}

type Composed = { skip: string } | { contact: Contact; subject: string | null; text: string; html: string | null };

/** Where the message goes and what it says, or why nothing is sent. Never throws for missing data: that is a skip. */
function compose(n: NotificationContext, parts: MessageParts | null, box: SecretBox): Composed {
  if (!parts) return { skip: n.kind === 'portal_password_reset' ? 'the password reset was used, replaced or expired' : 'its event or dispute no longer exists' };
  if (n.kind === 'dispute_deadline' && !parts.disputeOpen) return { skip: 'the dispute no longer waits for evidence' };
  let contact: Contact | null;
  if (n.recipient === 'merchant') {
    if (!parts.merchantEmail) return { skip: 'the merchant has no notification email (merchants set ID --notification-email EMAIL)' };
    contact = { channel: 'email', to: parts.merchantEmail };
  } else {
    if (!parts.partySealed) return { skip: 'no customer identifier was kept for this charge' };
    contact = customerContact(box.open(parts.partySealed), String(parts.resource.channel ?? ''));
    if (!contact) return { skip: 'the customer identifier is neither an email address nor a mobile-money phone number' };
  }
  // A password reset's link is opened only here, to write the email (it is sealed at rest).
  const resource = typeof parts.resource.link_sealed === 'string' ? { ...parts.resource, link_sealed: undefined, link: box.open(parts.resource.link_sealed) } : parts.resource;
  const input = { kind: n.kind, environment: n.environment, merchantName: parts.merchantName, resource, occurredAt: parts.occurredAt, minorUnits: parts.minorUnits };
  if (contact.channel === 'sms') return { contact, subject: null, text: renderSms(input), html: null };
  const email = renderEmail(input);
  return { contact, subject: email.subject, text: email.text, html: email.html };
}

function outcomeOf(recorded: RecordedNotificationAttempt): SendNotificationOutcome {
  return { outcome: recorded.outcome, reason: recorded.error, retryInMs: recorded.retryInMs, providerMessageId: recorded.providerMessageId };
}

/** A notification closed before this attempt (skipped, sent or failed by an earlier run): nothing more to send. */
function closed(n: NotificationContext): SendNotificationOutcome {
  return { outcome: n.status === 'sent' ? 'sent' : n.status === 'failed' ? 'failed' : 'skipped', reason: n.lastError, retryInMs: null, providerMessageId: null };
}

function count(outcome: string, n: NotificationContext, channel: string): void {
  Context.current()
    .metricMeter.createCounter('payments_notifications', '1', 'Notification attempts by outcome, environment and channel')
    .add(1, { outcome, environment: n.environment, channel });
}

export function createNotificationActivities(deps: NotificationActivityDeps): NotificationActivities {
  const queues = processDbQueues(deps.dbLanes);
  /**
   * The lane of the notification's environment (from its task queue, `<base>-<environment>-webhooks`);
   * reads wait READ_WAIT_MAX_MS at most and end on cancellation, records go first (src/webhooks/db-queue.ts).
   */
  const db = <T>(fn: () => Promise<T>, step: 'read' | 'record' = 'read'): Promise<T> => {
    const activity = Context.current();
    return queues.run(environmentOfQueue(activity.info.taskQueue), step, fn, step === 'read' ? { waitMs: READ_WAIT_MAX_MS, signal: activity.cancellationSignal } : { waitMs: RECORD_RESERVE_MS });
  };
  const from = deps.config.from;
  const domain = addressOf(from).split('@')[1];
  // Built once per process; none of them connects before its first message.
  const transports = deps.transports ?? notificationTransports(deps.config);

  async function attempt(input: SendNotificationInput): Promise<SendNotificationOutcome> {
    const n = await db(() => loadNotificationContext(deps.orm, input.notificationId, input.attempt));
    if (!n) throw ApplicationFailure.create({ type: 'NotificationNotFoundError', message: `notification ${input.notificationId} does not exist`, nonRetryable: true });
    // A retried activity whose attempt was recorded: answer what was recorded, never send it twice.
    if (n.recorded) return outcomeOf(n.recorded);
    if (n.status !== 'pending') return closed(n);
    const composed = compose(n, await db(() => loadMessageParts(deps.orm, n)), deps.secretBox);
    if ('skip' in composed) {
      await db(() => markNotificationSkipped(deps.orm, n.id, composed.skip), 'record');
      count('skipped', n, n.channel ?? 'none');
      Context.current().log.info('notification skipped', { notificationId: n.id, kind: n.kind, environment: n.environment, reason: composed.skip });
      return { outcome: 'skipped', reason: composed.skip, retryInMs: null, providerMessageId: null };
    }

    const { contact } = composed;
    let sent: Sent | undefined;
    let failure: SendFailure | undefined;
    try {
      sent =
        contact.channel === 'sms'
          ? await transports.sms.send({ notificationId: n.id, to: contact.to, text: composed.text, date: n.createdAt })
          : await transports.email.send({
              notificationId: n.id,
              from,
              to: contact.to,
              subject: composed.subject!,
              text: composed.text,
              html: composed.html!,
              messageId: `<${n.id}@${domain}>`,
              date: n.createdAt,
            });
    } catch (error) {
      failure = error instanceof SendFailure ? error : new SendFailure(oneLine(error instanceof Error ? error.message : String(error)), false);
    }
    const retryInMs = sent || failure!.permanent ? null : input.retryDelayMs;
    const recorded = await db(() =>
      recordNotificationAttempt(deps.orm, {
        notificationId: n.id,
        attempt: input.attempt,
        attemptedAt: new Date(input.attemptedAtMs),
        outcome: sent ? 'sent' : 'failed',
        error: failure ? failure.message : null,
        retryInMs,
        providerMessageId: sent ? sent.providerMessageId : null,
      }),
      'record',
    );
    count(sent ? 'sent' : 'failed', n, contact.channel);
    const log = { notificationId: n.id, kind: n.kind, environment: n.environment, channel: contact.channel, attempt: input.attempt };
    if (sent) Context.current().log.info('notification sent', log);
    else Context.current().log.warn('notification attempt failed', { ...log, reason: failure!.message, permanent: failure!.permanent, retryInMs });
    if (!recorded.inserted) Context.current().log.warn('notification attempt already recorded by another execution', log);
    return outcomeOf(recorded.recorded);
  }

  return {
    sendNotification: (input: SendNotificationInput): Promise<SendNotificationOutcome> => heartbeatingAttempt(() => attempt(input)),
  };
}
