/**
 * Driving the dashboard through app.inject like a browser would: a cookie
 * jar, the CSRF token read from the last page, urlencoded form posts.
 */
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import type { Store } from '../../src/store/index.js';
import { createUser } from '../../src/web/accounts.js';

export interface Page {
  status: number;
  body: string;
  headers: Record<string, string | string[] | number | undefined>;
  location?: string;
}

export class Browser {
  readonly cookies = new Map<string, string>();
  csrf = '';

  constructor(
    private readonly app: FastifyInstance,
    readonly ip = '10.0.0.1',
  ) {}

  private remember(headers: Page['headers']): void {
    const raw = headers['set-cookie'];
    for (const line of raw === undefined ? [] : Array.isArray(raw) ? raw : [String(raw)]) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      if (value === '' || /Max-Age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  private cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async request(
    method: 'GET' | 'POST',
    url: string,
    o: { form?: Record<string, string>; headers?: Record<string, string> } = {},
  ): Promise<Page> {
    const headers: Record<string, string> = { ...(this.cookies.size ? { cookie: this.cookieHeader() } : {}), ...o.headers };
    const res = await this.app.inject({
      method,
      url,
      remoteAddress: this.ip,
      headers: o.form ? { ...headers, 'content-type': 'application/x-www-form-urlencoded' } : headers,
      ...(o.form ? { payload: new URLSearchParams(o.form).toString() } : {}),
    });
    this.remember(res.headers);
    const token = /name="_csrf" value="([^"]+)"/.exec(res.body);
    if (token) this.csrf = token[1]!;
    return { status: res.statusCode, body: res.body, headers: res.headers, location: res.headers.location as string | undefined };
  }

  get(url: string) {
    return this.request('GET', url);
  }

  /** a form post carrying the token of the last page seen, as a real form would */
  post(url: string, form: Record<string, string> = {}, headers: Record<string, string> = {}) {
    return this.request('POST', url, { form: { _csrf: this.csrf, ...form }, headers });
  }

  async signIn(email: string, password: string): Promise<Page> {
    await this.get('/dashboard/login');
    return this.post('/dashboard/login', { email, password });
  }
}

export const PASSWORD = 'correct horse battery staple';

/** a user with a chosen password, signed in in a fresh browser */
export async function signedInUser(app: FastifyInstance, db: Store, companyId: string, email: string, ip?: string): Promise<Browser> {
  const { oneTimePassword } = await createUser(db, { companyId, email });
  const browser = new Browser(app, ip);
  const first = await browser.signIn(email, oneTimePassword);
  expect(first.status, first.body).toBe(303);
  expect((await browser.get('/dashboard/')).location).toBe('/dashboard/password');
  await browser.get('/dashboard/password');
  const set = await browser.post('/dashboard/password', { password: PASSWORD, confirm: PASSWORD });
  expect(set.status, set.body).toBe(303);
  return browser;
}

/** the key value shown once on the "key created" page */
export const shownKey = (body: string): string => /<code id="key-value">(ll_[A-Za-z0-9]+)<\/code>/.exec(body)![1]!;
