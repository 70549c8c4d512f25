import { escapeHtml } from '../../support/escape-html';
import { page } from './layout';

/**
 * The API reference (`/docs`): Redoc renders the OpenAPI document in the browser, from the document
 * itself (`specUrl`), not from anything written by hand here.
 */
export function referencePage(specUrl: string): string {
  return page({
    path: '/docs',
    bodyClass: 'reference',
    scripts: ['/docs/assets/redoc.standalone.js', '/docs/assets/reference.js'],
    main: `<h1>API reference</h1>
<div id="redoc" data-spec-url="${escapeHtml(specUrl)}"><p>Loading the OpenAPI document (<a href="${escapeHtml(specUrl)}">openapi.json</a>)…</p></div>`,
  });
}
