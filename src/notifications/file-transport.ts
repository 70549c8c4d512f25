import fs from 'node:fs';
import path from 'node:path';
import { createTransport } from 'nodemailer';
import { ensurePrivateDir } from '../support/private-dir';
import { mailOptions, oneLine, SendFailure, type EmailMessage, type EmailTransport, type Sent, type SmsMessage, type SmsTransport } from './transport';

/** `2026-11-26T10-00-00Z`: the notification's time, sortable and fit for a file name on any system. */
function stamp(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z').replace(/:/g, '-');
}

/**
 * Writes `text` as `<dir>/<name>` once: a second attempt of the same notification finds the file and
 * writes nothing (the name is fixed by the notification's time and id). Written to a temporary name
 * first, then renamed, so a reader never sees half a message.
 */
function writeOnce(dir: string, name: string, text: string | Buffer): Sent {
  const file = path.join(dir, name);
  try {
    // DATA_DIR first, with its own mode (0711 for root, so embedded PostgreSQL can still pass), then the outbox inside it.
    ensurePrivateDir(path.dirname(dir));
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (!fs.existsSync(file)) {
      const temporary = `${file}.${process.pid}.tmp`;
      fs.writeFileSync(temporary, text, { mode: 0o600 });
      fs.renameSync(temporary, file);
    }
  } catch (error) {
    throw new SendFailure(oneLine(`outbox ${dir}: ${(error as Error).message}`), false);
  }
  return { providerMessageId: `file:${name}` };
}

/**
 * The local default (no SMTP_URL): each email as an RFC 822 file, `<DATA_DIR>/outbox/<time>_<ntf id>.eml`,
 * the text part first, readable in any editor and openable in a mail program.
 */
export function fileEmailTransport(dir: string): EmailTransport {
  const composer = createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  return {
    async send(message: EmailMessage): Promise<Sent> {
      const info = await composer.sendMail(mailOptions(message));
      return writeOnce(dir, `${stamp(message.date)}_${message.notificationId}.eml`, info.message as Buffer);
    },
    close() {
      composer.close();
    },
  };
}

/** The local default (no SMS_PROVIDER_URL): each SMS as `<DATA_DIR>/outbox/<time>_<ntf id>.sms.txt`. */
export function fileSmsTransport(dir: string): SmsTransport {
  return {
    async send(message: SmsMessage): Promise<Sent> {
      const text = [`To: ${message.to}`, `Date: ${message.date.toISOString()}`, `Notification: ${message.notificationId}`, '', message.text, ''].join('\n');
      return writeOnce(dir, `${stamp(message.date)}_${message.notificationId}.sms.txt`, text);
    },
    close() {},
  };
}
