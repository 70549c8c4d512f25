import type { Channel } from './charge-status';

const MASK = '*';

/**
 * Masks a customer identifier, the only form in which it is stored or leaves the service (API
 * responses' `customer.masked`, events and webhooks, logs, Temporal history):
 *
 * - a phone, account or other identifier keeps its last four characters at most;
 * - a card number (channel `card`) keeps at most its first six (the issuer) and its last four.
 *
 * At least half of the characters are always masked (six of a card number of 12 digits or more), so a
 * short identifier is never shown almost whole. Spaces and, for cards, dashes are dropped first.
 */
export function maskIdentifier(identifier: string, channel?: Channel): string {
  const compact = channel === 'card' ? identifier.replace(/[\s-]+/g, '') : identifier.replace(/\s+/g, '');
  const tail = Math.min(4, Math.floor(compact.length / 2));
  const head = channel === 'card' ? Math.max(0, Math.min(6, compact.length - tail - 6)) : 0;
  const hidden = compact.length - head - tail;
  return compact.slice(0, head) + MASK.repeat(hidden) + compact.slice(compact.length - tail);
}
