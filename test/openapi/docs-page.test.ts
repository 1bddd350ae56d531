/**
 * The reference page at /docs is rendered from files the package serves itself: the HTML names no asset
 * on another host, every asset it names is served here, the stylesheets pull nothing from elsewhere, and
 * the page's Content-Security-Policy lets the browser load nothing from another origin. No credentials.
 */
import { describe, it } from '../helpers/node-test.ts';
import assert from 'node:assert/strict';
import { API, useServer } from '../helpers/harness.ts';

const LOCAL = /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?\//;

describe('the reference page', () => {
  const server = useServer();

  it('is where the root points', async () => {
    const res = await fetch(`${server.baseUrl}/`, { redirect: 'manual' });
    assert.equal(res.status, 302, 'GET / redirects');
    assert.equal(res.headers.get('location'), '/docs', 'to the reference page');
  });

  it('renders from assets served here, with nothing from another host', async () => {
    const res = await fetch(`${server.baseUrl}/docs`);
    assert.equal(res.status, 200, '/docs needs no credentials');
    assert.match(res.headers.get('content-type') ?? '', /text\/html/, 'an HTML page');
    const html = await res.text();
    const urls = [...html.matchAll(/(?:src|href)\s*=\s*["']([^"']+)["']/g)].map((m) => m[1]!);
    assert.ok(
      urls.some((u) => u.endsWith('.js')),
      `the page loads scripts: ${urls.join(', ')}`,
    );
    const external = urls.filter((u) => /^(https?:)?\/\//.test(u) && !LOCAL.test(u));
    assert.deepEqual(external, [], 'asset URLs on another host');

    for (const url of urls) {
      const asset = await fetch(new URL(url, `${server.baseUrl}/docs`));
      assert.equal(asset.status, 200, `${url} is served`);
      const text = await asset.text();
      if (url.endsWith('.css')) {
        const imports = [...text.matchAll(/url\(\s*["']?([^"')]+)/g)].map((m) => m[1]!);
        const remote = imports.filter((u) => /^(https?:)?\/\//.test(u) && !LOCAL.test(u));
        assert.deepEqual(remote, [], `${url} loads nothing from another host`);
        assert.doesNotMatch(text, /@import\s+(url\()?["']?https?:/, `${url} imports no remote stylesheet`);
      }
    }

    const csp = res.headers.get('content-security-policy') ?? '';
    assert.match(csp, /default-src 'self'/, `a Content-Security-Policy keeps the page to its own origin: ${csp}`);
    assert.doesNotMatch(csp, /https?:/, `the policy allows no other host or scheme: ${csp}`);
  });

  it('shows the same document the API serves', async () => {
    const shown = await (await fetch(`${server.baseUrl}/docs/json`)).json();
    const served = await (await fetch(`${server.baseUrl}${API}/openapi.json`)).json();
    assert.deepEqual(shown, served, 'the page renders the served OpenAPI document');
  });
});
