import { describe, expect, it } from 'vitest';
import { checkExpiry, parseIsoInstant, tokenRefusal } from '#core/auth/tokens';

const at = new Date('2026-11-28T12:00:00.000Z');

describe('token expiry rules', () => {
  it('reads an ISO 8601 time with its zone as an instant, and nothing else', () => {
    expect(parseIsoInstant('2027-06-30T15:00:00-03:00')?.toISOString()).toBe('2027-06-30T18:00:00.000Z');
    expect(parseIsoInstant('2027-06-30T18:00:00.5Z')?.toISOString()).toBe('2027-06-30T18:00:00.500Z');
    expect(parseIsoInstant('2027-06-30t18:00:00z')?.toISOString()).toBe('2027-06-30T18:00:00.000Z');
    for (const bad of ['2027-02-31T00:00:00Z', '2027-06-30', '2027-06-30T18:00:00', '2027-06-30 18:00:00Z', '2027-06-30T24:00:00Z', '2027-06-30T18:00:00+24:00', 'soon']) {
      expect(parseIsoInstant(bad), bad).toBeUndefined();
    }
  });

  it('answers the stored UTC form of an expiry in the future and at most two calendar years ahead, else why not', () => {
    expect(checkExpiry('2028-11-28T12:00:00Z', at)).toEqual({ expiresAt: '2028-11-28T12:00:00.000Z' });
    expect(checkExpiry('2028-11-28T12:00:00.001Z', at)).toEqual({ problem: 'Must be at most 2 years ahead (by 2028-11-28T12:00:00.000Z).' });
    expect(checkExpiry('2026-11-28T12:00:00Z', at)).toEqual({ problem: 'Must be in the future.' });
    expect(checkExpiry('next week', at)).toMatchObject({ problem: expect.stringContaining('ISO 8601') });
  });

  it('refuses a revoked or missing token as unauthorized and an expired one as token_expired, from the expiry on', () => {
    expect(tokenRefusal(undefined, at)?.error).toBe('unauthorized');
    expect(tokenRefusal({ revokedAt: '2026-11-01T00:00:00.000Z', expiresAt: '2026-11-02T00:00:00.000Z' }, at)?.error).toBe('unauthorized');
    expect(tokenRefusal({ expiresAt: '2026-11-28T12:00:00.001Z' }, at)).toBeUndefined();
    expect(tokenRefusal({ expiresAt: '2026-11-28T12:00:00.000Z' }, at)).toEqual({ error: 'token_expired', message: 'This token expired at 2026-11-28T12:00:00.000Z. Ask for a new token.' });
    expect(tokenRefusal({}, at)).toBeUndefined();
  });
});
