import { describe, expect, it } from 'vitest';
import { createOfflineClassifier, type ClassifyInput, type OfflineClassifier } from '#core/tariff/classifier';
import { builtinTariff } from '#core/tariff/builtin';
import { rememberingOffline } from '#infra/tariff/classifier-port';

/** The real offline classifier, counting the descriptions it ranks. */
function counting(): { offline: Pick<OfflineClassifier, 'classify' | 'hsCouldHelp'>; ranked: string[] } {
  const real = createOfflineClassifier(builtinTariff);
  const ranked: string[] = [];
  return {
    ranked,
    offline: {
      hsCouldHelp: () => false,
      classify: (input: ClassifyInput) => {
        ranked.push(input.description ?? '');
        return real.classify(input);
      },
    },
  };
}

describe('the offline classifier behind the port', () => {
  it('answers a repeated input from memory: the same answer, ranked once', async () => {
    const { offline, ranked } = counting();
    const port = rememberingOffline(offline);
    const first = await port.classify({ description: 'Remera de algodon' });
    const again = await port.classify({ description: 'Remera de algodon' });
    expect(again).toEqual(first);
    expect(ranked).toEqual(['Remera de algodon']);
  });

  it('tells inputs apart by every field it reads, not by the description alone', async () => {
    const { offline, ranked } = counting();
    const port = rememberingOffline(offline);
    await port.classify({ description: 'Funda', category: 'Celulares' });
    await port.classify({ description: 'Funda', category: 'Almohadas' });
    await port.classify({ description: 'Funda', hsCode: '4202.32' });
    expect(ranked).toHaveLength(3);
  });

  it('keeps at most its bound, the least recently used going first', async () => {
    const { offline, ranked } = counting();
    const port = rememberingOffline(offline, 2);
    for (const d of ['Zapatillas', 'Auriculares', 'Zapatillas', 'Libro']) await port.classify({ description: d });
    // Auriculares was the least recently used when Libro came: it is ranked again, Zapatillas is not.
    await port.classify({ description: 'Zapatillas' });
    await port.classify({ description: 'Auriculares' });
    expect(ranked).toEqual(['Zapatillas', 'Auriculares', 'Libro', 'Auriculares']);
  });

  it('does not keep a failure: the next call tries again', async () => {
    let calls = 0;
    const port = rememberingOffline(
      {
        hsCouldHelp: () => false,
        classify: () => {
          if (++calls === 1) throw new Error('index not ready');
          return createOfflineClassifier(builtinTariff).classify({ description: 'Libro' });
        },
      },
      10,
    );
    await expect(port.classify({ description: 'Libro' })).rejects.toThrow('index not ready');
    await expect(port.classify({ description: 'Libro' })).resolves.toMatchObject({ ncm_code: expect.any(String) });
    expect(calls).toBe(2);
  });
});
