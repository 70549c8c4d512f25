import { createTransport } from 'nodemailer';
import { redactUrl } from './notification-config';
import { mailOptions, oneLine, SendFailure, type EmailMessage, type EmailTransport, type Sent } from './transport';

/** Time limits of one SMTP exchange: an attempt never hangs past them (its activity then retries it). */
const TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 };

interface SmtpError {
  code?: string;
  responseCode?: number;
  command?: string;
  message?: string;
}

/**
 * Permanent: the server refused this message for good (a 5xx to the envelope or the data, e.g. 550
 * mailbox unavailable). A refused login (EAUTH) is the service's configuration, not the message: it is
 * retried, as are a server that is down, slow or answering 4xx.
 */
function failureOf(error: unknown, url: URL): SendFailure {
  const e = (error ?? {}) as SmtpError;
  const permanent = typeof e.responseCode === 'number' && e.responseCode >= 500 && e.responseCode < 600 && e.code !== 'EAUTH';
  const what = [e.code, e.responseCode, e.command].filter((part) => part !== undefined).join(' ');
  // nodemailer's messages name the server's answer or the socket error, never the URL's password.
  return new SendFailure(oneLine(`SMTP ${redactUrl(url)}${what ? ` ${what}` : ''}: ${e.message ?? String(error)}`), permanent);
}

/**
 * Email over SMTP (nodemailer) to SMTP_URL: `smtp://user:pass@host:587` (STARTTLS when the server
 * offers it), `smtps://…:465` (TLS). One connection per message unless the URL asks for a pool
 * (`?pool=true`). The Message-ID is the notification's, so a repeat after a lost answer is the same
 * message to the receiving server.
 */
export function smtpTransport(smtpUrl: string): EmailTransport {
  const url = new URL(smtpUrl);
  const mailer = createTransport({ url: smtpUrl, ...TIMEOUTS, disableFileAccess: true, disableUrlAccess: true });
  return {
    async send(message: EmailMessage): Promise<Sent> {
      try {
        const info = await mailer.sendMail(mailOptions(message));
        return { providerMessageId: oneLine(String(info.response ?? info.messageId)) };
      } catch (error) {
        throw failureOf(error, url);
      }
    },
    close() {
      mailer.close();
    },
  };
}
