import type { Context } from 'koa';

/** The largest form body read: a portal form (an endpoint's URL up to 2048 characters, its description, every event type ticked) fits well inside. */
const LIMIT_BYTES = 16 * 1024;

/**
 * The fields of a small urlencoded form (checkout's and the portal's); null for any other content
 * type, or a body over 16 KiB (answered 403 by the callers). No body-parser: these are the only
 * forms on the port.
 */
export async function formFields(ctx: Context): Promise<URLSearchParams | null> {
  if (!ctx.is('application/x-www-form-urlencoded')) return null;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > LIMIT_BYTES) return null;
    chunks.push(chunk as Buffer);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}
