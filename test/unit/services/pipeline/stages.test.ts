import { afterEach, describe, expect, it } from 'vitest';
import { runStage } from '#services/pipeline/stages';
import { rememberingOffline, tableClassifier, useTariffClassifier } from '#infra/tariff/classifier-port';
import { createOfflineClassifier } from '#core/tariff/classifier';
import { builtinTariff } from '#core/tariff/builtin';
import { processedProductView } from '#core/manifests/views';
import type { PageItem } from '#services/pipeline/pages-store';
import type { ProcessedResult } from '#core/manifests/model';
import type { Classification } from '#core/tariff/classifier';
import { tableMemory, useTariffMemory } from '#infra/tariff/memory-port';

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

describe('a declared NCM the tariff table does not have (issue 32)', () => {
  it('stays the product code, and the product carries both codes with their reasons for review', async () => {
    // The service's path: the offline classifier behind the port loads the HS tier for the declared code.
    useTariffClassifier(rememberingOffline(createOfflineClassifier(builtinTariff)));
    useTariffMemory(noMemory);
    const data = { itemDescription: 'Escopeta calibre 12 con municion', hsCode: '9303.20.00', consigneeName: 'A' } as PageItem['data'];
    const out = (await runStage('ai', [{ itemKey: 'k', awb: 'A1', hash: 'h', runId: 'r', data }], {}, { accountId: 1, at: new Date() })) as Record<string, ProcessedResult>;
    // Before: ncm_code 9306.90 (ammunition), source hs-fallback, the declared code gone.
    expect(out.k).toMatchObject({ ncm_code: '9303.20.00', classification_source: 'partner', duty_source: { source: 'estimate' } });
    expect(out.k.classification_candidates?.map((c) => c.ncm_code)).toEqual(['9303.20.00', '9306.90']);
    const product = processedProductView({ awb: 'A1', itemKey: 'k', item: { trackingNumber: null, description: data.itemDescription!, consignee: 'A', taxId: null, fob: null } }, out.k);
    expect(product.ncm_code).toBe('9303.20.00');
    expect(product.reasons).toEqual([expect.stringMatching(/^tariff code 9303\.20\.00 as declared, kept for review/), expect.stringMatching(/^tariff code 9306\.90 as the classifier suggests \(hs-fallback, confidence 0\.\d+\), for review: HS fallback/)]);
  });
});
