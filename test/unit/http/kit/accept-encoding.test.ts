import { describe, expect, it } from 'vitest';
import { acceptsGzip } from '#http/kit/accept-encoding';

describe('Accept-Encoding', () => {
  it('takes gzip when named with a weight above 0, or when * is and gzip is not named', () => {
    for (const h of ['gzip', 'gzip, deflate, br', 'br;q=1.0, gzip;q=0.8, *;q=0.1', 'x-gzip', '*', 'GZIP', ' deflate , gzip ; q=0.5']) expect(acceptsGzip(h), h).toBe(true);
  });

  it('refuses gzip at weight 0, identity only, no header, and a * that gzip overrides', () => {
    for (const h of [undefined, '', 'identity', 'br, deflate', 'gzip;q=0', 'gzip;q=0.000', '*;q=0', 'gzip;q=0, *', 'gzip;q=nonsense']) expect(acceptsGzip(h), String(h)).toBe(false);
  });
});
