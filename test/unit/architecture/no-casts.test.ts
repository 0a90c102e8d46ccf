import { fileURLToPath } from 'node:url';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The entities derive their item types (ElectroDB's `EntityItem`), so what a read answers is typed
 * already: no `as` on a table result, and no `as never` anywhere in infra and services. A table
 * result is what an awaited `.go(...)` or `.send(...)` answers, and anything read off it (`.data`,
 * `.Item`, an element, a callback's row), followed through the variables it is held in.
 */

const root = fileURLToPath(new URL('../../../', import.meta.url));
const fixture = fileURLToPath(new URL('../../fixtures/architecture/casts/reads.ts', import.meta.url));

const tsFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? tsFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));

/** A call whose callee is `<something>.go` or `<something>.send`: a read or write of the table (or of another AWS client). */
const isTableCall = (e: ts.Expression): boolean =>
  ts.isCallExpression(e) && ts.isPropertyAccessExpression(e.expression) && ['go', 'send'].includes(e.expression.name.text);

function isTableResult(e: ts.Expression, checker: ts.TypeChecker, depth = 0): boolean {
  if (depth > 8) return false;
  const next = (x: ts.Expression) => isTableResult(x, checker, depth + 1);
  if (ts.isParenthesizedExpression(e) || ts.isNonNullExpression(e) || ts.isAsExpression(e)) return next(e.expression);
  if (ts.isAwaitExpression(e)) return isTableCall(e.expression) || next(e.expression);
  if (isTableCall(e)) return true;
  if (ts.isPropertyAccessExpression(e) || ts.isElementAccessExpression(e)) return next(e.expression);
  if (ts.isBinaryExpression(e) && [ts.SyntaxKind.QuestionQuestionToken, ts.SyntaxKind.BarBarToken].includes(e.operatorToken.kind)) return next(e.left);
  if (!ts.isIdentifier(e)) return false;
  const declaration = checker.getSymbolAtLocation(e)?.valueDeclaration;
  if (!declaration) return false;
  if (ts.isVariableDeclaration(declaration)) {
    if (declaration.initializer) return next(declaration.initializer);
    // `for (const row of res.data)`: the row is read off the result.
    const loop = declaration.parent.parent;
    return ts.isForOfStatement(loop) && next(loop.expression);
  }
  // `res.data.map((row) => ...)`: the callback's row is read off the result.
  if (ts.isParameter(declaration) && declaration.parent.parameters[0] === declaration) {
    const call = declaration.parent.parent;
    return ts.isCallExpression(call) && ts.isPropertyAccessExpression(call.expression) && next(call.expression.expression);
  }
  return false;
}

/** Every `as never`, and every other `as` (but `as const`) on a table result, as `path:line: text`. */
function castsIn(files: string[], options: ts.CompilerOptions): string[] {
  const program = ts.createProgram(files, { ...options, noEmit: true });
  const checker = program.getTypeChecker();
  const found: string[] = [];
  for (const file of files) {
    const source = program.getSourceFile(file)!;
    const visit = (node: ts.Node): void => {
      if (ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) {
        const type = node.type;
        const isConst = ts.isTypeReferenceNode(type) && type.typeName.getText(source) === 'const';
        if (type.kind === ts.SyntaxKind.NeverKeyword || (!isConst && isTableResult(node.expression, checker))) {
          const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
          found.push(`${relative(root, file)}:${line}: ${node.getText(source).replace(/\s+/g, ' ')}`);
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

function compilerOptions(): ts.CompilerOptions {
  const config = ts.readConfigFile(join(root, 'tsconfig.json'), ts.sys.readFile);
  return ts.parseJsonConfigFileContent(config.config, ts.sys, root).options;
}

describe('no casts on table results', () => {
  it('infra and services hold no `as never` and no `as` on what a read of the table answers', () => {
    const files = [...tsFiles(join(root, 'lambdas/infra')), ...tsFiles(join(root, 'lambdas/services'))];
    expect(castsIn(files, compilerOptions())).toEqual([]);
  }, 120_000);

  it('the rule reports each cast on a read and each `as never`, and leaves an event payload and `as const` alone', () => {
    expect(castsIn([fixture], compilerOptions())).toEqual([
      'test/fixtures/architecture/casts/reads.ts:16: res.data as { id: number }[]',
      'test/fixtures/architecture/casts/reads.ts:20: ((await query.go()).data ?? []) as string[]',
      'test/fixtures/architecture/casts/reads.ts:25: res.Item as { id: number } | undefined',
      'test/fixtures/architecture/casts/reads.ts:30: row as { id: number }',
      'test/fixtures/architecture/casts/reads.ts:34: value as never',
    ]);
  }, 60_000);
});
