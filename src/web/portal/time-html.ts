import html, { type HtmlSafeString } from 'escape-html-template-tag';

/** An ISO 8601 UTC time as every portal page shows it: `2026-11-23 13:05 UTC` (seconds with `seconds`) in a <time>; `—` for none. */
export function when(iso: string | null | undefined, seconds = false): HtmlSafeString {
  if (!iso) return html`—`;
  return html`<time datetime="${iso}">${iso.slice(0, seconds ? 19 : 16).replace('T', ' ')} UTC</time>`;
}
