import { plainTextProblem } from './plain-text';

/**
 * The one guarded path of every operator action (docs/operations.md): resolve, reverse, approve,
 * reject, retry a step, retry a settlement, restart. Whoever sends it (the CLI, a raw update from
 * the Temporal UI, a bulk run), the request names the operator and the reason; the workflow's
 * validator refuses it otherwise, and the workflow writes one audit row per action it takes
 * (operator_audit: who, when, what, why, the state before and after, the request and batch ids).
 * Temporal itself records no reason, and for a signal no identity: this audit is where an auditor looks.
 */
export const OPERATOR_ACTIONS = [
  'charge.resolve',
  'charge.reverse',
  'charge.retry_step',
  'payout.retry_step',
  'refund.retry_step',
  'dispute.retry_step',
  'settlement.retry_step',
  'settlement_run.retry_step',
  'payout.approve',
  'payout.reject',
  'payout.reverse',
  'payout.restart',
  'refund.restart',
  'dispute.restart',
  /** A live charge held open by the database while its workflow is closed (issue 43): `payments restart txn_…`. */
  'charge.restart',
  /** A live settlement batch held open (pending, its money in transit) while its workflow is closed (issue 43): `payments restart stl_…`. */
  'settlement.restart',
  'settlement.retry',
  /** Late money settled (issue 29): credit, return or accept, through the payment review's settleLateAnswer update. */
  'payment.settle_late',
  /** A payment review's contradiction closed by an operator (issue 29, the closeReview update). */
  'payment.review_close',
  /** A run moved to another Worker Deployment build after a replay (issue 31, finding 8: `payments move-build`). */
  'payment.move_build',
] as const;
export type OperatorAction = (typeof OPERATOR_ACTIONS)[number];

/** The `retry_step` action of the payment an id names (every payment workflow has the attention desk). */
export function retryStepAction(paymentId: string): OperatorAction {
  if (paymentId.startsWith('po_')) return 'payout.retry_step';
  if (paymentId.startsWith('re_')) return 'refund.retry_step';
  if (paymentId.startsWith('dp_')) return 'dispute.retry_step';
  if (paymentId.startsWith('stl_')) return 'settlement.retry_step';
  if (paymentId.startsWith('txn_')) return 'charge.retry_step';
  return 'settlement_run.retry_step';
}

export function isOperatorAction(text: string): text is OperatorAction {
  return (OPERATOR_ACTIONS as readonly string[]).includes(text);
}

/**
 * Changes of a merchant's access and webhook set-up (issue 20), written to the same audit table as
 * the operator actions, each in the same transaction as the change it records: who (`cli:<login>`, or
 * `api_key:<key id>` for a change through the API), why, the request id, and the state before and
 * after, never a secret.
 */
export const CHANGE_ACTIONS = [
  'api_key.create',
  'api_key.roll',
  'api_key.revoke',
  'webhook_endpoint.create',
  'webhook_endpoint.update',
  'webhook_endpoint.delete',
  'webhook_endpoint.rotate_secret',
  'webhook_delivery.replay',
  /** A recovery of an endpoint's failed and skipped events since a time (issue 49): subject the recovery (whr_…). */
  'webhook_endpoint.recover',
  /** A delivery held in a FIFO endpoint's queue, skipped by the merchant (issue 49): subject the delivery (dlv_…). */
  'webhook_delivery.skip',
  'portal.sign_in',
  'portal.sign_in_failed',
  'portal.sign_out',
  'portal.switch_environment',
  'portal.export_balance_transactions',
  /**
   * A portal user's own account (issue 47, finding 6): a password changed on the Account page, a
   * reset asked for by email (only for an existing, active user) and completed by its link, one of
   * their sessions ended from the session list, and "sign out everywhere". Never a password or a token.
   */
  'portal.password_change',
  'portal.password_reset_request',
  'portal.password_reset',
  'portal.session_revoke',
  'portal.sign_out_everywhere',
  /** A portal user disabled or enabled, or its sessions ended (issue 30: `users disable`, the portal's Users page). */
  'portal_user.disable',
  'portal_user.enable',
  'portal_user.revoke_sessions',
  /** A portal user's role changed (issue 47: the Users page, `users set-role`), before and after. */
  'portal_user.set_role',
  'reconciliation_break.resolve',
  /**
   * Settings that move money (issue 43, finding 6), each with --reason and --operator: `merchants set`
   * (the fields changed, old and new, the account number masked), `merchants verify`, `settlements
   * run` (the run asked for) and `users create`.
   */
  'merchant.settings_update',
  'merchant.verify',
  'settlement_run.start',
  'portal_user.create',
  /** A charge's return of late money that failed at the partner, returned by hand (issue 43: `payments settle-return`, with the evidence). */
  'payment.settle_return',
  /** A payment review opened again (or flagged while running) by an operator (issue 43: `payments review-open`). */
  'payment.review_open',
  /** A live partner taken out of the route choice by an operator, or brought back (issue 46: `routing drain|resume`), its subject the partner. */
  'partner.drain',
  'partner.resume',
] as const;
export type ChangeAction = (typeof CHANGE_ACTIONS)[number];

