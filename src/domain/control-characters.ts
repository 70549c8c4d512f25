/** The control-character rule of every request value (src/http/validate.ts applies it to bodies; list filters to queries). */

/**
 * C0 control characters other than tab and newline: U+0000–U+0008 and U+000B–U+001F (so carriage
 * return too). PostgreSQL cannot store NUL in text or jsonb at all, and the others have no business
 * in a name, a reference or a description.
 */
const CONTROL_CHARACTER = /[\u0000-\u0008\u000B-\u001F]/;
export const hasControlCharacter = (text: string): boolean => CONTROL_CHARACTER.test(text);
const CONTROL_RULE = 'must not contain control characters (U+0000–U+001F other than tab and newline)';

const join = (path: string, key: string | number) => (path ? `${path}.${key}` : String(key));

/**
 * The first string (in document order) or object key anywhere in `value` with a control character.
 * Iterative, so a deeply nested body (metadata is free-form) cannot overflow the stack.
 */
export function findControlCharacter(value: unknown): { param: string; message: string } | undefined {
  const stack: { path: string; value: unknown }[] = [{ path: '', value }];
  while (stack.length > 0) {
    const { path, value: current } = stack.pop()!;
    if (typeof current === 'string') {
      if (CONTROL_CHARACTER.test(current)) return { param: path || '(body)', message: `${path || 'The body'} ${CONTROL_RULE}.` };
    } else if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) stack.push({ path: join(path, i), value: current[i] });
    } else if (current !== null && typeof current === 'object') {
      const entries = Object.entries(current);
      const badKey = entries.find(([key]) => CONTROL_CHARACTER.test(key));
      if (badKey) return { param: path || '(body)', message: `Field names in ${path || 'the body'} ${CONTROL_RULE}.` };
      for (let i = entries.length - 1; i >= 0; i--) stack.push({ path: join(path, entries[i][0]), value: entries[i][1] });
    }
  }
  return undefined;
}
