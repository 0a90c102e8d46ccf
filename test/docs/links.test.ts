import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { brokenLinks, markdownPages, parsePage, unclosedFences } from '#support/docs-links';

const root = fileURLToPath(new URL('../../', import.meta.url));
const fixture = fileURLToPath(new URL('../fixtures/docs/', import.meta.url));

describe('the documentation (README.md and docs/)', () => {
  const pages = markdownPages(root);

  it('has the README and a page for every reader', () => {
    const names = pages.map((p) => p.slice(root.length));
    expect(names).toContain('README.md');
    for (const reader of ['partners', 'merchants', 'brokers', 'operators', 'developers', 'tariff', 'benchmarks'])
      expect(names.some((n) => n.startsWith(`docs/${reader}/`)), reader).toBe(true);
    expect(names).toContain('docs/README.md');
    expect(names).toContain('docs/spec/interface.md');
  });

  it('has no relative link or image that names a missing file, and no anchor that names a missing heading', () => {
    expect(brokenLinks(root, pages)).toEqual([]);
  });

  it('closes every code fence it opens', () => {
    expect(unclosedFences(root, pages)).toEqual([]);
  });

  it('keeps the README under 200 lines', () => {
    expect(readFileSync(`${root}README.md`, 'utf8').split('\n').length).toBeLessThan(200);
  });

  it('lists every docs page in the index, docs/README.md', () => {
    const index = parsePage(readFileSync(`${root}docs/README.md`, 'utf8')).links.map((l) => l.href.split('#')[0]);
    const listed = new Set(index.map((href) => `docs/${href}`));
    const benchmarks = parsePage(readFileSync(`${root}docs/benchmarks/README.md`, 'utf8')).links.map((l) => `docs/benchmarks/${l.href}`);
    for (const b of benchmarks) listed.add(b);
    const unlisted = pages.map((p) => p.slice(root.length)).filter((p) => p.startsWith('docs/') && p !== 'docs/README.md' && !listed.has(p));
    expect(unlisted).toEqual([]);
  });
});

describe('the link checker', () => {
  it('reports a link to a missing file, a missing image and an anchor no heading has, and nothing else', () => {
    const found = brokenLinks(fixture, markdownPages(fixture));
    expect(found).toEqual([
      { page: 'README.md', target: 'docs/guide/missing.md', reason: 'no such file or folder' },
      { page: 'README.md', target: 'docs/guide/page.md#no-such-heading', reason: 'no heading "no-such-heading" in docs/guide/page.md' },
      { page: 'README.md', target: 'docs/guide/missing.png', reason: 'no such file or folder' },
    ]);
  });

  it("slugs headings as GitHub does: code spans kept as text, punctuation dropped, repeats numbered", () => {
    const { anchors } = parsePage('# The events feed: `GET /v1/events`\n\n## Events\n\n## Events\n\n### The broker\'s review (issue 33)\n');
    expect([...anchors]).toEqual(['the-events-feed-get-v1events', 'events', 'events-1', 'the-brokers-review-issue-33']);
  });

  it('reports a page whose code fence is never closed', () => {
    expect(unclosedFences(fixture, markdownPages(fixture))).toEqual([]);
    const open = `${fixture}docs/guide/unclosed.md.txt`;
    expect(unclosedFences(fixture, [open])).toEqual(['docs/guide/unclosed.md.txt']);
  });

  it('refuses a link that leaves the repository', () => {
    const page = `${fixture}docs/guide/page.md`;
    expect(brokenLinks(fixture, [page])).toEqual([]);
    expect(brokenLinks(`${fixture}docs`, [page])).toEqual([
      { page: 'guide/page.md', target: '../../README.md#fixture', reason: 'points outside the repository' },
    ]);
  });
});
