import { createScanner, findNodeAtLocation, parseTree } from 'jsonc-parser';

/** jsonc-parser's SyntaxKind.EOF (a const enum, which isolated modules cannot read). */
const EOF_TOKEN = 17;
import stringify from 'safe-stable-stringify';

/** JSON text without insignificant whitespace; strings, key order and number spelling unchanged. */
export function minifyJson(text: string): string {
  const scanner = createScanner(text, true);
  let out = '';
  for (let kind = scanner.scan(); kind !== EOF_TOKEN; kind = scanner.scan()) {
    out += text.substr(scanner.getTokenOffset(), scanner.getTokenLength());
  }
  return out;
}

/**
 * The source text (minified) of one top-level member of a JSON object text, provided it means the
 * same as `parsed` (the value `JSON.parse` gave); otherwise `JSON.stringify(parsed)`. JavaScript
 * objects put integer-like keys first, so a parse and re-serialise would reorder a merchant's
 * metadata; the source text keeps it exactly as sent.
 */
export function memberSourceJson(text: string, member: string, parsed: unknown): string {
  const tree = parseTree(text);
  const node = tree && findNodeAtLocation(tree, [member]);
  if (node) {
    const source = minifyJson(text.substr(node.offset, node.length));
    if (stringify(JSON.parse(source)) === stringify(parsed)) return source;
  }
  return JSON.stringify(parsed);
}
