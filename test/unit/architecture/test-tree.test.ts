import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The testing page's rule (docs/developers/testing.md), held: a unit test of lambdas/ sits at the
 * mirrored path, `test/unit/<layer>/<path>/<name>.test.ts` for `lambdas/<layer>/<path>/`, where
 * that folder exists, and imports a module of it (its own module, `<name>.ts`, when it tests one;
 * a test of several modules of the folder is named after what it checks). Tests of the tooling
 * sit beside, under their own names (architecture/, client/, contract/, fuzz/, workflows/, cost/).
 */
const root = fileURLToPath(new URL('../../../', import.meta.url));
const layers = ['catalog', 'core', 'infra', 'services', 'http', 'workers', 'shared'];

function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? testFiles(path) : name.endsWith('.test.ts') ? [path] : [];
  });
}

/** What a unit test at `file` breaks of the rule, or nothing. */
export function misplaced(file: string, repo: string, text = readFileSync(file, 'utf8')): string | undefined {
  const rel = relative(join(repo, 'test/unit'), file);
  const folder = dirname(rel);
  const source = join(repo, 'lambdas', folder);
  if (!statSync(source, { throwIfNoEntry: false })?.isDirectory()) return `${rel}: no folder lambdas/${folder}`;
  const layer = folder.split('/')[0];
  const within = folder.slice(layer.length + 1);
  const imports = [...text.matchAll(/from '(#[a-z]+(?:\/[^']*)?|[./][^']*)'/g)].map((m) => m[1]);
  const reaches = imports.some((s) => {
    const path = s.startsWith('#') ? s.slice(1) : relative(join(repo, 'lambdas'), join(dirname(file), s));
    return path === `${layer}${within ? `/${within}` : ''}` || path.startsWith(`${layer}/${within ? `${within}/` : ''}`);
  });
  return reaches ? undefined : `${rel}: imports no module of lambdas/${folder}`;
}

describe('the unit tests of lambdas/', () => {
  it('each sit at the mirrored path of the folder they test, and import a module of it', () => {
    const files = layers.flatMap((l) => {
      const dir = join(root, 'test/unit', l);
      return statSync(dir, { throwIfNoEntry: false }) ? testFiles(dir) : [];
    });
    expect(files.length).toBeGreaterThan(50);
    expect(files.map((f) => misplaced(f, root)).filter(Boolean)).toEqual([]);
  });

  it('reports a test in a folder lambdas/ does not have, and one that imports nothing of its folder', () => {
    expect(misplaced(join(root, 'test/unit/core/nowhere/rule.test.ts'), root, '')).toBe('core/nowhere/rule.test.ts: no folder lambdas/core/nowhere');
    const ordersOnly = "import { orderChannels } from '../../../../lambdas/core/orders/model';";
    expect(misplaced(join(root, 'test/unit/core/customs/quota.test.ts'), root, ordersOnly)).toBe('core/customs/quota.test.ts: imports no module of lambdas/core/customs');
    expect(misplaced(join(root, 'test/unit/core/orders/model.test.ts'), root, ordersOnly)).toBeUndefined();
    expect(misplaced(join(root, 'test/unit/core/orders/model.test.ts'), root, "import { orderChannels } from '#core/orders/model';")).toBeUndefined();
  });
});
