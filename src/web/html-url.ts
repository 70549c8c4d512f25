import html, { join, type HtmlSafeString } from 'escape-html-template-tag';

/**
 * A URL or path for an `href`, `action` or `value` (or shown as text), escaped as the `html` tag
 * escapes any value, except its `/` and `=`, which are left as they are: neither can end a quoted
 * attribute value or open a tag, and a link then reads as written (`/payments?type=charges`, not
 * `&#x2F;payments?type&#x3D;charges`). Quotes, `<`, `>`, `&` and backquotes are escaped.
 */
export function urlHtml(url: string): HtmlSafeString {
  return join(
    url.split(/([/=])/).map((part, i) => (i % 2 === 1 ? (part === '/' ? SLASH : EQUALS) : html`${part}`)),
    '',
  );
}

const SLASH = html`/`;
const EQUALS = html`=`;
