import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { authorizer, fallback, pipelineTasks, routes, workers } from '#catalog';
import { budgetFor, budgetsFile, bundlesBytes } from '#scripts/bundle';

const budgets = JSON.parse(readFileSync(budgetsFile, 'utf8')) as Record<string, number>;
/** Every deployed function's handler, once (routes sharing a module share a bundle). */
const handlers = [...new Set([...routes.filter((r) => !r.twinOnly), authorizer, fallback, ...workers, ...Object.values(pipelineTasks)].map((f) => f.handler))];

describe('bundle budgets (scripts/bundle-budgets.json)', () => {
  it('lets a bundle within its target grow to the target, and one above it by 5 to 15 KB', () => {
    expect(budgetFor(41.7 * 1024, 50)).toBe(50);
    expect(budgetFor(499.4 * 1024, 300)).toBe(510);
    expect(budgetFor(505.1 * 1024, 300)).toBe(520);
  });

  it('gives every deployed function a budget, and no function that is gone', () => {
    expect(handlers.filter((h) => !(h in budgets)), 'run npm run bench:cold -- --write-budgets').toEqual([]);
    expect(Object.keys(budgets).filter((h) => !handlers.includes(h))).toEqual([]);
  });

  it('holds every bundle, minified as deployed, within its budget', async () => {
    // One esbuild run builds them all (each module parsed once): half the time of a build each.
    const sizes = [...(await bundlesBytes(handlers))].map(([handler, bytes]) => ({ handler, kb: bytes / 1024 }));
    const over = sizes.filter((s) => s.kb > budgets[s.handler]).map((s) => `${s.handler} ${s.kb.toFixed(1)} KB > ${budgets[s.handler]} KB`);
    expect(over).toEqual([]);
  }, 240_000);
});
