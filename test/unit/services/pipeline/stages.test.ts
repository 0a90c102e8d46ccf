import { afterEach, describe, expect, it } from 'vitest';
import { runStage } from '../../../../lambdas/services/pipeline/stages';
import { tableClassifier, useTariffClassifier } from '../../../../lambdas/infra/tariff/classifier-port';
import type { PageItem } from '../../../../lambdas/services/pipeline/pages-store';
import type { Classification } from '../../../../lambdas/core/tariff/classifier';
import { tableMemory, useTariffMemory } from '../../../../lambdas/infra/tariff/memory-port';

afterEach(() => {
  useTariffClassifier(tableClassifier);
  useTariffMemory(tableMemory);
});
/** No partner-code memory: the stage classifies every item (the memory is the integration suite's, test/integration/review). */
const noMemory = { lookup: async () => new Map() };

const answer = { ncm_code: '6109.10.00', duty_rate: 0.2, duty_source: { status: 'verified', source: 'test' }, confidence: 0.9, source: 'offline', reason: 'test' } as unknown as Classification;

const page = (n: number): PageItem[] =>
  Array.from({ length: n }, (_, i) => ({ itemKey: `k${i}`, awb: `A${i}`, hash: 'h', runId: 'r', data: { itemDescription: `item ${i}` } as PageItem['data'] }));

describe('the ai stage', () => {
  it('lets waiting I/O run while it classifies a page, however fast the classifier answers', async () => {
    // A classifier that answers at once: without turns of the event loop, nothing else would run
    // until the whole page is classified (the twin runs web services' quota writes beside it).
    const order: string[] = [];
    useTariffClassifier({ classify: async () => (order.push('item'), answer) });
    useTariffMemory(noMemory);
    setImmediate(() => order.push('io'));
    const out = await runStage('ai', page(500), {}, { accountId: 1, at: new Date() });
    expect(Object.keys(out)).toHaveLength(500);
    const io = order.indexOf('io');
    expect(io).toBeGreaterThan(0);
    expect(io).toBeLessThanOrEqual(50);
  });
});
