import MarkdownIt from 'markdown-it';
import { escapeHtml } from '../../support/escape-html';

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
  /** The page's main content (already HTML). */
  main: string;
  /** Our own scripts under /docs/assets/ (no inline script anywhere). */
  scripts?: string[];
  /** A class on <body> (the reference page lays out wider). */
  bodyClass?: string;
}

/**
 * One page of the site: `lang`, a skip link, the site navigation (the current page marked with
 * aria-current), the page's <main>. Everything the page loads is served by this server from
 * /docs/assets/.
 */
export function page(parts: PageParts): string {
  const current = DOCS_PAGES.find((p) => p.path === parts.path)!;
  const nav = DOCS_PAGES.map((p) => `<li><a href="${p.path}"${p.path === parts.path ? ' aria-current="page"' : ''}>${escapeHtml(p.title)}</a></li>`).join('');
  const scripts = (parts.scripts ?? []).map((src) => `<script src="${escapeHtml(src)}" defer></script>`).join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(current.title)} · Payments API docs</title>
<link rel="stylesheet" href="/docs/assets/docs.css">
${scripts}
</head>
<body${parts.bodyClass ? ` class="${parts.bodyClass}"` : ''}>
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