/** Every action `audit list --action` can filter on. */
export const AUDITED_ACTIONS: readonly string[] = [...OPERATOR_ACTIONS, ...CHANGE_ACTIONS];

export function isAuditedAction(text: string): boolean {
  return AUDITED_ACTIONS.includes(text);
}

/** Who made a change and why, as its audit row records it. */
export interface ChangeActor {
  operator: string;
  reason: string;
  /** The API request id (`req_…`), or one made for a CLI command. */
  requestId: string;
}

/** Longest reason accepted (kept in workflow history and the audit log, shown to operators). */
export const MAX_REASON_LENGTH = 500;

/** Longest operator name kept. */
export const MAX_OPERATOR_LENGTH = 100;

/** Fields every operator request carries (an update's input, or a started run's input). */
export interface OperatorFields {
  /** Who: `cli:<login>` from the CLI; a person's name or handle from the Temporal UI. */
  operator: string;
  reason: string;
  /** Shared by every action of one bulk run (`--query … --yes`). */
  batch_id?: string;
}

/**
 * Operator names that start with this (any case), and `system` itself, are the engine's own: the
 * reconciler's automatic retry (`system:reconciler`), a review that timed out (`system`). A request
 * from outside cannot take them; the update validator cannot tell who called, so this is what it can
 * enforce: a person always names themselves, and a name the engine uses is accepted only where the
 * engine sends it (retryStep takes `system:reconciler`, counted as an automatic retry, which has less
 * power than an operator's: MAX_AUTOMATIC_RETRIES per charge).
 */
export const ENGINE_OPERATOR_PREFIX = 'system:';
/** Who the charge reconciler's retryStep names (src/runtime/charge-reconciler.ts). */
export const RECONCILER_OPERATOR = 'system:reconciler';

const isEngineName = (name: string) => {
  const lower = name.trim().toLowerCase();
  return lower === 'system' || lower.startsWith(ENGINE_OPERATOR_PREFIX);
};

/**
 * Why an operator's reason is refused, or null: a non-empty string of at most MAX_REASON_LENGTH
 * characters, plain text on one line (src/domain/plain-text.ts). `label` names the field in the
 * message (`"reason"` in an update, `--reason` on the command line). The CLI calls it too.
 */
export function reasonProblem(reason: unknown, label = '"reason"'): string | null {
  if (typeof reason !== 'string' || reason.trim() === '') return `a non-empty ${label} is required (it goes to the audit log)`;
  if (reason.length > MAX_REASON_LENGTH) return `${label} is longer than ${MAX_REASON_LENGTH} characters`;
  return plainTextProblem(label, reason);
}

/**
 * Why an operator's name is refused, or null: a non-empty string of at most MAX_OPERATOR_LENGTH
 * characters, plain text on one line, and not one of the engine's names (ENGINE_OPERATOR_PREFIX)
 * unless `engine` lists it. The CLI calls it too (`--operator`).
 */
