// The README and the pages under docs/ as a reader meets them: the front door stays short, the performance
// page stays a report rather than a log, and every link between the pages lands on a file and a heading that
// exist, so moving a section cannot leave a link behind.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, it } from '../helpers/node-test.ts';

const ROOT = join(import.meta.dirname, '..', '..');

const PAGES = [
  'README.md',
  'CHANGELOG.md',
  'bench/README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

const read = (page: string) => readFileSync(join(ROOT, page), 'utf8');

/** The page's text outside fenced code blocks, where a `[x](y)` is code, not a link. */
const prose = (text: string) => text.replace(/^```[\s\S]*?^```/gm, '');

/** The anchors GitHub gives a page: one per heading (its slug, -1, -2… when repeated) and each `<a id>`. */
function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, heading = ''] of prose(text).matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = heading
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    anchors.add(count ? `${slug}-${count}` : slug);
    seen.set(slug, count + 1);
  }
  for (const [, id = ''] of text.matchAll(/<a id="([^"]+)"><\/a>/g)) anchors.add(id);
  return anchors;
}

describe('the README and docs/', () => {
  it('the README is a front door, not a manual', () => {
    const lines = read('README.md').split('\n').length;
    assert.ok(lines <= 260, `README.md has ${lines} lines; move the detail to a page under docs/`);
    for (const [, block = ''] of read('README.md').matchAll(/^## (.+)$/gm)) {
      assert.doesNotMatch(block, /^(Configuration|Command line|Money|Running in production|Tests)$/, block);
    }
  });

  it('the performance page is a current report, not a log of sittings', () => {
    const page = read('docs/performance.md');
    assert.ok(page.split('\n').length <= 260, 'docs/performance.md stays a short report');
    for (const file of PAGES) assert.doesNotMatch(read(file), /sitting/i, `${file} names no sitting`);
    for (const heading of [
      'Where it stands',
      'How each bench measures',
      'What to tune',
      'What did not help, and why',
    ]) {
      assert.match(page, new RegExp(`^## ${heading}$`, 'm'), `docs/performance.md has "${heading}"`);
    }
  });

  it('docs/README.md lists every page under docs/', () => {
    const index = read('docs/README.md');
    for (const page of PAGES.filter((file) => file.startsWith('docs/') && file !== 'docs/README.md')) {
      assert.ok(index.includes(`](${page.slice('docs/'.length)})`), `docs/README.md links ${page}`);
    }
  });

  it('every relative link lands on a file, and every anchor on a heading of it', () => {
    let links = 0;
    for (const page of PAGES) {
      for (const [, target = ''] of prose(read(page)).matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target)) continue;
        links++;
        const [path = '', anchor] = target.split('#');
        const file = path ? join(dirname(join(ROOT, page)), path) : join(ROOT, page);
        const shown = `${page} → ${target}`;
        assert.ok(existsSync(file), `${shown}: ${relative(ROOT, file)} exists`);
        if (anchor) assert.ok(anchorsOf(readFileSync(file, 'utf8')).has(anchor), `${shown}: the anchor exists`);
      }
    }
    assert.ok(links > 50, `the pages link each other (${links} links)`);
  });
});
