import type { ChangeActor } from '../../src/domain/operator-action';
import { newId } from '../../src/support/new-id';

/** The actor of a change a test makes directly through a store (its audit row names the test). */
export function testActor(reason = 'set up by a test'): ChangeActor {
  return { operator: 'test', reason, requestId: newId('request') };
}
