/**
 * Variable interpolation in a Compose file, as the Compose Specification defines it (and compose-go
 * implements it): `$$` is a literal `$`; `$VAR` and `${VAR}`; `${VAR:-default}` / `${VAR-default}`
 * (default when unset or empty / when unset); `${VAR:?message}` / `${VAR?message}` (an error);
 * `${VAR:+alternative}` / `${VAR+alternative}`. Defaults and alternatives may nest further
 * expressions. An unset variable without a modifier becomes the empty string. Values are
 * interpolated, mapping keys are not.
 */
export type ComposeEnv = Readonly<Record<string, string | undefined>>;

const NAME = /^[_a-zA-Z][_a-zA-Z0-9]*/;
const BRACED = /^([_a-zA-Z][_a-zA-Z0-9]*)(?:(:?[-?+])([\s\S]*))?$/;

/** Index of the `}` closing the `${` whose body starts at `from`, or -1. */
function closingBrace(text: string, from: number): number {
  let depth = 1;
  for (let i = from; i < text.length; i++) {
    if (text[i] === '$' && text[i + 1] === '{') {
      depth++;
      i++;
    } else if (text[i] === '}' && --depth === 0) return i;
  }
  return -1;
}

function substitute(body: string, env: ComposeEnv, whole: string): string {
  const m = BRACED.exec(body);
  if (!m?.[1]) throw new Error(`invalid interpolation format in "${whole}": \${${body}}`);
  const [, name, op, rest = ''] = m;
  const value = env[name];
  const set = value !== undefined;
  const nonEmpty = set && value !== '';
  switch (op) {
    case undefined:
      return value ?? '';
    case ':-':
      return nonEmpty ? value : interpolateString(rest, env);
    case '-':
      return set ? value : interpolateString(rest, env);
    case ':?':
    case '?':
      if (op === ':?' ? nonEmpty : set) return value as string;
      throw new Error(`required variable ${name} is missing a value${rest ? `: ${rest}` : ''}`);
    case ':+':
      return nonEmpty ? interpolateString(rest, env) : '';
    default:
      return set ? interpolateString(rest, env) : '';
  }
}

export function interpolateString(text: string, env: ComposeEnv): string {
  let out = '';
  for (let i = 0; i < text.length; ) {
    const c = text[i] as string;
    if (c !== '$') {
      out += c;
      i++;
    } else if (text[i + 1] === '$') {
      out += '$';
      i += 2;
    } else if (text[i + 1] === '{') {
      const end = closingBrace(text, i + 2);
      if (end < 0) throw new Error(`invalid interpolation format in "${text}": unclosed \${`);
      out += substitute(text.slice(i + 2, end), env, text);
      i = end + 1;
    } else {
      const name = NAME.exec(text.slice(i + 1))?.[0];
      if (!name) throw new Error(`invalid interpolation format in "${text}": a lone $ (write $$ for a literal $)`);
      out += env[name] ?? '';
      i += 1 + name.length;
    }
  }
  return out;
}

/** Every string value of a parsed Compose document, interpolated; keys and other scalars unchanged. */
export function interpolateDocument(value: unknown, env: ComposeEnv): unknown {
  if (typeof value === 'string') return interpolateString(value, env);
  if (Array.isArray(value)) return value.map((v) => interpolateDocument(v, env));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolateDocument(v, env)]));
  }
  return value;
}
