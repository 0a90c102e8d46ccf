import { describe, expect, it } from 'vitest';
import { createHmac } from 'node:crypto';
import { isValidManifestSignature, manifestSignature, newManifestSigningSecret } from '#core/manifests/signature';

describe('manifest signatures', () => {
  const secret = newManifestSigningSecret();
  const body = '{"mawbNumber":"176-12345675","items":[]}';

  it('are the hex HMAC-SHA256 of the raw body with a sha256= prefix', () => {
    expect(manifestSignature(secret, body)).toBe('sha256=' + createHmac('sha256', secret).update(body).digest('hex'));
  });

  it('verify the right signature, in any hex case', () => {
    expect(isValidManifestSignature(secret, body, manifestSignature(secret, body))).toBe(true);
    expect(isValidManifestSignature(secret, Buffer.from(body), manifestSignature(secret, body).toUpperCase().replace('SHA256=', 'sha256='))).toBe(true);
  });

  it('refuse a missing, malformed, foreign or stale signature', () => {
    for (const header of [undefined, '', 'sha256=abc', manifestSignature('other', body), manifestSignature(secret, body + ' ')]) {
      expect(isValidManifestSignature(secret, body, header), String(header)).toBe(false);
    }
  });
});
