/**
 * A real SMTP server in the test process (the `smtp-server` package): it takes every message (AUTH
 * required when `auth` is given, over plain TCP as local servers do) and keeps it as received,
 * with its headers and its text and HTML parts decoded. `stop()` closes it (clients get a refused
 * connection) and `start()` opens it again on the same port: the "SMTP down, then up" of the tests.
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  /** Envelope recipients. */
  to: string[];
  /** Header names in lower case, folded lines joined. */
  headers: Record<string, string>;
  subject: string;
  messageId: string;
  text: string;
  html: string;
  raw: string;
}

export interface SmtpSink {
  port: number;
  /** `smtp://user:pass@127.0.0.1:port` (or without credentials). */
  url: string;
  received: ReceivedMail[];
  /** Waits until `probe` holds for the received messages; throws after `timeoutMs`. */
  waitFor(probe: (mails: ReceivedMail[]) => boolean, timeoutMs?: number): Promise<ReceivedMail[]>;
  stop(): Promise<void>;
  start(): Promise<void>;
}

function unfoldHeaders(block: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of block.replace(/\r\n/g, '\n').replace(/\n[ \t]+/g, ' ').split('\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return headers;
}

function decodeBody(body: string, encoding: string | undefined): string {
  if (encoding?.toLowerCase() === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (encoding?.toLowerCase() === 'quoted-printable') {
    const bytes = body.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    return Buffer.from(bytes, 'latin1').toString('utf8');
  }
  return body;
}

/** The text/plain and text/html parts of a message (one part, or a multipart/alternative). */
export function parseMail(raw: string, to: string[] = []): ReceivedMail {
  const split = raw.indexOf('\r\n\r\n') >= 0 ? raw.indexOf('\r\n\r\n') : raw.indexOf('\n\n');
  const headers = unfoldHeaders(raw.slice(0, split));
  const body = raw.slice(split).replace(/^\r?\n\r?\n/, '');
  const parts: Record<string, string> = {};
  const boundary = /boundary="?([^";]+)"?/i.exec(headers['content-type'] ?? '')?.[1];
  const sections = boundary ? body.split(`--${boundary}`).slice(1, -1) : [`${raw.slice(0, split)}\n\n${body}`];
  for (const section of sections) {
    const text = section.replace(/^\r?\n/, '');
    const end = text.indexOf('\r\n\r\n') >= 0 ? text.indexOf('\r\n\r\n') : text.indexOf('\n\n');
    const partHeaders = unfoldHeaders(text.slice(0, end));
    const type = (partHeaders['content-type'] ?? 'text/plain').split(';')[0].trim().toLowerCase();
    parts[type] = decodeBody(text.slice(end).replace(/^\r?\n\r?\n/, ''), partHeaders['content-transfer-encoding']);
  }
  return { to, headers, subject: headers.subject ?? '', messageId: headers['message-id'] ?? '', text: parts['text/plain'] ?? '', html: parts['text/html'] ?? '', raw };
}

export async function startSmtpSink(auth?: { user: string; pass: string }): Promise<SmtpSink> {
  const received: ReceivedMail[] = [];
  let server: SMTPServer | undefined;
  let port = 0;
  const open = async () => {
    server = new SMTPServer({
      logger: false,
      disabledCommands: ['STARTTLS'],
      authOptional: !auth,
      allowInsecureAuth: true,
      onAuth(credentials, _session, callback) {
        if (auth && credentials.username === auth.user && credentials.password === auth.pass) callback(null, { user: auth.user });
        else callback(new Error('Invalid username or password'));
      },
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          received.push(parseMail(Buffer.concat(chunks).toString('utf8'), session.envelope.rcptTo.map((r) => r.address)));
          callback();
        });
      },
    });
    await new Promise<void>((resolve, reject) => {
      server!.once('error', reject);
      server!.listen(port, '127.0.0.1', () => resolve());
    });
    port = (server.server.address() as AddressInfo).port;
  };
  await open();
  const credentials = auth ? `${encodeURIComponent(auth.user)}:${encodeURIComponent(auth.pass)}@` : '';
  return {
    port,
    url: `smtp://${credentials}127.0.0.1:${port}`,
    received,
    async waitFor(probe, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (!probe(received)) {
        if (Date.now() > deadline) throw new Error(`SMTP sink: timed out after ${timeoutMs} ms; received: ${received.map((m) => m.subject).join(' | ')}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return received;
    },
    async stop() {
      const closing = server;
      server = undefined;
      if (closing) await new Promise<void>((resolve) => closing.close(() => resolve()));
    },
    start: open,
  };
}
