// First: on a Node.js older than 24, one clear line and exit before anything else loads.
import './support/node-version';
import { parseArgs } from 'node:util';
import { loadConfig, type Config } from './config';
import type { Environment } from './domain/environment';
import { ALL_SCOPES, isScope, type Scope } from './domain/scopes';
import { isIdOf } from './domain/ids';
import type { SettlementRunInput } from './domain/settlement-run';
import { startEmbeddedPostgres } from './persistence/embedded-postgres';
import { createMerchant, issueKey, revokeKey, verifyMerchant } from './persistence/merchant-store';
import { DEFAULT_ROLL_OVERLAP_MS, listKeys, rollKey } from './persistence/api-key-store';
import type { ChangeActor } from './domain/operator-action';
import { newId, randomBase62 } from './support/new-id';
import { parseThreshold, updateMerchantSettings, type MerchantSettingsChange } from './persistence/merchant-settings-store';
import { parseCurrencyLimits } from './domain/live-limits';
import { normalizeBankCode, parseSettlementAccountNumber, sealAccountNumber } from './domain/settlement-account';
import { listSettlementSkips } from './persistence/settlement-skips';
import { runSettlements } from './services/settlement-run';
import { migrate, openOrm, type Orm } from './persistence/orm';
import { reconcilerSettings } from './runtime/charge-reconciler';
import { embeddedDatabaseUrl } from './runtime/defaults';
import { stuckPayments } from './services/stuck-payments';
import { connectTemporal, type TemporalHandle } from './temporal/connection';
import { requireProductionSettings, temporalAddressOf } from './runtime/production-settings';
import { payloadCodecFor, secretBoxFor } from './runtime/secrets-key';
import { resealSecrets } from './services/reseal-secrets';
import { ledgerCheck } from './services/ledger-check';
import type { SecretBox } from './support/secret-box';
import { cliSender } from './services/operator-errors';
import { listOperatorAudit, type AuditFilter } from './persistence/operator-audit-store';
import { AUDITED_ACTIONS, isAuditedAction, MAX_OPERATOR_LENGTH, MAX_REASON_LENGTH } from './domain/operator-action';
import { OPERATOR_COMMANDS, runOperatorCommand, type OperatorInput } from './cli-operator-actions';
import { SETTLE_LATE_ACTIONS, type SettleLateAction } from './domain/payment-review';
import { FAILURE_CLASSES, isFailureClass } from './domain/failure-classes';
import { parseDuration } from './domain/webhook-retry';
import { parseEmail } from './notifications/recipient';
import { createPortalUser, findPortalUserByEmail, listPortalUsers } from './persistence/portal-user-store';
import { hashPassword, passwordProblem } from './support/password';
import { changePortalUserAccess } from './persistence/portal-user-access';
import { RECONCILE_USAGE, ReconcileUsageError, runReconcile } from './cli/reconcile';
import { refusedOption } from './cli/command-options';

