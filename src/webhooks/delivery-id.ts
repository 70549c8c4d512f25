import { createHash } from 'node:crypto';
import { ID_PREFIX } from '../domain/ids';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * The fan-out delivery of one event to one endpoint has a fixed id, derived from both: a relay that
 * dies halfway and runs again inserts the same row and starts the same workflow id, never a second.
 */
export function fanOutDeliveryId(eventId: string, endpointId: string): string {
  let n = BigInt(`0x${createHash('sha256').update(`${eventId}\n${endpointId}`).digest('hex')}`);
  let out = '';
  for (let i = 0; i < 24; i++) {
    out += ALPHABET[Number(n % 62n)];
    n /= 62n;
  }
  return ID_PREFIX.delivery + out;
}
