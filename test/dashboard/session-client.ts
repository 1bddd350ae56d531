// A dashboard client over real HTTP that keeps its cookies like a browser, signs in through the form and
// reads the CSRF token off each page, for the tests that need no browser.
import assert from 'node:assert/strict';
import type { Credentials } from '../../src/services/platforms.ts';

export interface Page {
  status: number;
  location: string | null;
  html: string;
}

export interface DashboardClient {
  get(path: string): Promise<Page>;
  /** Posts a form; `csrf: true` adds the token read from the last page fetched. */
  post(path: string, fields: Record<string, string | string[]>, csrf?: boolean | string): Promise<Page>;
  /** The CSRF token on the last page fetched. */
  csrf(): string;
  signIn(creds: Credentials): Promise<Page>;
}

export function dashboardClient(baseUrl: string): DashboardClient {
  const cookies = new Map<string, string>();
  let lastHtml = '';
  async function send(path: string, init: RequestInit = {}): Promise<Page> {
    const headers = new Headers(init.headers);
    if (cookies.size > 0) headers.set('cookie', [...cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    const res = await fetch(baseUrl + path, { ...init, headers, redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const at = pair.indexOf('=');
      const value = pair.slice(at + 1);
      if (value === '' || /max-age=0|expires=thu, 01 jan 1970/i.test(line)) cookies.delete(pair.slice(0, at));
      else cookies.set(pair.slice(0, at), value);
    }
    const html = await res.text();
    if (html.includes('name="_csrf"')) lastHtml = html;
    return { status: res.status, location: res.headers.get('location'), html };
  }
  const csrf = () => {
    const token = /name="_csrf" value="([^"]+)"/.exec(lastHtml)?.[1];
    assert.ok(token, 'the last page carried a CSRF token');
    return token;
  };
  const client: DashboardClient = {
    get: (path) => send(path),
    post(path, fields, withCsrf = true) {
      const body = new URLSearchParams();
      for (const [k, v] of Object.entries(fields)) for (const one of [v].flat()) body.append(k, one);
      if (withCsrf) body.set('_csrf', typeof withCsrf === 'string' ? withCsrf : csrf());
      return send(path, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: body.toString(),
      });
    },
    csrf,
    async signIn(creds) {
      await send('/dashboard/sign-in');
      const res = await client.post('/dashboard/sign-in', { tokenId: creds.tokenId, clientSecret: creds.clientSecret });
      assert.equal(res.status, 303, `sign-in redirects: ${res.html.slice(0, 300)}`);
      return res;
    },
  };
  return client;
}
