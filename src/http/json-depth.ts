/**
 * The deepest a JSON request body may nest objects and arrays (the body itself is level 1). Far
 * above what any schema needs (metadata, the deepest field, allows 5 levels below the body), far
 * below what could hurt: the scan runs before `JSON.parse`, so a body nested 10,000 deep is refused
 * in one linear pass and never reaches the parser, the validators or the database.
 */
export const MAX_JSON_DEPTH = 32;

export interface DepthExcess {
  /** The top-level member under which the limit was passed, when the body is an object. */
  member?: string;
}

/**
 * Scans raw JSON text for bracket depth outside strings; returns where `maxDepth` is first passed,
 * or undefined when it never is. Not a validator: malformed text is left to `JSON.parse`.
 */
export function findDepthExcess(text: string, maxDepth: number = MAX_JSON_DEPTH): DepthExcess | undefined {
  let depth = 0;
  let inString = false;
  let stringStart = -1;
  /** The last string closed at depth 1 (a key of the top-level object, once a colon follows). */
  let lastTopString: string | undefined;
  let member: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) {
        inString = false;
        if (depth === 1) lastTopString = text.slice(stringStart, i + 1);
      }
      continue;
    }
    if (c === 0x22) {
      inString = true;
      stringStart = i;
    } else if (c === 0x7b || c === 0x5b) {
      depth++;
      if (depth > maxDepth) return member === undefined ? {} : { member };
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
      if (depth <= 1) member = undefined;
    } else if (c === 0x3a && depth === 1 && lastTopString !== undefined) {
      member = decodeKey(lastTopString);
    }
  }
  return undefined;
}

const FIELD_NAME = /^[A-Za-z0-9_]{1,40}$/;

function decodeKey(quoted: string): string | undefined {
  try {
    const key = JSON.parse(quoted) as unknown;
    // Only a name a schema could have is echoed back as `param` (not 60 KB of crafted key).
    return typeof key === 'string' && FIELD_NAME.test(key) ? key : undefined;
  } catch {
    return undefined;
  }
}
