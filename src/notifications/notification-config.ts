import path from 'node:path';
import { parseDuration, parseRetrySchedule } from '../domain/webhook-retry';
import { StartupError } from '../support/startup-error';
import { parseEmail } from './recipient';

/** Delays after each failed attempt of a notification (NOTIFICATION_RETRY_SCHEDULE): one attempt plus one per entry. */
export const DEFAULT_NOTIFICATION_RETRY_SCHEDULE = '10s,1m,10m,1h,6h';
export const DEFAULT_NOTIFICATION_FROM = 'Payment Engine <notifications@payment-engine.local>';
export const DEFAULT_NOTIFICATION_POLL_MS = 500;
export const DEFAULT_DISPUTE_DEADLINE_WITHIN = '24h';

/** Notification settings (README "Configuration"), read by the worker once at start-up. */
export interface NotificationConfig {
  /** SMTP_URL (`smtp://user:pass@host:587`, `smtps://…:465`); unset: emails are files under `outboxDir`. */
  smtpUrl: string | undefined;
  /** NOTIFICATION_FROM: the From of every email; its domain ends every Message-ID. */
  from: string;
  /** SMS_PROVIDER_URL and SMS_PROVIDER_TOKEN (both, or neither); unset: SMS are files under `outboxDir`. */
  sms: { url: string; token: string } | undefined;
  /** `<DATA_DIR>/outbox`: where the file transport writes each message. */
  outboxDir: string;
  retryScheduleMs: number[];
  /** NOTIFICATION_POLL_MS: how often the relay looks for events to fan out. */
  pollMs: number;
  /** NOTIFY_DISPUTE_DEADLINE_WITHIN: an open dispute whose evidence is due within this gets one reminder. */
  disputeDeadlineWithinMs: number;
}

/** A URL as it may be shown (logs, errors): never its password or query. */
export function redactUrl(url: URL): string {
  return `${url.protocol}//${url.username ? `${decodeURIComponent(url.username)}@` : ''}${url.host}${url.pathname === '/' ? '' : url.pathname}`;
}

function parseUrl(name: string, raw: string, protocols: string[]): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new StartupError(`${name} must be a URL such as ${protocols[0]}//host:port (the value is not shown: it may hold a secret)`);
  }
  if (!protocols.includes(url.protocol)) throw new StartupError(`${name} must start with ${protocols.map((p) => `${p}//`).join(' or ')}, got ${redactUrl(url)}`);
  if (!url.hostname) throw new StartupError(`${name} must name a host, got ${redactUrl(url)}`);
  return url;
}

function positiveInt(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw.trim() === '') return fallback;
  if (!/^[1-9][0-9]{0,8}$/.test(raw.trim())) throw new StartupError(`${name} must be a whole number of milliseconds, at least 1, got "${raw}"`);
  return Number(raw.trim());
}

function duration(name: string, raw: string): number {
  try {
    const ms = parseDuration(raw);
    if (ms > 0) return ms;
  } catch {
    // answered below
  }
  throw new StartupError(`${name} must be a positive duration such as 24h or 30m, got "${raw}"`);
}

function schedule(raw: string): number[] {
  try {
    return parseRetrySchedule(raw);
  } catch {
    throw new StartupError(`NOTIFICATION_RETRY_SCHEDULE must be comma-separated positive durations such as ${DEFAULT_NOTIFICATION_RETRY_SCHEDULE}, got "${raw}"`);
  }
}

/** Reads and checks the notification settings; a bad value stops the worker at start-up with one line naming it (secrets never shown). */
export function loadNotificationConfig(env: NodeJS.ProcessEnv = process.env): NotificationConfig {
  const smtpRaw = env.SMTP_URL?.trim();
  const smtpUrl = smtpRaw ? parseUrl('SMTP_URL', smtpRaw, ['smtp:', 'smtps:']).toString() : undefined;
  const from = env.NOTIFICATION_FROM?.trim() || DEFAULT_NOTIFICATION_FROM;
  if (!parseEmail(addressOf(from))) throw new StartupError(`NOTIFICATION_FROM must be an email address, optionally with a name ("Shop <notify@example.com>"), got "${from}"`);
  const smsUrl = env.SMS_PROVIDER_URL?.trim();
  const smsToken = env.SMS_PROVIDER_TOKEN?.trim();
  if (smsUrl && !smsToken) throw new StartupError('SMS_PROVIDER_URL is set but SMS_PROVIDER_TOKEN is not: the provider is called with that bearer token');
  if (!smsUrl && smsToken) throw new StartupError('SMS_PROVIDER_TOKEN is set but SMS_PROVIDER_URL is not: set both, or neither for SMS as files under DATA_DIR/outbox');
  return {
    smtpUrl,
    from,
    sms: smsUrl && smsToken ? { url: parseUrl('SMS_PROVIDER_URL', smsUrl, ['https:', 'http:']).toString(), token: smsToken } : undefined,
    outboxDir: path.join(path.resolve(env.DATA_DIR || '.data'), 'outbox'),
    retryScheduleMs: schedule(env.NOTIFICATION_RETRY_SCHEDULE?.trim() || DEFAULT_NOTIFICATION_RETRY_SCHEDULE),
    pollMs: positiveInt('NOTIFICATION_POLL_MS', env.NOTIFICATION_POLL_MS, DEFAULT_NOTIFICATION_POLL_MS),
    disputeDeadlineWithinMs: duration('NOTIFY_DISPUTE_DEADLINE_WITHIN', env.NOTIFY_DISPUTE_DEADLINE_WITHIN?.trim() || DEFAULT_DISPUTE_DEADLINE_WITHIN),
  };
}

/** The address of a From such as `Shop <notify@example.com>` (or the bare address). */
export function addressOf(from: string): string {
  const angle = /<([^<>]+)>\s*$/.exec(from);
  return (angle ? angle[1] : from).trim();
}

/** Where messages go, for the worker's start-up log line: no password, no token. */
export function describeNotificationTransports(config: NotificationConfig): { email: string; sms: string } {
  return {
    email: config.smtpUrl ? redactUrl(new URL(config.smtpUrl)) : `files in ${config.outboxDir}`,
    sms: config.sms ? redactUrl(new URL(config.sms.url)) : `files in ${config.outboxDir}`,
  };
}
