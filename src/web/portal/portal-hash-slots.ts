import { hashSlots, type HashSlots } from '../../support/hash-slots';
import type { WebOptions } from '../web-options';

const shared = new WeakMap<WebOptions, HashSlots>();

/**
 * The one bound on password hashes of a web app (src/support/hash-slots.ts), shared by every portal
 * form that hashes or checks a password: sign-in, the Account page's password change, and the reset
 * link's new password.
 */
export function portalHashSlots(options: WebOptions): HashSlots {
  let slots = shared.get(options);
  if (!slots) {
    slots = hashSlots(options.hashSlots?.slots, options.hashSlots?.queue);
    shared.set(options, slots);
  }
  return slots;
}
