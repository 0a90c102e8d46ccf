import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * `X-Signature: sha256=<hex>` on manifest submissions: the HMAC-SHA256 of the raw request body,
 * keyed with the partner account's manifest signing secret.
 */
export function newManifestSigningSecret(): string {
  return 'mss_' + randomBytes(32).toString('base64url');
}

export function manifestSignature(secret: string, rawBody: Buffer | string): string {
  return 'sha256=' + createHmac('sha256', secret).update(rawBody).digest('hex');
}

/** Constant-time comparison; a missing or malformed header is simply not valid. */
export function isValidManifestSignature(secret: string, rawBody: Buffer | string, header: string | undefined): boolean {
  if (!header || !/^sha256=[0-9a-f]{64}$/i.test(header.trim())) return false;
  const given = Buffer.from(header.trim().toLowerCase());
  const expected = Buffer.from(manifestSignature(secret, rawBody));
  return given.length === expected.length && timingSafeEqual(given, expected);
}
