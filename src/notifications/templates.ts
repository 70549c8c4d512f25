import type { Environment } from '../domain/environment';
import { formatAmount, formatTime } from '../domain/money-format';
import type { NotificationKind } from './notification-kinds';
import { escapeHtml } from '../support/escape-html';

/** What a message is made from. Everything in it may be shown: the resource is the API's view (identifiers masked). */
export interface RenderInput {
  kind: NotificationKind;
  environment: Environment;
  merchantName: string;
  /** The resource as the API shows it: the event's `data`, or for a deadline reminder the dispute. */
  resource: Record<string, unknown>;
  /** When it happened (the event's `created_at`; for a deadline reminder, the dispute's deadline is in the resource). */
  occurredAt: string;
  /** Decimals of the resource's currency (GET /v1/reference/currencies). */
  minorUnits: number;
}

export interface RenderedEmail {
  subject: string;
  text: string;
  html: string;
}

/** The subject and SMS prefix, and the badge every sandbox email body carries (SPEC 1: sandbox vs live). */
export const TEST_PREFIX = '[TEST]';
export const TEST_BADGE = 'TEST MODE';
const TEST_NOTE = 'This message is about sandbox activity: no money moved.';

interface Content {
  subject: string;
  intro: string;
  rows: Array<[string, string | null]>;
}

const str = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : null);

function contentOf(input: RenderInput): Content {
  const r = input.resource;
  const amount = formatAmount(str(r.amount) ?? '0', str(r.currency) ?? '', input.minorUnits);
  const merchant = input.merchantName;
  const id = str(r.id) ?? '';
  switch (input.kind) {
    case 'charge_receipt':
      return {
        subject: `Receipt from ${merchant}: ${amount}`,
        intro: `Your payment of ${amount} to ${merchant} was successful. Thank you.`,
        rows: [
          ['Paid to', merchant],
          ['Amount', amount],
          ['Reference', str(r.reference)],
          ['Order', str(r.your_reference)],
          ['Date', formatTime(input.occurredAt)],
          ['Transaction', id],
        ],
      };
    case 'payout_held_for_review': {
      const recipient = (r.recipient ?? {}) as Record<string, unknown>;
      return {
        subject: `Payout ${id} of ${amount} held for review`,
        intro: `Your payout of ${amount} is held for a review before it is sent (it is at or above your review threshold). Its amount stays reserved until it is approved or rejected.`,
        rows: [
          ['Payout', id],
          ['Amount', amount],
          ['Recipient', str(recipient.masked)],
          ['Reference', str(r.your_reference) ?? str(r.reference)],
          ['Created', formatTime(str(r.created_at) ?? input.occurredAt)],
        ],
      };
    }
    case 'settlement_paid':
    case 'settlement_failed': {
      const destination = (r.destination ?? {}) as Record<string, unknown>;
      const to = [str(destination.bank_code), str(destination.account_masked)].filter(Boolean).join(' ');
      const paid = input.kind === 'settlement_paid';
      return {
        subject: `Settlement ${id} ${paid ? 'paid' : 'failed'}: ${amount}`,
        intro: paid
          ? `Settlement ${id} of ${amount} was paid into your settlement account.`
          : `Settlement ${id} of ${amount} could not be paid; the amount is back in your available balance and will be settled again.`,
        rows: [
          ['Settlement', id],
          ['Amount', amount],
          ['Destination', to || null],
          paid ? ['Paid at', formatTime(str(r.paid_at) ?? input.occurredAt)] : ['Reason', str(r.failure_class)],
          ['Entries', str(r.entry_count)],
        ],
      };
    }
    case 'settlement_account_changed': {
      const account = (value: unknown): string | null => {
        const a = (value ?? null) as Record<string, unknown> | null;
        return a ? [str(a.bank_code), str(a.account_masked)].filter(Boolean).join(' ') || null : null;
      };
      const held = str(r.held_until);
      return {
        subject: `Your settlement account was changed`,
        intro: `The bank account your settlements are paid into was changed${held ? `; your live settlements are held until ${formatTime(held)}, as a safeguard` : ''}. If you did not ask for this change, contact us at once.`,
        rows: [
          ['New account', account(r.settlement_account)],
          ['Previous account', account(r.previous_account)],
          ['Changed at', formatTime(str(r.changed_at) ?? input.occurredAt)],
          ['Changed by', str(r.operator)],
          ['Settlements held until', held ? formatTime(held) : null],
        ],
      };
    }
    case 'portal_password_reset': {
      const expires = str(r.expires_at);
      return {
        subject: `Reset your merchant portal password`,
        intro: `A password reset was asked for your merchant portal account. Open the link below to choose a new password; it works once${expires ? `, until ${formatTime(expires)}` : ''}. If you did not ask for it, ignore this email: your password stays as it is.`,
        rows: [
          ['Reset link', str(r.link)],
          ['Account', str(r.email)],
          ['Link expires', expires ? formatTime(expires) : null],
        ],
      };
    }
    case 'dispute_opened':
    case 'dispute_deadline': {
      const due = str(r.evidence_due_by);
      const opened = input.kind === 'dispute_opened';
      return {
        subject: opened ? `Dispute ${id} opened on charge ${str(r.charge) ?? ''}: ${amount}` : `Evidence for dispute ${id} is due ${due ? formatTime(due) : 'soon'}`,
        intro: opened
          ? `A customer disputed a charge. The disputed amount of ${amount} is held until the dispute is resolved. Send your evidence before the deadline (POST /v1/disputes/${id}/evidence).`
          : `The evidence for dispute ${id} is due ${due ? `at ${formatTime(due)}` : 'soon'}. Without evidence by then the dispute is lost and ${amount} is debited (POST /v1/disputes/${id}/evidence).`,
        rows: [
          ['Dispute', id],
          ['Charge', str(r.charge)],
          ['Amount', amount],
          ['Reason', str(r.reason)],
          ['Evidence due by', due ? formatTime(due) : null],
        ],
      };
    }
  }
}

