import MarkdownIt from 'markdown-it';
import html, { join, type HtmlSafeString } from 'escape-html-template-tag';
import { urlHtml } from '../html-url';

/** The reference site's pages, in the order the navigation lists them. */
export const DOCS_PAGES = [
  { path: '/docs', title: 'API reference' },
  { path: '/docs/console', title: 'Request console' },
  { path: '/docs/guides/charges', title: 'Charges' },
  { path: '/docs/guides/webhooks', title: 'Webhooks and signatures' },
  { path: '/docs/guides/events', title: 'The event log' },
  { path: '/docs/guides/sandbox', title: 'Sandbox outcomes' },
] as const;

export type DocsPath = (typeof DOCS_PAGES)[number]['path'];

/** Markdown as the guides are written: no raw HTML (everything is escaped), no links made up from text. */
export const markdown = new MarkdownIt({ html: false, linkify: false, typographer: false });

export interface PageParts {
  path: DocsPath;
  /** The page's main content, built with the `html` tag. */
  main: HtmlSafeString;
  /** Our own scripts under /docs/assets/ (no inline script anywhere). */
  scripts?: string[];
  /** A class on <body> (the reference page lays out wider). */
  bodyClass?: string;
}

/**
 * One page of the site: `lang`, a skip link, the site navigation (the current page marked with
 * aria-current), the page's <main>. Everything the page loads is served by this server from
 * /docs/assets/. Escaped by construction, as the portal's pages (docs/security.md): built with the
 * `html` tag; the result becomes text once, where the router answers.
 */
export function page(parts: PageParts): HtmlSafeString {
  const current = DOCS_PAGES.find((p) => p.path === parts.path)!;
  const nav = DOCS_PAGES.map((p) => html`<li><a href="${urlHtml(p.path)}"${p.path === parts.path ? html` aria-current="page"` : ''}>${p.title}</a></li>`);
  const scripts = join(
    (parts.scripts ?? []).map((src) => html`<script src="${urlHtml(src)}" defer></script>`),
    '\n',
  );
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${current.title} · Payments API docs</title>
<link rel="stylesheet" href="/docs/assets/docs.css">
${scripts}
</head>
<body${parts.bodyClass ? html` class="${parts.bodyClass}"` : ''}>
<a class="skip" href="#main">Skip to content</a>
<header class="site">
<p class="brand"><a href="/docs">Payments API docs</a></p>
<nav aria-label="Documentation"><ul>${nav}</ul></nav>
</header>
<main id="main">
${parts.main}
</main>
</body>
</html>
`;
}
