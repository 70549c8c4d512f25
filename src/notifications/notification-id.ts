import { createHash } from 'node:crypto';
import { ID_PREFIX } from '../domain/ids';
import type { Recipient } from './notification-kinds';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * A notification's id (and its workflow's id), fixed by what it is about and who gets it: an event
 * (`evt_…`) and its recipient, or a dispute (`dp_…`) for its deadline reminder. A relay that runs a
 * pass again writes the same row and starts the same workflow id, never a second message.
 */
export function notificationId(sourceId: string, recipient: Recipient): string {
  let n = BigInt(`0x${createHash('sha256').update(`notification\n${sourceId}\n${recipient}`).digest('hex')}`);
  let out = '';
  for (let i = 0; i < 24; i++) {
    out += ALPHABET[Number(n % 62n)];
    n /= 62n;
  }
  return ID_PREFIX.notification + out;
}
