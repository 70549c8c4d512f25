import type { Environment } from '../domain/environment';
import { isIdOf } from '../domain/ids';
import { MAX_OPERATOR_LENGTH, operatorNameProblem, reasonProblem, type ChangeActor } from '../domain/operator-action';
import { parseDuration } from '../domain/webhook-retry';
import { parseEmail } from '../notifications/recipient';
import { cliSender } from '../services/operator-errors';
import { newId } from '../support/new-id';
import type { CliContext } from './context';

/**
 * The option checks every command group of the CLI shares. A UsageError is bad input: the CLI
 * prints `error: <message>` and the command's usage line, and exits 1 with nothing done.
 */
export class UsageError extends Error {}

/** The options commander parsed for a command (camelCase keys: `--failure-class` is `failureClass`). */
export type Values = Record<string, string | undefined>;

/** `--env test|live`. */
export function parseEnv(raw: string | undefined): Environment {
  if (raw === 'test') return 'sandbox';
  if (raw === 'live') return 'live';
  throw new UsageError('--env must be test or live');
}

/** `--limit N` of a list: 1 to 10000, default 100. */
export function parseLimit(raw: string | undefined): number {
  if (raw === undefined) return 100;
  if (!/^[1-9][0-9]{0,4}$/.test(raw) || Number(raw) > 10_000) throw new UsageError('--limit must be an integer from 1 to 10000');
  return Number(raw);
}

/** `--since 7d|ISO-TIME`: a duration back from now (`7d`, `24h`) or an ISO time; null when neither. */
export function parseSince(raw: string): Date | null {
  if (/^\d+(ms|s|m|h|d)$/.test(raw)) return new Date(Date.now() - parseDuration(raw));
  const time = Date.parse(raw);
  return /^\d{4}-\d{2}-\d{2}/.test(raw) && Number.isFinite(time) ? new Date(time) : null;
}

/** `--since` of a list filter, or a usage error. */
export function sinceOption(raw: string): Date {
  const since = parseSince(raw);
  if (!since) throw new UsageError('--since must be a duration back from now (30m, 24h, 7d) or an ISO time');
  return since;
}

/** `--merchant MERCHANT_ID` where a merchant id is checked. */
export function merchantIdOption(raw: string | undefined): string {
  if (raw === undefined || !isIdOf('merchant', raw)) throw new UsageError('--merchant must be a merchant id (mer_…)');
  return raw;
}

/** An email address option (`--email`, `--notification-email`): where the merchant's notifications go. */
export function emailOption(raw: string, option: string): string {
  const email = parseEmail(raw);
  if (email === null) throw new UsageError(`${option} must be an email address such as ops@example.com`);
  return email;
}

/** `--reason TEXT` where it is required: it goes to the audit log. */
export function requiredReason(values: Values): string {
  const reason = values.reason?.trim();
  if (!reason) throw new UsageError('--reason is required (it goes to the audit log)');
  const problem = reasonProblem(reason, '--reason');
  if (problem) throw new UsageError(problem);
  return reason;
}

/** --operator NAME, else `cli:<login>`: who takes the action, as the audit log records it. */
export function operatorName(values: Values): string {
  if (values.operator === undefined) return cliSender();
  const name = values.operator.trim();
  if (!name || name.length > MAX_OPERATOR_LENGTH) throw new UsageError(`--operator must be 1 to ${MAX_OPERATOR_LENGTH} characters`);
  const problem = operatorNameProblem(name, '--operator');
  if (problem) throw new UsageError(problem);
  return name;
}

/**
 * A change of a setting that moves money (issue 43: `merchants set|verify`, `settlements run`, `users
 * create`): --reason and --operator both required, checked before anything is read or written.
 */
export function requiredActor(values: Values): ChangeActor {
  if (values.operator === undefined || !values.operator.trim()) throw new UsageError('--operator is required (who takes the action, for the audit log)');
  return { operator: operatorName(values), reason: requiredReason(values), requestId: newId('request') };
}

/** The help line of a required --operator. */
export const REQUIRED_OPERATOR_HELP = 'who takes the action, as the audit log records it (required)';

/** An audited action's actor: --operator (default `cli:<login>`), the required --reason, a fresh request id. */
export function auditedActor(values: Values): ChangeActor {
  return { operator: operatorName(values), reason: requiredReason(values), requestId: newId('request') };
}

/** A key change's actor: --operator (default `cli:<login>`), --reason (default: the command), a fresh request id. */
export function changeActor(values: Values, command: string): ChangeActor {
  const reason = values.reason?.trim() || `npm run cli -- ${command}`;
  const problem = reasonProblem(reason, '--reason');
  if (problem) throw new UsageError(problem);
  return { operator: operatorName(values), reason, requestId: newId('request') };
}

/** The help lines of --reason and --operator. */
export const REASON_HELP = 'why (it goes to the audit log)';
export const OPERATOR_HELP = 'who takes the action, as the audit log records it (default: cli:<login>)';

/** `--password-stdin`: all of the run's stdin (src/cli/context.ts), one trailing newline dropped. */
export async function readPasswordFromStdin(context: CliContext): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of context.stdin()) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk));
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}
