import { SETTLE_LATE_ACTIONS, type SettleLateAction } from '../domain/payment-review';
import { reconcilerSettings } from '../runtime/charge-reconciler';
import { payloadCodecFor } from '../runtime/secrets-key';
import { moveBuild } from '../services/move-build';
import { stuckPayments } from '../services/stuck-payments';
import { codecDataConverter } from '../temporal/payload-codec';
import { act, flag, type CliCommand } from './command';
import { withClientAndDatabase, withDatabase, withTemporalAndDatabase } from './connect';
import { operatorCommand } from './operator';
import { OPERATOR_HELP, operatorName, parseEnv, REASON_HELP, REQUIRED_OPERATOR_HELP, requiredActor, requiredReason, UsageError } from './shared';
import { settleReturnByHand } from '../persistence/partner/late-return-by-hand';
import { openPaymentReview } from '../services/review-open';
import { watchOldShapeRuns } from '../services/old-shape-runs';
import { plainTextProblem } from '../domain/plain-text';

/** What `payments move-build --help` adds (docs/operations.md, "Retiring a build"). */
const MOVE_BUILD_HELP = `
Moves runs pinned to an older Worker Deployment build (e.g. one retired before its runs drained) to
the deployment's current (or ramping) build. Run it from the image of the build you move to (its
WORKER_BUILD_ID must be --to-build: refused otherwise), and only once that build's workers poll
every queue (refused otherwise): each run's history is replayed against this workflow code first,
and a run whose replay fails is refused and stays where it is. Then a versioning override pins it to --to-build, and an audit row
(payment.move_build) records who, why and both builds.
  1. --query 'a Temporal list query' [--merchant MERCHANT_ID]: a dry run; nothing changes. Selects the
     running workflows (of any type) on this deployment's queues pinned to another build, replays
     them, and prints the count by build, environment and merchant, the refused, and a token.
  2. --yes --token opsel_… with the same --to-build: moves those runs only, each re-checked and
     replayed again just before its move, under one batch id.
  Or one workflow at once: payments move-build WORKFLOW_ID --to-build BUILD_ID --reason TEXT.`;

/** What `payments old-shape --help` adds (docs/operations.md, "At deploy: old-shape runs"). */
const OLD_SHAPE_HELP = `
Run it at every deploy (issue 43). A live run started before the partner-word-only patch keeps its
old code on replay: at its 24 h deadline (a charge: at expires_at) it ends the payment without the
partner's word. The status gate refuses that end (the money stays reserved), but the run then stops
asking the partner. Each run listed gets a payment review (review-<id>) that asks the partner until
its word, NeedsAttention meanwhile, audited as payment.review_open.
  1. payments old-shape [--query 'a Temporal list query']: lists them (dry run; nothing changes).
  2. payments old-shape --yes --reason TEXT --operator NAME [--query …]: a review for each run listed now.`;

/** `payments settle-late --action`: credit, return or accept. */
function settleLateActionOf(raw: string | undefined): SettleLateAction {
  if (!raw || !(SETTLE_LATE_ACTIONS as readonly string[]).includes(raw)) throw new UsageError(`--action must be one of: ${SETTLE_LATE_ACTIONS.join(', ')}`);
  return raw as SettleLateAction;
}

