import { describe, expect, it } from 'vitest';
import { ceilTo, cmToIn, kgToLb, lbToKg, inToCm, packageIn, systemOfOrigin } from '#core/shipping/units';

describe('package units for the carriers', () => {
  it('converts kilograms to pounds rounded up to a tenth, never declaring a package lighter', () => {
    expect(kgToLb(1)).toBe(2.3); // 2.2046 lb
    expect(kgToLb(2.3)).toBe(5.1); // 5.0706 lb
    expect(kgToLb(0.45359237)).toBe(1); // exactly one pound stays one pound
    expect(kgToLb(10)).toBe(22.1); // 22.046
  });

  it('converts centimetres to whole inches rounded up', () => {
    expect(cmToIn(2.54)).toBe(1);
    expect(cmToIn(30)).toBe(12); // 11.81
    expect(cmToIn(30.5)).toBe(13); // 12.008
    expect(cmToIn(25.4)).toBe(10);
  });

  it('is not fooled by float noise when rounding up', () => {
    expect(ceilTo(2.2, 1)).toBe(2.2);
    expect(ceilTo(0.1 + 0.2, 1)).toBe(0.3);
    expect(ceilTo(1.00001, 0)).toBe(2);
  });

  it('converts quotes given in pounds and inches to kilograms and centimetres exactly, so they convert back unchanged', () => {
    expect(lbToKg(1)).toBe(0.45359237);
    expect(inToCm(12)).toBeCloseTo(30.48, 10);
    expect(kgToLb(lbToKg(4.4))).toBe(4.4);
    expect(cmToIn(inToCm(12))).toBe(12);
  });

  it('gives a package in pounds and inches from the US and in kilograms and centimetres elsewhere', () => {
    expect(systemOfOrigin('US')).toBe('imperial');
    expect(systemOfOrigin('ar')).toBe('metric');
    expect(packageIn('imperial', { weight: 2.3, length: 30.5, width: 20, height: 10 })).toEqual({ weight: 5.1, length: 13, width: 8, height: 4, weightUnit: 'LB', dimensionUnit: 'IN' });
    expect(packageIn('metric', { weight: 2.31, length: 30.2, width: 20, height: 10 })).toEqual({ weight: 2.4, length: 31, width: 20, height: 10, weightUnit: 'KG', dimensionUnit: 'CM' });
    expect(packageIn('metric', { weight: 0.01, length: 1, width: 1, height: 1 }).weight).toBe(0.1);
  });
});
