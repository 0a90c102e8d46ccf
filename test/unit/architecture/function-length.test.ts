import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));

/** The longest a function or method may be, in lines from its first to its last (issue 35: the classifier split). */
const maxLines = 80;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name)).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** A function's name as a reader finds it: its own, its variable's or property's, else `(anonymous)`. */
function nameOf(node: ts.FunctionLikeDeclaration): string {
  if (node.name) return node.name.getText();
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) && parent.name) return parent.name.getText();
  return '(anonymous)';
}

/** Every function, arrow function, method, accessor and constructor longer than `maxLines`, as `file:line name (n lines)`, in file and line order. */
function longFunctions(dir: string): string[] {
  const found: string[] = [];
  for (const file of sourceFiles(dir)) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node) => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body) {
        const fn = node as ts.FunctionLikeDeclaration;
        const first = source.getLineAndCharacterOfPosition(fn.getStart(source)).line;
        const last = source.getLineAndCharacterOfPosition(fn.getEnd()).line;
        const lines = last - first + 1;
        if (lines > maxLines) found.push(`${relative(dir, file)}:${first + 1} ${nameOf(fn)} (${lines} lines)`);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

/** A function of `lines` lines from its head to its closing brace, as `head` opens it and `close` closes it. */
function functionOf(head: string, lines: number, close = '}'): string {
  return [head, '  let n = 0;', ...Array.from({ length: lines - 4 }, (_, k) => `  n += ${k};`), '  return n;', close].join('\n');
}

/**
 * The fixture, written where the test runs: a function of exactly the limit, then a function, an
 * arrow function and a method one line over it, each at a known line.
 */
function writeFixture(dir: string): void {
  const method = functionOf('longMethod(): number {', 81).split('\n').map((l) => `  ${l}`).join('\n');
  const text = [
    functionOf('export function atTheLimit(): number {', 80), // lines 1-80
    functionOf('export function tooLong(): number {', 81), // lines 81-161
    functionOf('export const tooLongArrow = (): number => {', 81, '};'), // lines 162-242
    `export class Counter {\n${method}\n}`, // the method at lines 244-324
  ].join('\n');
  writeFileSync(join(dir, 'long.ts'), `${text}\n`);
}

describe('function length', () => {
  it(`finds no function or method in lambdas/core/tariff longer than ${maxLines} lines`, () => {
    expect(longFunctions(join(root, 'lambdas', 'core', 'tariff'))).toEqual([]);
  });

  it('reports a long function, an arrow function and a method by file, line and name, and not one of exactly the limit', () => {
    const fixtures = mkdtempSync(join(tmpdir(), 'function-length-'));
    try {
      writeFixture(fixtures);
      expect(longFunctions(fixtures)).toEqual([
        'long.ts:81 tooLong (81 lines)',
        'long.ts:162 tooLongArrow (81 lines)',
        'long.ts:244 longMethod (81 lines)',
      ]);
    } finally {
      rmSync(fixtures, { recursive: true, force: true });
    }
  });
});
