/**
 * The Content-Security-Policy of the reference site's pages: stricter than the web port's default
 * (no `https:` sources at all: every script, style, font and image comes from this server), plus
 * what a page needs:
 * - `connect-src` the sandbox API's origin (`toSandbox`): the request console sends there, and the
 *   reference loads the document from there when this server does not serve it (/docs/openapi.json);
 * - the reference page only: `style-src 'unsafe-inline'`, because Redoc styles its components with
 *   styled-components, which writes <style> elements and style attributes at run time; and
 *   `worker-src blob:`, because Redoc builds its search index in a Web Worker made from a Blob of
 *   its own bundle. Neither lets any other origin in.
 */
export function docsCsp(options: { sandboxApiUrl: string; webUrl: string; reference?: boolean; toSandbox?: boolean }): string {
  const sandbox = new URL(options.sandboxApiUrl).origin;
  const directives = [
    "default-src 'self'",
    "base-uri 'self'",
    "object-src 'none'",
    "frame-ancestors 'none'",
    "form-action 'self'",
    "script-src 'self'",
    "script-src-attr 'none'",
    options.reference ? "style-src 'self' 'unsafe-inline'" : "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    options.toSandbox === false ? "connect-src 'self'" : `connect-src 'self' ${sandbox}`,
    ...(options.reference ? ["worker-src 'self' blob:"] : []),
    ...(options.webUrl.startsWith('https:') ? ['upgrade-insecure-requests'] : []),
  ];
  return directives.join('; ');
}
