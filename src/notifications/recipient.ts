import { maskIdentifier } from '../domain/customer';
import type { NotificationChannel } from './notification-kinds';

/** Where one message goes: a phone number (SMS) or an email address. */
export interface Contact {
  channel: NotificationChannel;
  to: string;
}

/** At most 254 characters, one @, no spaces or control characters (so never a header injection), a dot in the domain. */
const EMAIL = /^[^\s@<>()[\]\\,;:"\x00-\x1f\x7f]{1,64}@[^\s@<>()[\]\\,;:"\x00-\x1f\x7f]+\.[^\s@<>()[\]\\,;:"\x00-\x1f\x7f]+$/;
/** A phone number: an optional +, then 9 to 15 digits (E.164's longest), spaces, dashes and dots dropped first. */
const PHONE = /^\+?[0-9]{9,15}$/;

/** An email address fit to send to, trimmed; null when it is not one. */
export function parseEmail(text: string): string | null {
  const email = text.trim();
  return email.length <= 254 && EMAIL.test(email) ? email : null;
}

/**
 * Where a charge's customer gets the receipt, from the identifier the merchant sent: an email
 * address (any channel) by email; a phone number by SMS, only for mobile money (a card or bank
 * account number may look like a phone number, and is never a contact); anything else: nowhere
 * (the receipt is recorded as skipped).
 */
export function customerContact(identifier: string, channel: string): Contact | null {
  const email = parseEmail(identifier);
  if (email) return { channel: 'email', to: email };
  if (channel !== 'mobile_money') return null;
  const phone = identifier.trim().replace(/[\s.-]+/g, '');
  return PHONE.test(phone) ? { channel: 'sms', to: phone } : null;
}

/** The form a notification row and the logs keep: a phone number's last four digits, an email address's first letter and domain. */
export function maskContact(contact: Contact): string {
  if (contact.channel === 'sms') return maskIdentifier(contact.to);
  const at = contact.to.lastIndexOf('@');
  return `${contact.to.slice(0, 1)}***${contact.to.slice(at)}`;
}
