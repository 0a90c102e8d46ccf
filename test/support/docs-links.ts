import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import GithubSlugger from 'github-slugger';
import { Lexer, type Token, type Tokens } from 'marked';

/** A link or image of a Markdown page that does not resolve: the page, the target as written, and why. */
export interface BrokenLink {
  page: string;
  target: string;
  reason: string;
}

/** Every Markdown page of a documentation set: the README at `root` and every `.md` under `root/docs`. */
export function markdownPages(root: string, docsDir = 'docs'): string[] {
  const pages = [join(root, 'README.md')].filter((p) => existsSync(p));
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.md')) pages.push(path);
    }
  };
  if (existsSync(join(root, docsDir))) walk(join(root, docsDir));
  return pages;
}

/** The text a reader sees of inline tokens (code spans keep their text, emphasis and links their words). */
function plainText(tokens: Token[] | undefined): string {
  return (tokens ?? [])
    .map((t) => {
      if ('tokens' in t && Array.isArray(t.tokens) && t.tokens.length > 0) return plainText(t.tokens);
      if (t.type === 'codespan') return (t as Tokens.Codespan).text;
      if (t.type === 'html') return '';
      return 'text' in t ? String(t.text) : '';
    })
    .join('');
}

const unescapeEntities = (s: string) =>
  s.replace(/&(amp|lt|gt|quot|#39);/g, (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e]!);

interface Parsed {
  anchors: Set<string>;
  links: { href: string; kind: 'link' | 'image' }[];
}

/** The headings' anchors (GitHub's slugs, repeats numbered) and the links and images of one page. */
export function parsePage(markdown: string): Parsed {
  const slugger = new GithubSlugger();
  const anchors = new Set<string>();
  const links: Parsed['links'] = [];
  const tokens = new Lexer({ gfm: true }).lex(markdown);
  const visit = (list: Token[]) => {
    for (const t of list) {
      if (t.type === 'heading') anchors.add(slugger.slug(unescapeEntities(plainText((t as Tokens.Heading).tokens))));
      if (t.type === 'link' || t.type === 'image') links.push({ href: (t as Tokens.Link).href, kind: t.type });
      if ('tokens' in t && Array.isArray(t.tokens)) visit(t.tokens);
      if (t.type === 'list') for (const item of (t as Tokens.List).items) visit(item.tokens);
      if (t.type === 'table') {
        const table = t as Tokens.Table;
        for (const cell of [...table.header, ...table.rows.flat()]) visit(cell.tokens);
      }
    }
  };
  visit(tokens);
  return { anchors, links };
}

/**
 * Every relative link and image of the given pages that names no file or folder under `root`, and
 * every `#anchor` (on the same page or another .md page) that names no heading of its target.
 * Absolute links (http:, https:, mailto:) are not followed.
 */
export function brokenLinks(root: string, pages: string[]): BrokenLink[] {
  const cache = new Map<string, Parsed>();
  const parsed = (path: string) => {
    if (!cache.has(path)) cache.set(path, parsePage(readFileSync(path, 'utf8')));
    return cache.get(path)!;
  };
  const broken: BrokenLink[] = [];
  const rootAbs = resolve(root);
  for (const page of pages) {
    const name = relative(rootAbs, resolve(page));
    for (const { href } of parsed(page).links) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('//')) continue;
      const [pathPart, ...rest] = href.split('#');
      const anchor = rest.length ? decodeURIComponent(rest.join('#')) : undefined;
      const target = pathPart ? resolve(dirname(page), decodeURIComponent(pathPart.split('?')[0]!)) : resolve(page);
      if (pathPart) {
        const inside = relative(rootAbs, target);
        if (inside.startsWith('..') || isAbsolute(inside)) {
          broken.push({ page: name, target: href, reason: 'points outside the repository' });
          continue;
        }
        if (!existsSync(target)) {
          broken.push({ page: name, target: href, reason: 'no such file or folder' });
          continue;
        }
      }
      if (anchor === undefined || anchor === '') continue;
      if (!target.endsWith('.md') || !statSync(target).isFile()) {
        broken.push({ page: name, target: href, reason: 'an anchor on something that is not a Markdown page' });
        continue;
      }
      if (!parsed(target).anchors.has(anchor)) broken.push({ page: name, target: href, reason: `no heading "${anchor}" in ${relative(rootAbs, target)}` });
    }
  }
  return broken;
}

/** The pages whose last code fence is never closed (the rest of such a page would read as code). */
export function unclosedFences(root: string, pages: string[]): string[] {
  return pages
    .filter((page) => {
      let fence: string | undefined;
      for (const line of readFileSync(page, 'utf8').split('\n')) {
        const m = /^ {0,3}(`{3,}|~{3,})/.exec(line);
        if (!m) continue;
        if (fence === undefined) fence = m[1];
        else if (m[1]![0] === fence[0] && m[1]!.length >= fence.length && line.trim() === m[1]) fence = undefined;
      }
      return fence !== undefined;
    })
    .map((page) => relative(resolve(root), resolve(page)));
}
