/**
 * The notification path of the worker process, in the test process: a payments worker on the
 * harness's task queue built with the given notification settings (as environment variables, read by
 * loadNotificationConfig as workers/main.ts reads them), and the notification relay as workers/main.ts
 * starts it (with a short sweep, so deadline reminders come within a second). Its logs are kept, so a
 * test can look for what must never be logged.
 */
import pino from 'pino';
import type { Environment } from '../../src/domain/environment';
import { loadNotificationConfig, type NotificationConfig } from '../../src/notifications/notification-config';
import { startNotificationRelay, type NotificationRelay } from '../../src/notifications/notification-relay';
import { appendEvent } from '../../src/persistence/events/event-log';
import type { Orm } from '../../src/persistence/orm';
import { randomBase62 } from '../../src/support/new-id';
import type { Harness } from './harness';
import { startBareWorker } from './webhook-fixtures';

export interface NotificationWorker {
  config: NotificationConfig;
  /** Every line the relay logged, as written. */
  logged: string[];
  stop(): Promise<void>;
}

export async function startNotificationWorker(h: Harness, env: Record<string, string>): Promise<NotificationWorker> {
  const config = loadNotificationConfig(env);
  const worker = await startBareWorker(h, { notifications: config });
  const logged: string[] = [];
  const log = pino({ level: 'info' }, { write: (line: string) => logged.push(line) });
  let relay: NotificationRelay;
  try {
    relay = startNotificationRelay(
      { orm: h.orm, client: h.temporal.client, taskQueue: h.taskQueue, secretBox: h.deps.secretBox, log, retryScheduleMs: config.retryScheduleMs, disputeDeadlineWithinMs: config.disputeDeadlineWithinMs, sweepEveryMs: 300 },
      config.pollMs,
    );
  } catch (error) {
    await worker.stop();
    throw error;
  }
  return {
    config,
    logged,
    async stop() {
      await relay.stop();
      await worker.stop();
    },
  };
}

/** An event that notifies someone, written as a state change writes it (its trigger queues it for the relay). */
export async function emitNotifyingEvent(
  orm: Orm,
  merchantId: string,
  environment: Environment,
  type: string,
  resource: Record<string, unknown> & { id: string },
): Promise<string> {
  const resourceType = type.split('.')[0] === 'transaction' ? 'transaction' : type.split('.')[0];
  const appended = await orm.em.fork().transactional((em) =>
    appendEvent(
      em,
      { merchantId, environment, type, resourceType, resourceId: resource.id, createdAt: new Date().toISOString(), dataJson: JSON.stringify(resource) },
      `notification-test-${randomBase62(12)}`,
    ),
  );
  return appended.id;
}

/** A settlement as the API shows it (the `data` of settlement events). */
export function settlementData(environment: Environment, status: 'paid' | 'failed', amount = 1_234_567): Record<string, unknown> & { id: string } {
  const now = new Date().toISOString();
  return {
    id: `stl_${randomBase62(24)}`,
    object: 'settlement',
    status,
    amount,
    currency: 'GHS',
    entry_count: 3,
    period_end: now,
    destination: { bank_code: 'GCB', account_masked: '*********8901' },
    paid_at: status === 'paid' ? now : null,
    ...(status === 'failed' ? { failure_class: 'bank_rejected' } : {}),
    livemode: environment === 'live',
    created_at: now,
    updated_at: now,
    metadata: {},
  };
}

/** The customer's full identifier of a charge, sealed as the create path keeps it (payment_parties). */
export async function keepPaymentParty(h: Harness, paymentId: string, identifier: string): Promise<void> {
  await h.orm.em.getConnection().execute(`insert into payment_parties (payment_id, party_sealed) values (?, ?)`, [paymentId, h.deps.secretBox.seal(identifier)]);
}
