import { isIdOf } from '../domain/ids';
import { deliveryJson } from '../domain/webhook-delivery';
import { recoveryJson } from '../domain/webhook-recovery';
import { findRecoveryById } from '../persistence/webhooks/webhook-recovery-store';
import { recoverEndpoint, type RecoveryDeps } from '../services/recover-endpoint';
import { skipFifoEvent } from '../services/skip-fifo-event';
import type { Config } from '../config';
import type { Orm } from '../persistence/orm';
import type { TemporalHandle } from '../temporal/connection';
import { act, type CliCommand } from './command';
import { withDatabase, withTemporalAndDatabase } from './connect';
import { auditedActor, merchantIdOption, OPERATOR_HELP, parseEnv, REASON_HELP, sinceOption, UsageError } from './shared';

/**
 * `cli webhooks recover|recovery|skip` (issue 49): an operator recovers what a merchant's endpoint missed,
 * through the same service as the API and the portal (src/services/recover-endpoint.ts: the same
 * checks, the recovery and its `webhook_endpoint.recover` audit row in one transaction, naming the
 * operator and the reason), and reads a recovery's progress; and skips the event a FIFO endpoint's
 * queue is held on (src/services/skip-fifo-event.ts: the `webhook_delivery.skip` audit row, then the
 * endpoint's FIFO workflow told).
 */
export function addWebhookCommands(program: CliCommand): void {
  const webhooks = program.command('webhooks').description("a merchant's webhook endpoints: recover what one missed, follow the recovery, skip the event a FIFO queue is held on");
  const recover = webhooks
    .command('recover')
    .description('send again every event since --since whose last delivery to the endpoint failed or was skipped, as one recovery (audited: webhook_endpoint.recover); prints the recovery')
    .requiredArgument('ENDPOINT_ID', 'the endpoint (we_…)', 'an endpoint id (we_…) is required')
    .option('--since <TIME>', 'an ISO time (2026-12-01T08:00:00Z) or a duration back from now (6h, 2d): not in the future, within EVENTS_WALK_WINDOW')
    .option('--merchant <MERCHANT_ID>', 'the endpoint\'s merchant')
    .option('--env <ENV>', 'the endpoint\'s environment: test or live')
    .option('--reason <TEXT>', REASON_HELP)
    .option('--operator <NAME>', OPERATOR_HELP);
  act(recover, (config, values, [endpointId]) => {
    if (!endpointId || !isIdOf('webhookEndpoint', endpointId)) throw new UsageError('an endpoint id (we_…) is required');
    if (values.since === undefined) throw new UsageError('--since is required (an ISO time, or a duration back from now such as 6h)');
    const since = sinceOption(values.since).toISOString();
    const owner = { merchantId: merchantIdOption(values.merchant), environment: parseEnv(values.env) };
    const actor = auditedActor(values);
    return withTemporalAndDatabase(config, async (temporal, orm) => {
      const recovery = await recoverEndpoint(serviceDeps(config, temporal, orm), owner, endpointId, since, actor);
      return { ...recoveryJson(recovery), merchant_id: recovery.merchantId, environment: recovery.environment };
    });
  });
  const recovery = webhooks
    .command('recovery')
    .description("a recovery's progress, counted from its resends now (status, total, queued, succeeded, failed, skipped, pending)")
    .requiredArgument('RECOVERY_ID', 'the recovery (whr_…)', 'a recovery id (whr_…) is required');
  act(recovery, (config, _values, [id]) => {
    if (!id || !isIdOf('webhookRecovery', id)) throw new UsageError('a recovery id (whr_…) is required');
    return withDatabase(config, async (orm) => {
      const found = await findRecoveryById(orm, id);
      if (!found) throw new Error(`no webhook recovery ${id}`);
      return { ...recoveryJson(found), merchant_id: found.merchantId, environment: found.environment };
    });
  });
  const skip = webhooks
    .command('skip')
    .description("skip the event a FIFO endpoint's queue is held on, by its sequence: its pending delivery is recorded skipped and the events behind it go on (audited: webhook_delivery.skip); prints the delivery")
    .requiredArgument('ENDPOINT_ID', 'the endpoint (we_…)', 'an endpoint id (we_…) is required')
    .option('--sequence <N>', "the event's sequence (its X-Service-Sequence header; the delivery's fifo_sequence)")
    .option('--merchant <MERCHANT_ID>', 'the endpoint\'s merchant')
    .option('--env <ENV>', 'the endpoint\'s environment: test or live')
    .option('--reason <TEXT>', REASON_HELP)
    .option('--operator <NAME>', OPERATOR_HELP);
  act(skip, (config, values, [endpointId], context) => {
    if (!endpointId || !isIdOf('webhookEndpoint', endpointId)) throw new UsageError('an endpoint id (we_…) is required');
    const sequence = /^[1-9][0-9]{0,15}$/.test(values.sequence ?? '') ? Number(values.sequence) : NaN;
    if (!Number.isSafeInteger(sequence)) throw new UsageError("--sequence is required: the event's sequence, a whole number from 1");
    const owner = { merchantId: merchantIdOption(values.merchant), environment: parseEnv(values.env) };
    const actor = auditedActor(values);
    return withTemporalAndDatabase(config, async (temporal, orm) => {
      const { delivery, workflowTold } = await skipFifoEvent(serviceDeps(config, temporal, orm), owner, endpointId, sequence, actor);
      if (!workflowTold) {
        context.stderr.write(`warning: the skip is recorded, but the endpoint's FIFO workflow (fifo-${endpointId}) did not answer the signal: it moves past event ${sequence} at its next attempt, not at once\n`);
      }
      return { ...deliveryJson(delivery), merchant_id: delivery.merchantId, environment: delivery.environment };
    });
  });
}

/** What the webhook services take, from the CLI's settings (as the API's ServiceDeps has them). */
function serviceDeps(config: Config, temporal: TemporalHandle, orm: Orm): RecoveryDeps {
  return {
    orm,
    temporal,
    taskQueue: config.taskQueue,
    temporalDeadlineMs: config.temporalRequestDeadlineMs,
    eventsWalkWindowMs: config.retention.eventsWalkWindowMs,
    webhooks: { retryScheduleMs: config.webhooks.retryScheduleMs },
  };
}