const USAGE = `usage:
  cli merchants create --name NAME [--email EMAIL [--password-stdin]]   (--email: the notification email and the first merchant portal user, whose password is generated and printed once unless given on stdin)
  cli merchants verify MERCHANT_ID
  cli merchants set MERCHANT_ID [--payout-review-threshold N] [--settlement-bank CODE --settlement-account NUMBER] [--live-max-amount CUR:N[,CUR:N…]] [--live-daily-limit CUR:N[,CUR:N…]] [--notification-email EMAIL]   (live limits: per currency, N in its minor units)
  cli users create --merchant MERCHANT_ID --email EMAIL [--password-stdin]   (a merchant portal user; without --password-stdin a password is generated and printed once)
  cli users list --merchant MERCHANT_ID
  cli users disable|enable USR_ID --reason TEXT [--operator NAME]   (disable: its portal sessions end at once and it cannot sign in; audited)
  cli users revoke-sessions USR_ID --reason TEXT [--operator NAME]   (ends its portal sessions now; audited)
  cli keys create --merchant MERCHANT_ID --env test|live [--scopes a,b] [--reason TEXT]
  cli keys roll KEY_ID [--expires-in 24h] [--reason TEXT]   (the old key works until then, at most 7d)
  cli keys revoke KEY_ID [--reason TEXT]
  cli keys list --merchant MERCHANT_ID
  cli charges reverse TXN_ID --reason TEXT
  cli charges resolve TXN_ID --as succeeded|failed --reason TEXT [--failure-class CLASS] [--evidence PARTNER_TXN_ID|STATEMENT_LINE]   (--evidence is required for a live charge)
  cli charges retry TXN_ID --reason TEXT
  cli payouts approve|reject PO_ID --reason TEXT
  cli payouts reverse PO_ID --reason TEXT
  cli payments stuck [--env test|live] [--query 'a Temporal list query']
  cli payments restart PO_ID|RE_ID|DP_ID --reason TEXT
  cli payments settle-late PAYMENT_ID --action credit|return|accept --reason TEXT [--evidence PARTNER_TXN_ID|STATEMENT_LINE]   (late money: credit the merchant or return it to the payer for a charge; accept a payout or settlement as paid)
  cli payments review-close PAYMENT_ID --reason TEXT   (a payment review's contradiction looked at: the partner said FAILED for a payment we recorded as paid, or another amount)
  cli settlements run [--merchant MERCHANT_ID] [--env test|live] [--outcome failed]
  cli settlements skipped [--merchant MERCHANT_ID] [--env test|live] [--limit N]
  cli settlements retry STL_ID --reason TEXT
  cli secrets reseal
  cli ledger check
  cli audit list [--payment ID] [--merchant MERCHANT_ID] [--since 7d|ISO-TIME] [--action ACTION] [--batch BATCH_ID] [--limit N]
${RECONCILE_USAGE}
operator actions (reverse, resolve, retry, approve, reject, settlements retry, payments restart, payments settle-late, payments review-close) take --operator NAME
(default cli:<login>) and write an audit row each, as do key changes (merchants create, keys create, roll, revoke); instead of an id, --query 'a Temporal list query'
[--merchant MERCHANT_ID] prints the count and the first 20 (a dry run), and with --yes applies the
action to each at BULK_ACTIONS_PER_SECOND (default 5), under one batch id; an option a command does not take is refused`;

class UsageError extends Error {}

/**
 * Reaches the same database as the running service: DATABASE_URL, else the embedded server of
 * `npm start` (started here for the duration of the command when the service is not running).
 */
async function withDatabase<T>(config: Config, work: (orm: Orm) => Promise<T>): Promise<T> {
  requireProductionSettings(config, { database: true });
  let stop: (() => Promise<void>) | undefined;
  let orm: Orm;
  try {
    orm = await openOrm(config.databaseUrl ?? embeddedDatabaseUrl(config), 2);
    await orm.em.getConnection().execute('select 1');
  } catch (error) {
    if (config.databaseUrl) throw error;
    const pg = await startEmbeddedPostgres(config.dataDir, config.embeddedPostgresPort);
    stop = pg.stop;
    orm = await openOrm(pg.url, 2);
  }
  try {
    await migrate(orm);
    return await work(orm);
  } finally {
    await orm.close();
    await stop?.();
  }
}

/** A client on TEMPORAL_ADDRESS (else the dev server of `npm start`) that encodes payloads as the workers do. */
async function withTemporal<T>(config: Config, work: (temporal: TemporalHandle) => Promise<T>, needs = { database: false }): Promise<T> {
  // In production, name everything missing at once.
  requireProductionSettings(config, { temporal: true, database: needs.database });
  const temporal = await connectTemporal(temporalAddressOf(config), config.temporalNamespace, payloadCodecFor(config));
  try {
    return await work(temporal);
  } finally {
    await temporal.connection.close();
  }
}

/** No `--scopes`: every scope. A given `--scopes` must name at least one: `--scopes ""` is an error, never every scope. */
function parseScopes(raw: string | undefined): Scope[] {
  if (raw === undefined) return [...ALL_SCOPES];
  const scopes = raw.split(',').map((s) => s.trim()).filter(Boolean);
  if (scopes.length === 0) throw new UsageError(`--scopes needs at least one scope (known: ${ALL_SCOPES.join(' ')}); leave it out for a key with every scope`);
  const unknown = scopes.filter((s) => !isScope(s));
  if (unknown.length) throw new UsageError(`unknown scope(s): ${unknown.join(', ')}; known: ${ALL_SCOPES.join(' ')}`);
  return scopes as Scope[];
}

function parseEnv(raw: string | undefined): Environment {
  if (raw === 'test') return 'sandbox';
  if (raw === 'live') return 'live';
  throw new UsageError('--env must be test or live');
}

type Values = Record<string, string | undefined>;

/**
 * `merchants set` options: the review threshold and/or the settlement account (bank and number
 * together; the number sealed with `box()`, SECRETS_KEY, which only a settlement account needs).
 */
