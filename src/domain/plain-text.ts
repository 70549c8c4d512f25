/**
 * The rule of an operator's name and reason (issue 31): plain text on one line. They go into
 * workflow history, the audit log (one row, one line), a payout's review columns and jsonb states,
 * and in front of operators, so anything that is not a visible character is refused where the
 * request is validated, before anything happens:
 * - control characters (\p{Cc}: C0 with NUL, tab, newline and carriage return, DEL, C1): PostgreSQL
 *   cannot store NUL in text or jsonb at all, and a line break would split the audit line;
 * - format characters (\p{Cf}): bidi overrides and isolates (U+202A–U+202E, U+2066–U+2069) that make
 *   a log line read differently from what it says, zero-width characters, the BOM;
 * - line and paragraph separators (U+2028, U+2029);
 * - lone surrogates (\p{Cs}, a string that is not well-formed UTF-16): jsonb refuses their escapes,
 *   so an audit row or a state holding one could never be written.
 * (Request values in general follow the looser rule of control-characters.ts, which keeps tab and
 * newline for descriptions.)
 */
const NOT_PLAIN = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/u;
const NOT_PLAIN_RUNS = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]+/gu;

/** The first character of `text` that plain text refuses, as `U+XXXX`, or null. */
export function firstNonPlainCharacter(text: string): string | null {
  const match = NOT_PLAIN.exec(text);
  if (!match) return null;
  return `U+${match[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** Why `text` is not plain text on one line (`label` names it in the message), or null. */
export function plainTextProblem(label: string, text: string): string | null {
  const found = firstNonPlainCharacter(text);
  return found ? `${label} must be plain text on one line: it contains ${found} (a control, format or line-separator character, or a broken surrogate)` : null;
}

/** False when `text` holds a lone surrogate: its JSON escape is refused by jsonb, so a state or an audit row holding it could never be written. */
export function isWellFormedText(text: string): boolean {
  return !/\p{Cs}/u.test(text);
}

/**
 * `text` made plain text on one line: each run of characters plain text refuses becomes one space;
 * plain text is returned as it is. For text the engine passes on rather than refuses (issue 43: a
 * payment review's `reviewFlag` reason, built from a break or a partner's answer, or sent by hand
 * from the Temporal UI, which a signal cannot refuse).
 */
export function plainLine(text: string): string {
  return text.replace(NOT_PLAIN_RUNS, ' ');
}
