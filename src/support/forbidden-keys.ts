/**
 * Names refused as a key anywhere in a JSON body (src/http/json-guard.ts) and as a form field name
 * (src/web/form-body.ts): never a field of ours, and the names a prototype-pollution attempt needs
 * (issue 32, "Hostile bodies"), so no copy of a request can ever meet one.
 */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor']);
