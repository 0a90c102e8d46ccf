import { describe, expect, it } from 'vitest';
import { Lru } from '#shared/lru';

describe('Lru', () => {
  it('keeps at most its bound, dropping the least recently read or written first', () => {
    const lru = new Lru<string, number>(2);
    lru.set('a', 1);
    lru.set('b', 2);
    expect(lru.get('a')).toBe(1);
    lru.set('c', 3);
    expect(lru.get('b')).toBeUndefined();
    expect(lru.get('a')).toBe(1);
    expect(lru.get('c')).toBe(3);
    expect(lru.size).toBe(2);
  });

  it('removes an entry only while it still holds the value it is asked to remove', () => {
    const lru = new Lru<string, string>(5);
    lru.set('k', 'old');
    lru.set('k', 'new');
    lru.deleteIf('k', 'old');
    expect(lru.get('k')).toBe('new');
    lru.deleteIf('k', 'new');
    expect(lru.get('k')).toBeUndefined();
  });
});
