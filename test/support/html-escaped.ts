const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '/': '&#x2F;', '=': '&#x3D;', '`': '&#x60;' };

/** A value as the web pages' `html` tag (escape-html-template-tag) writes it into a page: text and attribute values alike. */
export const htmlEscaped = (text: string): string => text.replace(/[&<>"'/=`]/g, (c) => ENTITIES[c]!);
