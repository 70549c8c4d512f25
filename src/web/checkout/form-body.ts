import type { Context } from 'koa';

const LIMIT_BYTES = 2048;

/**
 * The fields of a small urlencoded form (the checkout pages post one or two fields); null for any
 * other content type, or a body over 2 KiB. No body-parser: these are the only forms on the port.
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
