import { fileURLToPath } from 'node:url';
import { cruise, type ICruiseOptions, type ICruiseResult, type IViolation } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const fixtures = fileURLToPath(new URL('../../fixtures/architecture/', import.meta.url));

async function ruleSet(): Promise<ICruiseOptions> {
  return extractDepcruiseOptions(`${root}.dependency-cruiser.cjs`);
}

async function violationsIn(dirs: string[], options: ICruiseOptions, tsConfig?: string): Promise<string[]> {
  const { output } = await cruise(dirs, { ...options, validate: true }, {}, tsConfig ? { tsConfig: extractTSConfig(tsConfig) } : {});
  const result = output as ICruiseResult;
  return result.summary.violations.map((v: IViolation) => `${v.rule.name}: ${v.from} -> ${v.to}`).sort();
}

describe('layers', () => {
  it('lambdas, the twin and the hosts have no upward arrow and no circle', async () => {
    const options = await ruleSet();
    const found = await violationsIn(['lambdas', 'twin', 'bin', 'lib', 'scripts'], { ...options, baseDir: root }, `${root}tsconfig.json`);
    expect(found).toEqual([]);
  }, 120_000);

  it('the rule reports an upward import and a circle, naming its rule and both ends', async () => {
    const options = await ruleSet();
    const found = await violationsIn(['lambdas'], { ...options, tsConfig: undefined, baseDir: fixtures });
    expect(found).toEqual([
      'core-imports-only-core: lambdas/core/quota.ts -> lambdas/infra/counter.ts',
      'http-goes-through-services: lambdas/http/quota.ts -> lambdas/infra/counter.ts',
      'no-circular: lambdas/core/price.ts -> lambdas/core/rounding.ts',
      'services-import-down: lambdas/services/quota.ts -> lambdas/http/reply.ts',
    ]);
  }, 120_000);
});