/** `cli payments stuck|move-build|restart|settle-late|review-close`: payments of any kind. */
export function addPaymentCommands(program: CliCommand): void {
  const payments = program.command('payments').description('payments of any kind: the stuck ones, and operator actions (each audited)');
  const stuck = payments
    .command('stuck')
    .description('payments that need attention or whose workflow does not answer')
    .option('--env <ENV>', 'test or live')
    .option('--query <QUERY>', 'a Temporal list query that narrows the list');
  act(stuck, (config, values, _args, { env }) => {
    const environment = values.env === undefined ? undefined : parseEnv(values.env);
    const query = values.query?.trim() || undefined;
    return withTemporalAndDatabase(config, (temporal, orm) =>
      stuckPayments({
        orm,
        client: temporal.client,
        namespace: config.temporalNamespace,
        uiBaseUrl: config.temporalUiUrl,
        environment,
        query,
        graceMs: reconcilerSettings(env).graceMs,
        requestDeadlineMs: config.temporalRequestDeadlineMs,
        builds: { temporal, taskQueue: config.taskQueue, deploymentName: config.workerDeployment?.deploymentName },
      }),
    );
  });
  const move = payments
    .command('move-build')
    .description("move runs pinned to an older build to the current build, each replayed first (Worker Versioning: a build retired before its runs drained)")
    .argument('[WORKFLOW_ID]', 'one workflow (or --query)')
    .option('--to-build <BUILD_ID>', "the deployment's current or ramping build")
    .option('--reason <TEXT>', REASON_HELP)
    .option('--operator <NAME>', OPERATOR_HELP)
    .option('--query <QUERY>', 'instead of an id: the pinned runs this Temporal list query selects (a dry run without --yes)')
    .option('--merchant <MERCHANT_ID>', "with --query: only this merchant's runs")
    .option('--yes', "move a dry run's set: with --token (without --yes: a dry run)")
    .option('--token <TOKEN>', 'with --yes: the token a dry run printed (opsel_…)');
  move.addHelpText('after', MOVE_BUILD_HELP);
  act(move, (config, values, [id], { env }) => {
    const toBuild = values.toBuild?.trim();
    if (!toBuild) throw new UsageError('--to-build is required: the build to move the runs to (the current one: temporal worker deployment describe --name NAME)');
    const operator = operatorName(values);
    const reason = requiredReason(values);
    return withTemporalAndDatabase(config, (temporal, orm) =>
      moveBuild({
        orm,
        temporal,
        taskQueue: config.taskQueue,
        deploymentName: config.workerDeployment?.deploymentName,
        dataConverter: codecDataConverter(payloadCodecFor(config)),
        toBuild,
        cliBuild: config.workerDeployment?.buildId,
        operator,
        reason,
        id,
        query: values.query,
        merchantId: values.merchant,
        yes: flag(values, 'yes'),
        token: values.token,
        deadlineMs: config.temporalRequestDeadlineMs,
        env,
      }),
    );
  });
  operatorCommand(payments, 'restart', 'ID', 'a new run for an open charge, payout, refund, dispute or settlement batch whose workflow is closed (it finishes the record), or a payment review (review-<id>) whose run ended while open');
  operatorCommand(
    payments,
    'settle-late',
    'PAYMENT_ID',
    'late money: credit the merchant or return it to the payer for a charge; accept a payout or settlement as paid',
    {
      options: (command) =>
        command
          .option('--action <ACTION>', `one of ${SETTLE_LATE_ACTIONS.join(', ')}`)
          .option('--evidence <PARTNER_TXN_ID|STATEMENT_LINE>', "the partner's evidence"),
      input: (values, input) => {
        input.settleLate = settleLateActionOf(values.action);
        if (values.evidence !== undefined) input.evidence = values.evidence;
      },
    },
  );
  const settleReturn = payments
    .command('settle-return')
    .description("a charge's return of late money that failed or was refused at the partner, returned to the payer by hand: recorded with the evidence (audited)")
    .argument('<TXN_ID>', 'the charge')
    .option('--evidence <TEXT>', "the return made by hand: the partner's or bank's transaction id, or its statement line (required)")
    .option('--reason <TEXT>', REASON_HELP)
    .option('--operator <NAME>', REQUIRED_OPERATOR_HELP);
  act(settleReturn, (config, values, [id]) => {
    const evidence = values.evidence?.trim();
    if (!evidence) throw new UsageError("--evidence is required: the transaction id (or statement line) of the return made by hand");
    const problem = plainTextProblem('--evidence', evidence);
    if (problem) throw new UsageError(problem);
    if (evidence.length > 500) throw new UsageError('--evidence is longer than 500 characters');
    const actor = requiredActor(values);
    return withDatabase(config, (orm) => settleReturnByHand(orm, actor, { paymentId: id!, evidence, at: new Date().toISOString() }));
  });
  const reviewOpen = payments
    .command('review-open')
    .description("open a live payment's review again (one that failed, or ended with money still out), or flag the one running (audited)")
    .argument('<PAYMENT_ID>', 'the charge, payout or settlement (or its review id)')
    .option('--reason <TEXT>', REASON_HELP)
    .option('--operator <NAME>', REQUIRED_OPERATOR_HELP);
  act(reviewOpen, (config, values, [id]) => {
    const actor = requiredActor(values);
    return withClientAndDatabase(config, (client, orm) => openPaymentReview({ orm, client, taskQueue: config.taskQueue }, id!, actor));
  });
  const oldShape = payments
    .command('old-shape')
    .description("open live payouts, settlement batches and charges whose run is of the old shape (no partner-word-only marker: its code ends it at a deadline); run at deploy. A dry run lists them; --yes starts a watching payment review for each (audited)")
    .option('--query <QUERY>', 'a Temporal list query that narrows the runs looked at')
    .option('--yes', 'start (or flag) a watching payment review for each run listed (needs --reason and --operator)')
    .option('--reason <TEXT>', 'with --yes: ' + REASON_HELP)
    .option('--operator <NAME>', 'with --yes: ' + REQUIRED_OPERATOR_HELP);
  oldShape.addHelpText('after', OLD_SHAPE_HELP);
  act(oldShape, (config, values) => {
    const yes = flag(values, 'yes');
    const actor = yes ? requiredActor(values) : undefined;
    if (!yes && (values.reason !== undefined || values.operator !== undefined)) throw new UsageError('--reason and --operator go with --yes; without --yes the command only lists');
    return withClientAndDatabase(config, (client, orm) => watchOldShapeRuns({ orm, client, taskQueue: config.taskQueue }, { query: values.query, yes, actor }));
  });
  operatorCommand(
    payments,
    'review-close',
    'PAYMENT_ID',
    "close a payment review whose contradiction was looked at (the partner said FAILED for a payment we recorded as paid, or another amount)",
  );
}
