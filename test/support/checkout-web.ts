import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createWebApp } from '../../src/web/app';
import type { Harness } from './harness';

export interface CheckoutWeb {
  url: string;
  close(): Promise<void>;
}

/**
 * The web port (src/web/app.ts) on an ephemeral port beside the harness's API, and the harness's
 * deps pointed at it (`webUrl`), so a card or bank charge's `action.url` opens this listener.
 */
export async function startCheckoutWeb(h: Harness): Promise<CheckoutWeb> {
  const server = http.createServer(createWebApp(h.deps, { webUrl: 'http://127.0.0.1:0', sandboxApiUrl: h.urls.sandbox }).callback());
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  h.deps.webUrl = url;
  return { url, close: () => new Promise<void>((ok) => server.close(() => ok())) };
}

/** The token of a checkout url (`…/checkout/<token>`). */
export function tokenOf(url: string): string {
  return new URL(url).pathname.split('/').pop()!;
}

/** A form post as the checkout page's browser sends it, without following redirects. */
export function postForm(url: string, fields: Record<string, string>): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString(), redirect: 'manual' });
}
