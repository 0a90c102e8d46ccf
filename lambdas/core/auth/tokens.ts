import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Visible prefix so a leaked token is recognisable by secret scanners. */
export const tokenPrefix = 'dsp_';

/** 32 random bytes, base64url: shown once, never stored. */
export function generateToken(): string {
  return tokenPrefix + randomBytes(32).toString('base64url');
}

/** The only form in which a token is stored. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** `Authorization: Bearer <token>` -> token, or undefined when absent or malformed. */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer\s+(\S{16,512})\s*$/i.exec(header);
  return match?.[1];
}

export function constantTimeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
