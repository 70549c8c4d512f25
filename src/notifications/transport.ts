/**
 * How a message leaves (docs/notifications.md, "Transports"): email and SMS each behind one small
 * interface, chosen at start-up from the settings (notification-transports.ts): SMTP (SMTP_URL),
 * an HTTP SMS provider (SMS_PROVIDER_URL), or, by default, a readable file per message under
 * `<DATA_DIR>/outbox/`.
 */
export interface EmailMessage {
  notificationId: string;
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  /** `<ntf_…@domain>`: the same on every attempt, so a receiver can drop a repeat. */
  messageId: string;
  /** When the notification was written (the same on every attempt; it names the file transport's file). */
  date: Date;
}

export interface SmsMessage {
  notificationId: string;
  /** A phone number: an optional + and 9 to 15 digits. */
  to: string;
  text: string;
  date: Date;
}

/** What the transport says of a message it took: its id or answer at the provider (or the file it wrote). */
export interface Sent {
  providerMessageId: string;
}

export interface EmailTransport {
  send(message: EmailMessage): Promise<Sent>;
  close(): void;
}

export interface SmsTransport {
  send(message: SmsMessage): Promise<Sent>;
  close(): void;
}

export interface NotificationTransports {
  email: EmailTransport;
  sms: SmsTransport;
  close(): void;
}

/**
 * A send that did not happen. `permanent`: sending again cannot help (the mailbox does not exist, the
 * provider refused the number), so the notification fails at once; otherwise it is retried on
 * NOTIFICATION_RETRY_SCHEDULE. The message is one line fit to store and show: never a password or token.
 */
export class SendFailure extends Error {
  override name = 'SendFailure';
  constructor(
    message: string,
    readonly permanent: boolean,
  ) {
    super(message);
  }
}

/** One line of at most 300 characters. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim().slice(0, 300);
}

/**
 * What nodemailer is given for a message, by every email transport (SMTP, the file outbox): the same
 * headers, Message-ID and date, so a file in the outbox is the message SMTP would have carried.
 */
export function mailOptions(message: EmailMessage) {
  return {
    from: message.from,
    to: message.to,
    subject: message.subject,
    text: message.text,
    html: message.html,
    messageId: message.messageId,
    date: message.date,
    headers: { 'X-Notification-Id': message.notificationId },
  };
}
