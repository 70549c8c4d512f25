import { safeExcerpt } from '../domain/response-excerpt';
import { reasonCodeOf } from './momo-reasons';

/** The partner's reason in a 404 that says it does not know the reference (MoMo's status API: `{"code":"RESOURCE_NOT_FOUND"}`). */
export const NOT_FOUND_REASON = 'RESOURCE_NOT_FOUND';

/** How much of a 404's body goes into the error (and so into the activity's failure and the log). */
export const NOT_FOUND_EXCERPT_BYTES = 120;

/**
 * What a 404 to a status request says (issue 43): `unknown` ("no such reference", which can end a
 * payment never acknowledged) only when its body names the partner's RESOURCE_NOT_FOUND. Any other
 * 404 (a proxy's or gateway's page, a wrong base path, an empty body, another reason) is no answer:
 * the reason it is not one, with the body's first bytes, for a RailUnavailable (the engine keeps asking).
 */
export function readNotFound(answer: { text: string; json: unknown }): { status: 'unknown' } | { noAnswer: string } {
  const reason = reasonCodeOf(answer.json);
  if (reason === NOT_FOUND_REASON) return { status: 'unknown' };
  const body = safeExcerpt(answer.text.trim().replace(/\s+/g, ' '), NOT_FOUND_EXCERPT_BYTES);
  return {
    noAnswer:
      `HTTP 404 that does not say the partner does not know the reference (no ${NOT_FOUND_REASON}${reason ? `; reason ${reason}` : ''}): ` +
      `a proxy's page or a wrong PARTNER_BASE_URL path? ${body ? `body starts "${body}"` : 'empty body'}; read as no answer, the engine keeps asking`,
  };
}
