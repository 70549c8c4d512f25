/**
 * The web port's Content-Security-Policy (src/web/app.ts sets it on every answer; the reference
 * site's pages replace it with their own, src/web/docs/csp.ts). Written out in full, not helmet's
 * defaults, which add `style-src https: 'unsafe-inline'`, `font-src https: data:` and
 * `frame-ancestors 'self'`: the portal's and checkout's pages need nothing but 'self' (one
 * stylesheet, the icon, no script, no font, no style attribute; the balances chart is inline SVG
 * with presentation attributes only). `upgrade-insecure-requests` only when the port is served over https.
 */
export function webCspDirectives(webUrl: string): Record<string, string[]> {
  return {
    defaultSrc: ["'self'"],
    baseUri: ["'self'"],
    objectSrc: ["'none'"],
    frameAncestors: ["'none'"],
    formAction: ["'self'"],
    scriptSrc: ["'self'"],
    scriptSrcAttr: ["'none'"],
    styleSrc: ["'self'"],
    imgSrc: ["'self'"],
    fontSrc: ["'self'"],
    ...(webUrl.startsWith('https:') ? { upgradeInsecureRequests: [] } : {}),
  };
}