function merchantSettingsChange(values: Values, box: () => SecretBox): MerchantSettingsChange {
  const change: MerchantSettingsChange = {};
  const raw = values['payout-review-threshold'];
  if (raw !== undefined) {
    const threshold = parseThreshold(raw);
    if (threshold === null) throw new UsageError('--payout-review-threshold must be a positive integer of minor units');
    change.payoutReviewThreshold = threshold;
  }
  const bank = values['settlement-bank'];
  const account = values['settlement-account'];
  if ((bank === undefined) !== (account === undefined)) throw new UsageError('--settlement-bank and --settlement-account go together');
  if (bank !== undefined && account !== undefined) {
    const bankCode = normalizeBankCode(bank);
    if (bankCode === null) throw new UsageError('--settlement-bank must be a bank code of GET /v1/reference/banks');
    // Never repeat the number in a message.
    const accountNumber = parseSettlementAccountNumber(account);
    if (accountNumber === null) throw new UsageError('--settlement-account must be an account number of 6 to 20 digits');
    change.settlementAccount = { bankCode, account: sealAccountNumber(box(), accountNumber) };
  }
  for (const [option, field] of [
    ['live-max-amount', 'liveMaxAmount'],
    ['live-daily-limit', 'liveDailyLimit'],
  ] as const) {
    const raw = values[option];
    if (raw === undefined) continue;
    const limits = parseCurrencyLimits(raw, `--${option}`);
    if ('error' in limits) throw new UsageError(limits.error);
    change[field] = limits.amounts;
  }
  const notificationEmail = values['notification-email'];
  if (notificationEmail !== undefined) change.notificationEmail = notificationEmail.trim() === '' ? null : emailOption(notificationEmail, '--notification-email');
  if (Object.keys(change).length === 0) throw new UsageError('nothing to set: pass --payout-review-threshold N, --settlement-bank CODE --settlement-account NUMBER, --live-max-amount CUR:N, --live-daily-limit CUR:N and/or --notification-email EMAIL');
  return change;
}

/** An email address option (`--email`, `--notification-email`): where the merchant's notifications go. */
function emailOption(raw: string, option: string): string {
  const email = parseEmail(raw);
  if (email === null) throw new UsageError(`${option} must be an email address such as ops@example.com`);
  return email;
}

/** `settlements run` options. `--outcome failed` is a sandbox control: it limits the run to the sandbox, and is refused with --env live. */
function settlementRunInput(values: Values): SettlementRunInput {
  const input: SettlementRunInput = {};
  if (values.merchant !== undefined) {
    if (!isIdOf('merchant', values.merchant)) throw new UsageError('--merchant must be a merchant id (mer_…)');
    input.merchantId = values.merchant;
  }
  if (values.env !== undefined) input.environment = parseEnv(values.env);
  if (values.outcome !== undefined) {
    if (values.outcome !== 'failed') throw new UsageError('--outcome must be failed');
    if (input.environment === 'live') throw new UsageError('--outcome is a sandbox control: not with --env live');
    input.environment = 'sandbox';
    input.outcome = 'failed';
  }
  return input;
}

function parseLimit(raw: string | undefined): number {
  if (raw === undefined) return 100;
  if (!/^[1-9][0-9]{0,4}$/.test(raw) || Number(raw) > 10_000) throw new UsageError('--limit must be an integer from 1 to 10000');
  return Number(raw);
}

function requiredReason(values: Values): string {
  const reason = values.reason?.trim();
  if (!reason) throw new UsageError('--reason is required (it goes to the audit log)');
  if (reason.length > MAX_REASON_LENGTH) throw new UsageError(`--reason is longer than ${MAX_REASON_LENGTH} characters`);
  return reason;
}

/** --operator NAME, else `cli:<login>`: who takes the action, as the audit log records it. */
function operatorName(values: Values): string {
  if (values.operator === undefined) return cliSender();
  const name = values.operator.trim();
  if (!name || name.length > MAX_OPERATOR_LENGTH) throw new UsageError(`--operator must be 1 to ${MAX_OPERATOR_LENGTH} characters`);
  return name;
}

/** A key change's actor: --operator (default `cli:<login>`), --reason (default: the command), a fresh request id. */
function changeActor(values: Values, command: string): ChangeActor {
  const reason = values.reason?.trim() || `npm run cli -- ${command}`;
  if (reason.length > MAX_REASON_LENGTH) throw new UsageError(`--reason is longer than ${MAX_REASON_LENGTH} characters`);
  return { operator: operatorName(values), reason, requestId: newId('request') };
}