export function operatorNameProblem(operator: unknown, label = '"operator"', engine: readonly string[] = []): string | null {
  if (typeof operator !== 'string' || operator.trim() === '' || operator.length > MAX_OPERATOR_LENGTH) {
    return `${label} must be a non-empty string of at most ${MAX_OPERATOR_LENGTH} characters`;
  }
  const text = plainTextProblem(label, operator);
  if (text) return text;
  if (isEngineName(operator) && !engine.includes(operator.trim())) return `${label} "${operator.trim()}" is a name the engine uses for itself ("system", "${ENGINE_OPERATOR_PREFIX}…"): name the person who acts`;
  return null;
}

/**
 * Why the operator fields of `request` are refused, or null. `aliases` are older names of the
 * operator field that one update type accepted before (`decided_by`, `requested_by`, `by`);
 * `engine` the engine's own operator names this request may carry (see ENGINE_OPERATOR_PREFIX).
 */
export function operatorRefusal(request: unknown, aliases: readonly string[] = [], engine: readonly string[] = []): string | null {
  if (typeof request !== 'object' || request === null) return 'an operator action takes {"operator":"…","reason":"…"}';
  const fields = request as Record<string, unknown>;
  const { reason, batch_id } = fields;
  const badReason = reasonProblem(reason);
  if (badReason) return badReason;
  const operator = operatorField(fields, aliases);
  if (operator === undefined) return 'an "operator" is required: who takes this action (it goes to the audit log)';
  const badOperator = operatorNameProblem(operator, '"operator"', engine);
  if (badOperator) return badOperator;
  if (batch_id !== undefined && (typeof batch_id !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(batch_id))) return '"batch_id", when sent, is 1 to 64 letters, digits, _ or -';
  return null;
}

function operatorField(fields: Record<string, unknown>, aliases: readonly string[]): unknown {
  if (fields.operator !== undefined) return fields.operator;
  for (const alias of aliases) if (fields[alias] !== undefined) return fields[alias];
  return undefined;
}

/** The operator a request names (after operatorRefusal accepted it), trimmed. */
export function operatorOf(request: object, aliases: readonly string[] = []): string {
  const value = operatorField(request as Record<string, unknown>, aliases);
  return typeof value === 'string' ? value.trim() : '';
}

/** The input of a restarted run (`payments restart`): the operator's fields and what the command found. */
export interface RestartRequest extends OperatorFields {
  /** The record's status and its closed workflow's status when the operator restarted it. */
  before: { status: string; workflow: string };
}

/** One audit row as the workflow hands it to the recordOperatorAction activity. */
export interface OperatorAuditEntry {
  paymentId: string;
  action: OperatorAction;
  operator: string;
  reason: string;
  /** The record as the workflow saw it before and after the action (no customer data). */
  before: unknown;
  after: unknown;
  /** The update's id (the UI and the SDK make one per request), or the run id of a started action. */
  requestId: string;
  batchId: string | null;
  merchantId: string | null;
  environment: string | null;
  /** Workflow time of the action (ISO). */
  at: string;
}

/**
 * The audit row of an operator action that is itself a write of the record (a reversal, a payout's
 * review decision), handed to that write (issue 31): the write inserts the row in its own transaction,
 * and only when it changed the record (a transition already made writes no row), with the merchant,
 * environment and state after taken from the record itself. So a row describes only a change that
 * happened, and a change is never made without its row.
 */
export interface AuditOfChange {
  action: OperatorAction;
  operator: string;
  reason: string;
  /** The update's id, or the run id of a started action (one row per payment and request). */
  requestId: string;
  batchId: string | null;
  /** The record as the workflow saw it before the action. */
  before: unknown;
  /** Workflow time of the action (ISO). */
  at: string;
}

/** One audit row as `audit list` shows it. */
export interface OperatorAuditRow {
  id: string;
  payment_id: string;
  action: string;
  operator: string;
  reason: string;
  state_before: unknown;
  state_after: unknown;
  request_id: string;
  batch_id: string | null;
  merchant_id: string | null;
  environment: string | null;
  /** Temporal's identity of the update that made the action (issue 43), beside the claimed `operator`; null when no update made it, or not recorded. */
  temporal_identity: string | null;
  created_at: string;
}
