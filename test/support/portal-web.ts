import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Orm } from '../../src/persistence/orm';
import type { PortalRole } from '../../src/domain/portal-roles';
import { createPortalUser } from '../../src/persistence/portal/portal-user-store';
import { randomBase62 } from '../../src/support/new-id';
import { hashPassword } from '../../src/support/password';
import { createWebApp } from '../../src/web/app';
import type { WebOptions } from '../../src/web/web-options';
import type { Harness } from './harness';
import { PortalClient } from './portal-client';

export interface PortalWeb {
  /** The web port's URL, which is also its public URL (the Origin check compares with it). */
  url: string;
  close(): Promise<void>;
}

/** The web port (src/web/app.ts) on an ephemeral port beside the harness's API, told its own URL. */
export async function startPortalWeb(h: Harness, options: Partial<WebOptions> = {}): Promise<PortalWeb> {
  const server = http.createServer();
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  server.on('request', createWebApp(h.deps, { webUrl: url, sandboxApiUrl: h.urls.sandbox, ...options }).callback());
  return { url, close: () => new Promise<void>((ok) => server.close(() => ok())) };
}

/** A portal user of the merchant, made as `users create` makes one (an argon2id hash), with `role` (owner unless said); its email and password. */
export async function newPortalUser(orm: Orm, merchantId: string, role: PortalRole = 'owner'): Promise<{ email: string; password: string }> {
  const email = `owner-${randomBase62(8).toLowerCase()}@shop.example`;
  const password = `pw-${randomBase62(20)}`;
  await createPortalUser(orm, merchantId, email, await hashPassword(password), undefined, role);
  return { email, password };
}

/** A new portal user of the merchant (owner unless said), signed in (in the sandbox) on the web port at `url`. */
export async function signedInUser(url: string, orm: Orm, merchantId: string, role: PortalRole = 'owner'): Promise<{ client: PortalClient; email: string; password: string }> {
  const user = await newPortalUser(orm, merchantId, role);
  const client = new PortalClient(url);
  const res = await client.signIn(user.email, user.password);
  if (res.status !== 303) throw new Error(`sign-in answered ${res.status}: ${res.text.slice(0, 200)}`);
  return { client, ...user };
}