/** Words wrapped at 72 columns, so the text part stays plain 7-bit text, readable in a file as it is. */
function wrap(text: string, width = 72): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return line ? [...lines, line] : lines;
}

/** An email: plain text and simple HTML. Sandbox: the subject starts with [TEST] and both bodies start with the TEST MODE badge; live: neither. */
export function renderEmail(input: RenderInput): RenderedEmail {
  const content = contentOf(input);
  const test = input.environment === 'sandbox';
  const rows = content.rows.filter((row): row is [string, string] => row[1] !== null);
  const width = Math.max(...rows.map(([label]) => label.length));
  const text = [
    ...(test ? [`*** ${TEST_BADGE} *** ${TEST_NOTE}`, ''] : []),
    ...wrap(content.intro),
    '',
    ...rows.map(([label, value]) => `${`${label}:`.padEnd(width + 1)} ${value}`),
    '',
    `-- ${input.merchantName}, via Payment Engine`,
    '',
  ].join('\n');
  const badge = test
    ? `<p style="display:inline-block;margin:0 0 16px;padding:4px 10px;border-radius:4px;background:#f59e0b;color:#111;font:bold 13px sans-serif;letter-spacing:1px">${TEST_BADGE}</p>\n<p style="margin:0 0 16px;color:#92400e;font:13px sans-serif">${escapeHtml(TEST_NOTE)}</p>\n`
    : '';
  const html = [
    '<!doctype html>',
    `<html><head><meta charset="utf-8"><title>${escapeHtml(content.subject)}</title></head>`,
    '<body style="font:14px/1.5 sans-serif;color:#111;max-width:560px;margin:24px auto">',
    `${badge}<p>${escapeHtml(content.intro)}</p>`,
    '<table style="border-collapse:collapse">',
    ...rows.map(([label, value]) => `<tr><th style="text-align:left;padding:2px 16px 2px 0;color:#555;font-weight:normal">${escapeHtml(label)}</th><td style="padding:2px 0">${escapeHtml(value)}</td></tr>`),
    '</table>',
    `<p style="color:#555">${escapeHtml(input.merchantName)}, via Payment Engine</p>`,
    '</body></html>',
    '',
  ].join('\n');
  return { subject: test ? `${TEST_PREFIX} ${content.subject}` : content.subject, text, html };
}

/** An SMS (a charge receipt): one line; sandbox: it starts with [TEST]. */
export function renderSms(input: RenderInput): string {
  const r = input.resource;
  const amount = formatAmount(str(r.amount) ?? '0', str(r.currency) ?? '', input.minorUnits);
  const body =
    input.kind === 'charge_receipt'
      ? `Receipt: you paid ${amount} to ${input.merchantName}. Ref ${str(r.reference) ?? str(r.id) ?? ''}, ${formatTime(input.occurredAt)}.`
      : contentOf(input).subject;
  return input.environment === 'sandbox' ? `${TEST_PREFIX} ${body}` : body;
}