/** `--expires-in` of `keys roll`: a duration from 0s to 7d; default 24h. */
function rollOverlap(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_ROLL_OVERLAP_MS;
  let ms: number;
  try {
    ms = parseDuration(raw);
  } catch {
    throw new UsageError('--expires-in must be a duration like 30m, 24h or 7d');
  }
  if (ms > 7 * 24 * 3600_000) throw new UsageError('--expires-in is at most 7d');
  return ms;
}

function resolutionOf(values: Values): NonNullable<OperatorInput['resolution']> {
  const as = values.as;
  if (as !== 'succeeded' && as !== 'failed') throw new UsageError('--as must be succeeded or failed');
  const request: NonNullable<OperatorInput['resolution']> = { as };
  const failureClass = values['failure-class'];
  if (failureClass !== undefined) {
    if (as !== 'failed') throw new UsageError('--failure-class goes with --as failed');
    if (!isFailureClass(failureClass)) throw new UsageError(`--failure-class must be one of: ${FAILURE_CLASSES.join(', ')}`);
    request.failure_class = failureClass;
  }
  if (values.evidence !== undefined) request.evidence = values.evidence;
  return request;
}

/** `payments settle-late --action`: credit, return or accept. */
function settleLateActionOf(raw: string | undefined): SettleLateAction {
  if (!raw || !(SETTLE_LATE_ACTIONS as readonly string[]).includes(raw)) throw new UsageError(`--action must be one of: ${SETTLE_LATE_ACTIONS.join(', ')}`);
  return raw as SettleLateAction;
}

/** `audit list` filters; --since takes a duration back from now (`7d`, `24h`) or an ISO time. */
function auditFilter(values: Values): AuditFilter {
  const filter: AuditFilter = { limit: parseLimit(values.limit) };
  if (values.payment !== undefined) filter.paymentId = values.payment;
  if (values.action !== undefined) {
    if (!isAuditedAction(values.action)) throw new UsageError(`--action must be one of: ${AUDITED_ACTIONS.join(', ')}`);
    filter.action = values.action;
  }
  if (values.batch !== undefined) filter.batchId = values.batch;
  if (values.merchant !== undefined) {
    if (!isIdOf('merchant', values.merchant)) throw new UsageError('--merchant must be a merchant id (mer_…)');
    filter.merchantId = values.merchant;
  }
  if (values.since !== undefined) {
    const since = parseSince(values.since);
    if (!since) throw new UsageError('--since must be a duration back from now (30m, 24h, 7d) or an ISO time');
    filter.since = since;
  }
  return filter;
}

function parseSince(raw: string): Date | null {
  if (/^\d+(ms|s|m|h|d)$/.test(raw)) return new Date(Date.now() - parseDuration(raw));
  const time = Date.parse(raw);
  return /^\d{4}-\d{2}-\d{2}/.test(raw) && Number.isFinite(time) ? new Date(time) : null;
}

/** `--password-stdin`: all of stdin, one trailing newline dropped. */
async function readPasswordFromStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

