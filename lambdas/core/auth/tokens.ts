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

/** A well-formed bearer token that names no working token (never issued here, or revoked). */
export const unknownTokenMessage =
  'Authorization: this bearer token is not known here or was revoked. Check that the whole token was copied (it begins dsp_) and that it was issued by this API (each stage and twin has its own); otherwise ask for a new one.';

/**
 * Why an Authorization header holds no bearer token, said so the caller can fix it: missing, another
 * scheme (Basic, Token...), a token without `Bearer ` before it, or nothing usable after `Bearer`.
 * The header's value is never repeated (it may be a secret), only a scheme word.
 */
export function malformedAuthorization(header: string | undefined): TokenRefusal {
  const fix = 'Send the header as `Authorization: Bearer <token>` (the word Bearer, one space, then the token).';
  const value = header?.trim() ?? '';
  if (!value) return { error: 'unauthorized', message: `Authorization: the header is missing or empty. ${fix}` };
  const [first, ...rest] = value.split(/\s+/);
  if (/^bearer$/i.test(first)) {
    return { error: 'unauthorized', message: `Authorization: no token after "Bearer", or one too short to be a token (a token begins dsp_ and has 47 characters). ${fix}` };
  }
  if (rest.length > 0 && /^[A-Za-z]{1,20}$/.test(first)) return { error: 'unauthorized', message: `Authorization: the "${first}" scheme is not taken here. ${fix}` };
  return { error: 'unauthorized', message: `Authorization: the value has no "Bearer " before the token. ${fix}` };
}

/**
 * Why a stored token does not authenticate at `at`, or undefined when it does: unknown or revoked
 * (the generic 401), or expired (401 `token_expired`). Every verification of a token asks this:
 * the authorizer, and a route holding a principal the authorizer resolved earlier.
 */
export interface TokenRefusal {
  error: 'unauthorized' | 'token_expired';
  message: string;
}

export function tokenRefusal(t: { revokedAt?: string; expiresAt?: string } | undefined, at: Date): TokenRefusal | undefined {
  if (!t || t.revokedAt) return { error: 'unauthorized', message: unknownTokenMessage };
  return expiryRefusal(t.expiresAt, at);
}

/** The refusal of a token whose expiry (`expiresAt`, ISO 8601) is `at` or before it. */
export function expiryRefusal(expiresAt: string | undefined, at: Date): TokenRefusal | undefined {
  if (expiresAt === undefined || at.getTime() < Date.parse(expiresAt)) return undefined;
  return { error: 'token_expired', message: `This token expired at ${expiresAt}. Ask for a new token.` };
}

/** How far ahead a token's expiry may be set. */
export const maxTokenLifeYears = 2;

/**
 * An ISO 8601 date and time with its zone (`2027-06-30T18:00:00Z`, `2027-06-30T15:00:00-03:00`,
 * fractions of a second allowed) as an instant; undefined for anything else, a date that does not
 * exist (February 31) included. Date.parse alone takes other forms and rolls impossible dates over.
 */
export function parseIsoInstant(text: string): Date | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|([+-])(\d{2}):(\d{2}))$/i.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac = '', zone, sign, oh, om] = m;
  const fields = [y, mo, d, h, mi, s].map(Number);
  const local = Date.UTC(fields[0], fields[1] - 1, fields[2], fields[3], fields[4], fields[5], Number(frac.padEnd(3, '0').slice(0, 3)));
  const check = new Date(local);
  const same =
    check.getUTCFullYear() === fields[0] &&
    check.getUTCMonth() === fields[1] - 1 &&
    check.getUTCDate() === fields[2] &&
    check.getUTCHours() === fields[3] &&
    check.getUTCMinutes() === fields[4] &&
    check.getUTCSeconds() === fields[5];
  if (!same || Number(oh ?? 0) > 23 || Number(om ?? 0) > 59) return undefined;
  const offset = zone.toUpperCase() === 'Z' ? 0 : (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om)) * 60_000;
  return new Date(local - offset);
}

/**
 * A requested expiry as stored (UTC, `toISOString`), or the reason it is refused: it must be an
 * ISO 8601 date and time with a zone, after `at`, and at most two years after it.
 */
export function checkExpiry(text: string, at: Date): { expiresAt: string } | { problem: string } {
  const instant = parseIsoInstant(text);
  if (!instant) return { problem: 'Must be an ISO 8601 date and time with its zone, e.g. 2027-06-30T18:00:00Z.' };
  if (instant.getTime() <= at.getTime()) return { problem: 'Must be in the future.' };
  const latest = new Date(at);
  latest.setUTCFullYear(latest.getUTCFullYear() + maxTokenLifeYears);
  if (instant.getTime() > latest.getTime()) return { problem: `Must be at most ${maxTokenLifeYears} years ahead (by ${latest.toISOString()}).` };
  return { expiresAt: instant.toISOString() };
}
