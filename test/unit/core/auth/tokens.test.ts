import { describe, expect, it } from 'vitest';
import { bearerToken, malformedAuthorization, tokenRefusal } from '#core/auth/tokens';

describe('why an Authorization header holds no token', () => {
  it('says what is wrong in each case, differently, and never repeats the value', () => {
    const token = 'dsp_' + 'a'.repeat(43);
    const cases = [undefined, '  ', token, `Basic ${token}`, 'Bearer', 'Bearer short'];
    for (const header of cases) expect(bearerToken(header), header).toBeUndefined();
    const messages = cases.map((h) => malformedAuthorization(h).message);
    expect(messages.slice(1).map((m) => m.split('.')[0])).toEqual([
      'Authorization: the header is missing or empty',
      'Authorization: the value has no "Bearer " before the token',
      'Authorization: the "Basic" scheme is not taken here',
      'Authorization: no token after "Bearer", or one too short to be a token (a token begins dsp_ and has 47 characters)',
      'Authorization: no token after "Bearer", or one too short to be a token (a token begins dsp_ and has 47 characters)',
    ]);
    for (const m of messages) expect(m).not.toContain('a'.repeat(16));
  });

  it('tells an unknown token from a malformed header', () => {
    expect(tokenRefusal(undefined, new Date())!.message).toMatch(/^Authorization: this bearer token is not known here or was revoked\./);
  });
});
