import { afterEach, describe, expect, it, vi } from 'vitest';
import type * as cursors from '#infra/cursors';

/** The module keeps its key once read: each test loads it afresh under the key it sets. */
async function cursorsWith(key: string): Promise<typeof cursors> {
  vi.resetModules();
  vi.stubEnv('CURSOR_KEY', key);
  return import('#infra/cursors');
}

afterEach(() => vi.unstubAllEnvs());

describe('page cursors', () => {
  it('open to what they were sealed from, the same text always giving the same cursor', async () => {
    const { sealCursor, openCursor, encodeCursor, parseCursor } = await cursorsWith('k'.repeat(64));
    const c = await sealCursor('2026-11-20T10:00:00.000Z|evt_1');
    expect(c).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(await sealCursor('2026-11-20T10:00:00.000Z|evt_1')).toBe(c);
    expect(await openCursor(c)).toBe('2026-11-20T10:00:00.000Z|evt_1');
    expect(await parseCursor(await encodeCursor({ a: 7 }))).toEqual({ a: 7 });
  });

  it('refuse one changed by a character, one made up, one unsigned and one of another key', async () => {
    const { sealCursor, openCursor } = await cursorsWith('k'.repeat(64));
    const c = await sealCursor('offset 40');
    for (let at = 0; at < c.length; at++) {
      const changed = c.slice(0, at) + (c[at] === 'A' ? 'B' : 'A') + c.slice(at + 1);
      expect(await openCursor(changed), `character ${at}`).toBeUndefined();
    }
    expect(await openCursor(Buffer.from('offset 4000').toString('base64url'))).toBeUndefined();
    expect(await openCursor('')).toBeUndefined();
    expect(await openCursor('not a cursor!')).toBeUndefined();
    const other = await cursorsWith('o'.repeat(64));
    expect(await other.openCursor(c)).toBeUndefined();
  });

  it('need a key: without one a cursor is an error of the function, never an unsigned cursor', async () => {
    vi.resetModules();
    vi.stubEnv('CURSOR_KEY', '');
    vi.stubEnv('CURSOR_KEY_SECRET_ARN', '');
    const { sealCursor } = await import('#infra/cursors');
    await expect(sealCursor('x')).rejects.toThrow(/No cursor key/);
  });
});
