/**
 * Limits on merchant metadata (issue 9, storage amplification). Metadata is stored with the object,
 * copied into every event of it and sent with every webhook delivery, so its size is bounded:
 * - at most 50 keys in all, counting the keys of nested objects and the items of arrays;
 * - keys of at most 40 characters;
 * - string values of at most 500 characters;
 * - at most 5 levels of nesting: the metadata object is level 1 and every object or array inside it
 *   adds one (arrays count like objects), so `metadata.a.b.c.d.e` is the deepest value allowed.
 * Characters are Unicode code points, as in the schemas' `maxLength`.
 */
export const METADATA_LIMITS = { keys: 50, keyLength: 40, valueLength: 500, depth: 5 } as const;

export interface MetadataProblem {
  param: string;
  message: string;
}

const codePoints = (text: string): number => {
  let n = 0;
  for (const _ of text) n++;
  return n;
};

const preview = (text: string) => JSON.stringify([...text].slice(0, 20).join('') + '…');

/**
 * The first limit `metadata` (found at `param`) breaks, or undefined. Iterative, and the walk stops
 * at the first problem, so any input is checked in time linear in its size.
 */
export function findMetadataProblem(metadata: unknown, param: string = 'metadata'): MetadataProblem | undefined {
  if (metadata === null || typeof metadata !== 'object') return undefined; // the schema's type rule answers
  const { keys, keyLength, valueLength, depth: maxDepth } = METADATA_LIMITS;
  let entries = 0;
  const stack: { path: string; value: unknown; depth: number }[] = [{ path: param, value: metadata, depth: 1 }];
  while (stack.length > 0) {
    const { path, value, depth } = stack.pop()!;
    if (typeof value === 'string') {
      if (codePoints(value) > valueLength) return { param: path, message: `${path} is longer than ${valueLength} characters (metadata values are at most ${valueLength}).` };
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth > maxDepth) return { param: path, message: `${path} nests too deep: metadata allows at most ${maxDepth} levels of objects and arrays.` };
    const children: [string, unknown][] = Array.isArray(value) ? value.map((v, i) => [String(i), v]) : Object.entries(value);
    entries += children.length;
    if (entries > keys) return { param, message: `${param} has more than ${keys} keys (nested keys and array items count too).` };
    if (!Array.isArray(value)) {
      const long = children.find(([key]) => codePoints(key) > keyLength);
      if (long) return { param: path, message: `${path} has a key longer than ${keyLength} characters: ${preview(long[0])}.` };
    }
    for (let i = children.length - 1; i >= 0; i--) stack.push({ path: `${path}.${children[i][0]}`, value: children[i][1], depth: depth + 1 });
  }
  return undefined;
}
