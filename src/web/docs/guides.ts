import html, { safe, type HtmlSafeString } from 'escape-html-template-tag';
import fs from 'node:fs';
import path from 'node:path';
import { markdown, page, type DocsPath } from './layout';
import { sandboxOutcomesTable } from './sandbox-outcomes';
import { docsFile } from './files';

/** The guide pages: Markdown files beside this one, rendered on the server (markdown-it, no raw HTML). */
export const GUIDES = ['charges', 'webhooks', 'events', 'sandbox'] as const;
export type Guide = (typeof GUIDES)[number];

/** Generated parts a guide's Markdown names by placeholder. */
const GENERATED: Record<string, () => string> = { '{{OUTCOMES}}': sandboxOutcomesTable };

export function guideMarkdown(guide: Guide): string {
  let text = fs.readFileSync(docsFile(path.join('guides', `${guide}.md`)), 'utf8');
  for (const [placeholder, make] of Object.entries(GENERATED)) text = text.replace(placeholder, make);
  return text;
}

/** Code blocks scroll sideways when long: focusable, so a keyboard can scroll them too. */
const focusableCode = (rendered: string) => rendered.replaceAll('<pre>', '<pre tabindex="0">');

/**
 * A guide's Markdown as HTML: markdown-it's output, taken as it is (the one `safe` of the web pages,
 * docs/security.md): markdown-it (`html: false`) escapes every character of the Markdown that is not
 * its own syntax, raw tags included, and the Markdown is our own file.
 */
const guideHtml = (guide: Guide): HtmlSafeString => safe(focusableCode(markdown.render(guideMarkdown(guide))));

/** A guide as a whole page. Rendered once per process (the files do not change while it runs). */
const cache = new Map<Guide, string>();
export function guidePage(guide: Guide): string {
  let text = cache.get(guide);
  if (!text) {
    text = page({ path: `/docs/guides/${guide}` as DocsPath, main: html`<article class="guide">\n${guideHtml(guide)}</article>` }).toString();
    cache.set(guide, text);
  }
  return text;
}
