/**
 * The start of a receiver's answer as text PostgreSQL can store and a merchant can read: whatever
 * bytes a receiver sends (binary, UTF-16, NUL bytes, a multi-byte character cut in half), the excerpt
 * is valid UTF-8 without C0 control characters other than tab, line feed and carriage return, and at
 * most `maxBytes` long in UTF-8, cut on a character boundary.
 */

const REPLACEMENT = '\uFFFD';
// NUL and the other C0 controls except \t (09), \n (0a) and \r (0d). PostgreSQL text cannot hold NUL at all.
const UNSAFE_CONTROLS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g;

function utf8Length(codePoint: number): number {
  if (codePoint < 0x80) return 1;
  if (codePoint < 0x800) return 2;
  if (codePoint < 0x10000) return 3;
  return 4;
}

/** Replaces unsafe control characters and lone surrogates with U+FFFD. */
export function safeText(text: string): string {
  let out = text.replace(UNSAFE_CONTROLS, REPLACEMENT);
  // A lone surrogate has no UTF-8 form.
  if (/[\uD800-\uDFFF]/.test(out)) out = out.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, REPLACEMENT);
  return out;
}

/** The longest prefix of `text` whose UTF-8 form fits in `maxBytes`, never splitting a character. */
export function cutUtf8(text: string, maxBytes: number): string {
  let bytes = 0;
  let end = 0;
  for (const ch of text) {
    const n = utf8Length(ch.codePointAt(0)!);
    if (bytes + n > maxBytes) break;
    bytes += n;
    end += ch.length;
  }
  return text.slice(0, end);
}

/** A text excerpt made safe: controls replaced, at most `maxBytes` in UTF-8. Idempotent. */
export function safeExcerpt(text: string, maxBytes: number): string {
  return cutUtf8(safeText(text), maxBytes);
}

/**
 * The excerpt of raw response bytes: decoded as UTF-8 with U+FFFD for invalid sequences (a sequence
 * cut off at the end of what was read is dropped, not replaced), then made safe and cut.
 */
export function responseExcerpt(raw: Uint8Array, maxBytes: number): string {
  const decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });
  // stream: true holds back an incomplete trailing sequence instead of turning it into U+FFFD.
  return safeExcerpt(decoder.decode(raw.subarray(0, maxBytes), { stream: true }), maxBytes);
}
