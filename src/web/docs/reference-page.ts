import html, { type HtmlSafeString } from 'escape-html-template-tag';
import { urlHtml } from '../html-url';
import { page } from './layout';

/**
 * The API reference (`/docs`): Redoc renders the OpenAPI document in the browser, from the document
 * itself (`specUrl`), not from anything written by hand here.
 */
export function referencePage(specUrl: string): HtmlSafeString {
  return page({
    path: '/docs',
    bodyClass: 'reference',
    scripts: ['/docs/assets/redoc.standalone.js', '/docs/assets/reference.js'],
    main: html`<h1>API reference</h1>
<div id="redoc" data-spec-url="${urlHtml(specUrl)}"><p>Loading the OpenAPI document (<a href="${urlHtml(specUrl)}">openapi.json</a>)…</p></div>`,
  });
}
