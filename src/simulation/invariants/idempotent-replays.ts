import { isDeepStrictEqual } from 'node:util';
import type { Invariant } from '../types';

/**
 * Idempotent replays answer the first answer: every request the registry recorded with an
 * Idempotency-Key whose first answer was stored (a 2xx: INTERFACE "Idempotency", "a repeat with the
 * same body returns the first answer, byte for byte") and sent again (`repeat_request` steps record
 * each answer in `repeats`) got the first answer's status and the same JSON body. A refusal (4xx,
 * 503) is not stored under its key, which stays usable: its repeat is answered afresh (with its own
 * `request_id`, and possibly another outcome once the balance changed), so it is not compared.
 * Reads only the registry (no database).
 */
export const idempotentReplays: Invariant = {
  name: 'idempotent replays answer the first answer',
  async check(ctx) {
    const lines: string[] = [];
    for (const r of ctx.registry.requests) {
      if (r.status < 200 || r.status >= 300) continue;
      const repeats = r.repeats ?? [];
      repeats.forEach((again, i) => {
        if (again.status !== r.status) lines.push(`${r.method} ${r.path} (${r.environment}, key ${r.idempotencyKey}): repeat ${i + 1} answered ${again.status}, the first ${r.status}`);
        else if (!isDeepStrictEqual(again.json, r.json)) lines.push(`${r.method} ${r.path} (${r.environment}, key ${r.idempotencyKey}): repeat ${i + 1} answered another body: ${JSON.stringify(again.json).slice(0, 200)} (first: ${JSON.stringify(r.json).slice(0, 200)})`);
      });
    }
    return lines;
  },
};
