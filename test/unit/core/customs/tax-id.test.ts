import { describe, expect, it } from 'vitest';
import { checkTaxId, cuitCheckDigit, quotaHolder } from '#core/customs/tax-id';

// Check digits worked by hand: weights 5,4,3,2,7,6,5,4,3,2; 11 - (sum mod 11); 11 -> 0, 10 -> 9.
// 20-12345678: 10+0+3+4+21+24+25+24+21+16 = 148; 148 mod 11 = 5; 11 - 5 = 6.
// 30-71234567: 15+0+21+2+14+18+20+20+18+14 = 142; 142 mod 11 = 10; 11 - 10 = 1.
// 33-69345023 (ARCA's own CUIT): 15+12+18+18+21+24+25+0+6+6 = 145; 145 mod 11 = 2; 11 - 2 = 9.
// 20-12345670: 132; 132 mod 11 = 0; 11 - 0 = 11 -> 0.
// 20-12345676: 144; 144 mod 11 = 1; 11 - 1 = 10 -> 9.

describe('CUIT and CUIL check digits', () => {
  it('accepts a person\'s CUIL whose check digit is right', () => {
    expect(checkTaxId('20123456786')).toEqual({
      digits: '20123456786',
      formatted: '20-12345678-6',
      kind: 'person',
      type: 'CUIL',
      valid: true,
      reason: 'valid CUIL of a person (prefix 20)',
    });
  });

  it('accepts a company\'s CUIT and reads it as a company', () => {
    expect(checkTaxId('30-71234567-1')).toMatchObject({ digits: '30712345671', kind: 'company', type: 'CUIT', valid: true });
  });

  it('accepts real published CUITs (ARCA 33-69345023-9, Mercado Libre 30-70308853-4)', () => {
    expect(checkTaxId('33-69345023-9').valid).toBe(true);
    expect(checkTaxId('30-70308853-4').valid).toBe(true);
  });

  it('gives 0 when 11 minus the remainder is 11', () => {
    expect(cuitCheckDigit('2012345670')).toBe(0);
    expect(checkTaxId('20123456700').valid).toBe(true);
  });

  it('gives 9 when 11 minus the remainder is 10', () => {
    expect(cuitCheckDigit('2012345676')).toBe(9);
    expect(checkTaxId('20123456769').valid).toBe(true);
  });

  it('refuses a wrong check digit and names the expected one', () => {
    expect(checkTaxId('20-12345678-5')).toMatchObject({
      valid: false,
      kind: 'person',
      formatted: '20-12345678-5',
      reason: 'check digit of CUIL 20-12345678-5 is 5, expected 6',
    });
  });

  it('refuses an unknown prefix', () => {
    const c = checkTaxId('99123456789');
    expect(c).toMatchObject({ valid: false, kind: 'unknown' });
    expect(c.reason).toMatch(/^prefix 99 is not a CUIT\/CUIL prefix/);
  });

  it('reads the kind from every prefix of the domain facts', () => {
    const kinds = Object.fromEntries(
      ['20', '23', '24', '27', '30', '33', '34', '50', '51', '55'].map((p) => {
        const first10 = `${p}12345678`;
        return [p, checkTaxId(first10 + cuitCheckDigit(first10)).kind];
      }),
    );
    expect(kinds).toEqual({
      20: 'person', 23: 'person', 24: 'person', 27: 'person',
      30: 'company', 33: 'company', 34: 'company',
      50: 'international', 51: 'international', 55: 'international',
    });
  });

  it('keeps a declared CUIT type for a person\'s 11 digits', () => {
    expect(checkTaxId('20123456786', 'cuit').type).toBe('CUIT');
  });
});

describe('DNI and formats', () => {
  it('accepts a DNI of 8 digits as a person, format only', () => {
    expect(checkTaxId('12.345.678')).toMatchObject({ digits: '12345678', formatted: '12345678', kind: 'person', type: 'DNI', valid: true });
  });

  it('accepts a DNI of 7 digits', () => {
    expect(checkTaxId('1234567', 'DNI')).toMatchObject({ type: 'DNI', valid: true });
  });

  it('refuses a declared CUIL that has only the 8 digits of a DNI', () => {
    expect(checkTaxId('12345678', 'CUIL')).toMatchObject({ valid: false, reason: 'a CUIL has 11 digits; 12345678 has 8' });
  });

  it('reads a declared DNI of 11 digits as the CUIL it is, and says so', () => {
    const c = checkTaxId('20123456786', 'DNI');
    expect(c).toMatchObject({ valid: true, type: 'CUIL' });
    expect(c.reason).toContain('declared DNI');
  });

  it('accepts hyphens, dots and spaces and drops them', () => {
    expect(checkTaxId(' 20 12345678 6 ').digits).toBe('20123456786');
    expect(checkTaxId('20.12345678.6').formatted).toBe('20-12345678-6');
  });

  it('refuses letters, other lengths and an empty value', () => {
    expect(checkTaxId('20-1234567A-6')).toMatchObject({ valid: false, digits: null });
    expect(checkTaxId('123456789')).toMatchObject({ valid: false, reason: 'a CUIT or CUIL has 11 digits and a DNI 7 or 8; 123456789 has 9' });
    expect(checkTaxId(undefined)).toMatchObject({ valid: false, reason: 'no tax id', kind: 'unknown', type: null });
    expect(checkTaxId('  ')).toMatchObject({ valid: false, reason: 'no tax id' });
  });
});

describe('quota holder', () => {
  it('gives a CUIL and its DNI one holder, the person', () => {
    expect(quotaHolder(checkTaxId('20123456786'))).toBe('DNI12345678');
    expect(quotaHolder(checkTaxId('12345678'))).toBe('DNI12345678');
    expect(quotaHolder(checkTaxId('1234567'))).toBe('DNI01234567');
  });

  it('gives a company its own CUIT and an invalid id none', () => {
    expect(quotaHolder(checkTaxId('30712345671'))).toBe('30712345671');
    expect(quotaHolder(checkTaxId('20123456785'))).toBeNull();
  });
});
