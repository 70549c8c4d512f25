/**
 * A small browser stand-in for the merchant portal over HTTP (test/integration/portal.test.ts):
 * keeps the cookies the portal sets, reads each form's CSRF token, follows no redirect by itself.
 */
export class PortalClient {
  readonly cookies = new Map<string, string>();
  lastSetCookies: string[] = [];

  constructor(readonly url: string) {}

  async get(path: string): Promise<{ status: number; text: string; headers: Headers }> {
    const res = await fetch(this.url + path, { redirect: 'manual', headers: this.cookieHeader() });
    this.keep(res);
    return { status: res.status, text: await res.text(), headers: res.headers };
  }

  async post(path: string, fields: Record<string, string | string[]>, headers: Record<string, string> = {}): Promise<{ status: number; text: string; headers: Headers }> {
    const body = new URLSearchParams();
    for (const [name, value] of Object.entries(fields)) for (const v of [value].flat()) body.append(name, v);
    const res = await fetch(this.url + path, { method: 'POST', redirect: 'manual', headers: { ...this.cookieHeader(), 'content-type': 'application/x-www-form-urlencoded', ...headers }, body });
    this.keep(res);
    return { status: res.status, text: await res.text(), headers: res.headers };
  }

  /** The first CSRF field of a page. */
  static csrfOf(html: string): string {
    const match = /name="csrf" value="([^"]+)"/.exec(html);
    if (!match) throw new Error('no csrf field on the page');
    return match[1]!;
  }

  /**
   * The fields every changing form of a page carries (layout.ts guardFields): the environment it was
   * opened in and the CSRF token, as a browser would send them with the form.
   */
  static formOf(html: string): { environment: string; csrf: string } {
    const match = /name="environment" value="(sandbox|live)"><input type="hidden" name="csrf" value="([^"]+)"/.exec(html);
    if (!match) throw new Error('no form with its environment on the page');
    return { environment: match[1]!, csrf: match[2]! };
  }

  /** GET /sign-in, then POST it. */
  async signIn(email: string, password: string): Promise<{ status: number; text: string; headers: Headers }> {
    const page = await this.get('/sign-in');
    return this.post('/sign-in', { csrf: PortalClient.csrfOf(page.text), email, password });
  }

  private cookieHeader(): Record<string, string> {
    return this.cookies.size ? { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') } : {};
  }

  private keep(res: Response): void {
    this.lastSetCookies = res.headers.getSetCookie();
    for (const line of this.lastSetCookies) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      if (value === '' || /max-age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
}
