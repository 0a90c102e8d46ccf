import { describe, expect, it } from 'vitest';
import { mergeByKey } from '#core/pipeline/merge';

interface Entry {
  key: string;
  run: string;
}

async function* source(run: string, keys: string[]): AsyncGenerator<Entry> {
  for (const key of keys) yield { key, run };
}

async function merged(...sources: AsyncIterable<Entry>[]): Promise<string[]> {
  const out: string[] = [];
  for await (const e of mergeByKey(sources, (x) => x.key)) out.push(`${e.key}:${e.run}`);
  return out;
}

describe('merging results in item-key order', () => {
  it('interleaves sources into one sequence in key order', async () => {
    expect(await merged(source('a', ['k1', 'k4', 'k7']), source('b', ['k2', 'k3', 'k9']), source('c', ['k5']))).toEqual([
      'k1:a',
      'k2:b',
      'k3:b',
      'k4:a',
      'k5:c',
      'k7:a',
      'k9:b',
    ]);
  });

  it('keeps the later source\'s entry for a key both hold, once', async () => {
    expect(await merged(source('previous', ['k1', 'k2', 'k3']), source('update', ['k2', 'k4']))).toEqual(['k1:previous', 'k2:update', 'k3:previous', 'k4:update']);
  });

  it('answers nothing for no sources or empty ones', async () => {
    expect(await merged()).toEqual([]);
    expect(await merged(source('a', []), source('b', []))).toEqual([]);
  });

  it('refuses a source that is not in key order instead of losing entries', async () => {
    await expect(merged(source('a', ['k2', 'k1']))).rejects.toThrow(/not in key order/);
  });
});