async function run(argv: string[]): Promise<unknown> {
  if (argv[0] === 'reconcile') {
    // Reconciliation against the partner's statement (src/cli/reconcile.ts).
    const config = loadConfig();
    return runReconcile(argv.slice(1), {
      config,
      withDatabase: (work) => withDatabase(config, work),
      withTemporalAndDatabase: (work) => withTemporal(config, (temporal) => withDatabase(config, (orm) => work(temporal.client, orm)), { database: true }),
      parseSince,
    });
  }
  const { values: parsed, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { name: { type: 'string' }, merchant: { type: 'string' }, env: { type: 'string' }, scopes: { type: 'string' }, reason: { type: 'string' }, 'payout-review-threshold': { type: 'string' }, 'settlement-bank': { type: 'string' }, 'settlement-account': { type: 'string' }, outcome: { type: 'string' }, limit: { type: 'string' }, as: { type: 'string' }, 'failure-class': { type: 'string' }, operator: { type: 'string' }, payment: { type: 'string' }, since: { type: 'string' }, action: { type: 'string' }, batch: { type: 'string' }, query: { type: 'string' }, yes: { type: 'boolean' }, 'expires-in': { type: 'string' }, 'live-max-amount': { type: 'string' }, 'live-daily-limit': { type: 'string' }, email: { type: 'string' }, 'notification-email': { type: 'string' }, 'password-stdin': { type: 'boolean' }, evidence: { type: 'string' } },
  });
  const { yes, 'password-stdin': passwordStdin, ...values } = parsed;
  const [noun, verb, arg] = positionals;
  const command = `${noun ?? ''} ${verb ?? ''}`;
  const refused = refusedOption(command, Object.keys(parsed));
  if (refused) throw new UsageError(refused);
  const config = loadConfig();
  if (command in OPERATOR_COMMANDS) {
    // resolve, reverse, approve, reject, retry: by id, or in bulk with --query (a dry run without --yes).
    const query = values.query;
    if (query !== undefined && arg) throw new UsageError('give an id or --query, not both');
    if (query === undefined && !arg) throw new UsageError(`${noun!.replace(/s$/, '')} id is required (or --query 'a Temporal list query')`);
    if (query === undefined && (values.merchant !== undefined || yes)) throw new UsageError('--merchant and --yes go with --query');
    const input: OperatorInput = { operator: operatorName(values), reason: requiredReason(values) };
    if (command === 'charges resolve') input.resolution = resolutionOf(values);
    if (command === 'payments settle-late') {
      input.settleLate = settleLateActionOf(values.action);
      if (values.evidence !== undefined) input.evidence = values.evidence;
    }
    const target = { id: arg, query, merchantId: values.merchant, yes: yes === true };
    return withTemporal(config, (temporal) => withDatabase(config, (orm) => runOperatorCommand(command, { orm, temporal, config }, target, input)), { database: true });
  }
  switch (command) {
    case 'merchants create': {
      if (!values.name) throw new UsageError('--name is required');
      const name = values.name;
      const email = values.email === undefined ? undefined : emailOption(values.email, '--email');
      const actor = changeActor(values, 'merchants create');
      // --email is also the first portal user's sign-in (its password from stdin, else generated and printed once).
      const given = email !== undefined && passwordStdin === true ? await readPasswordFromStdin() : undefined;
      const password = email === undefined ? undefined : (given ?? randomBase62(20));
      const problem = password === undefined ? null : passwordProblem(password);
      if (problem) throw new Error(problem);
      const hash = password === undefined ? undefined : await hashPassword(password);
      return withDatabase(config, async (orm) => {
        if (email !== undefined && (await findPortalUserByEmail(orm, email))) throw new UsageError(`a portal user with the email ${email} already exists; choose another --email`);
        const m = await createMerchant(orm, name, actor);
        if (email === undefined || hash === undefined) return { id: m.id, test_key: m.testKey.secret, live_key: m.liveKey.secret };
        // --email: the merchant's notification email (merchants set --notification-email changes it) and its first portal user.
        await updateMerchantSettings(orm, m.id, { notificationEmail: email });
        const user = await createPortalUser(orm, m.id, email, hash);
        const portalUser = { id: user.id, email: user.email, ...(given === undefined ? { password } : {}) };
        return { id: m.id, test_key: m.testKey.secret, live_key: m.liveKey.secret, notification_email: email, portal_user: portalUser };
      });
    }
    case 'merchants verify':
      if (!arg) throw new UsageError('merchant id is required');
      return withDatabase(config, (orm) => verifyMerchant(orm, arg));
    case 'merchants set': {
      if (!arg) throw new UsageError('merchant id is required');
      const change = merchantSettingsChange(values, () => secretBoxFor(config));
      return withDatabase(config, (orm) => updateMerchantSettings(orm, arg, change));
    }
    case 'users create': {
      if (!values.merchant || !isIdOf('merchant', values.merchant)) throw new UsageError('--merchant must be a merchant id (mer_…)');
      const merchant = values.merchant;
      if (values.email === undefined) throw new UsageError('--email is required');
      const email = emailOption(values.email, '--email');
      // The password: from stdin (never an argument: argv is visible to other users), else generated and printed once.
      const given = passwordStdin === true ? await readPasswordFromStdin() : undefined;
      const password = given ?? randomBase62(20);
      const problem = passwordProblem(password);
      if (problem) throw new Error(problem);
      const hash = await hashPassword(password);
      const user = await withDatabase(config, (orm) => createPortalUser(orm, merchant, email, hash));
      return given === undefined ? { ...user, password } : user;
    }
    case 'users list': {
      if (!values.merchant) throw new UsageError('--merchant is required');
      const merchant = values.merchant;
      return withDatabase(config, (orm) => listPortalUsers(orm, merchant));
    }
    case 'users disable':
    case 'users enable':
    case 'users revoke-sessions': {
      // Audited (operator_audit portal_user.*): src/persistence/portal-user-access.ts.
      if (!arg || !isIdOf('portalUser', arg)) throw new UsageError('a portal user id (usr_…) is required: see users list --merchant MERCHANT_ID');
      const actor = { operator: operatorName(values), reason: requiredReason(values), requestId: newId('request') };
      const action = verb === 'revoke-sessions' ? 'revoke_sessions' : verb === 'enable' ? 'enable' : 'disable';
      return withDatabase(config, (orm) => changePortalUserAccess(orm, arg, action, actor));
    }
    case 'keys create': {
      if (!values.merchant) throw new UsageError('--merchant is required');
      const merchant = values.merchant;
      const env = parseEnv(values.env);
      const scopes = parseScopes(values.scopes);
      const actor = changeActor(values, 'keys create');
      const key = await withDatabase(config, (orm) => issueKey(orm, merchant, env, scopes, actor));
      return { id: key.id, secret: key.secret, scopes: key.scopes };
    }
    case 'keys revoke': {
      if (!arg) throw new UsageError('key id is required');
      const actor = changeActor(values, 'keys revoke');
      return withDatabase(config, (orm) => revokeKey(orm, arg, actor));
    }
    case 'keys roll': {
      if (!arg) throw new UsageError('key id is required');
      const overlapMs = rollOverlap(values['expires-in']);
      const actor = changeActor(values, 'keys roll');
      return withDatabase(config, (orm) => rollKey(orm, arg, overlapMs, actor));
    }
    case 'keys list': {
      if (!values.merchant) throw new UsageError('--merchant is required');
      const merchant = values.merchant;
      return withDatabase(config, (orm) => listKeys(orm, merchant));
    }
    case 'audit list':
      return withDatabase(config, (orm) => listOperatorAudit(orm, auditFilter(values)));
    case 'payments stuck': {
      const environment = values.env === undefined ? undefined : parseEnv(values.env);
      const uiBaseUrl = config.temporalUiUrl;
      return withTemporal(config, (temporal) =>
        withDatabase(config, (orm) =>
          stuckPayments({ orm, client: temporal.client, namespace: config.temporalNamespace, uiBaseUrl, environment, query: values.query?.trim() || undefined, graceMs: reconcilerSettings().graceMs, requestDeadlineMs: config.temporalRequestDeadlineMs }),
        ),
        { database: true },
      );
    }
    case 'settlements run': {
      // A settlement run now (as the Schedule starts one); waits for it and prints what it started and skipped.
      const input = settlementRunInput(values);
      return withTemporal(config, (temporal) => withDatabase(config, (orm) => runSettlements({ orm, client: temporal.client, taskQueue: config.taskQueue }, input)), { database: true });
    }
    case 'settlements skipped': {
      // Why balances were not settled: the latest skip per merchant, environment and currency.
      const filter = { ...(values.merchant ? { merchantId: values.merchant } : {}), ...(values.env === undefined ? {} : { environment: parseEnv(values.env) }), limit: parseLimit(values.limit) };
      return withDatabase(config, (orm) => listSettlementSkips(orm, filter));
    }
    case 'secrets reseal': {
      // Re-seals every sealed secret with SECRETS_KEY (rotation: the old key in SECRETS_KEY_PREVIOUS).
      const box = secretBoxFor(config);
      return withDatabase(config, (orm) => resealSecrets(orm, box));
    }
    case 'ledger check': {
      // Every transfer sums to zero and every balance equals its postings; otherwise the offending rows and exit 1.
      const report = await withDatabase(config, (orm) => ledgerCheck(orm));
      if (!report.ok) {
        process.stdout.write(JSON.stringify(report) + '\n');
        process.stderr.write('error: the ledger does not balance (rows above)\n');
        process.exit(1);
      }
      return report;
    }
    default:
      throw new UsageError(`unknown command "${command.trim()}"`);
  }
}

run(process.argv.slice(2)).then(
  (result) => {
    process.stdout.write((typeof result === 'string' ? result : JSON.stringify(result)) + '\n');
    process.exit(0);
  },
  (error: unknown) => {
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    if (error instanceof UsageError || error instanceof ReconcileUsageError) process.stderr.write(USAGE + '\n');
    process.exit(1);
  },
);
