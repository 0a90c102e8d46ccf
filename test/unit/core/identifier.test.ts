import { describe, expect, it } from 'vitest';
import { isSafeIdentifier } from '#core/identifier';

describe('isSafeIdentifier', () => {
  it.each([
    ['AWB\u0000', 'NUL'],
    ['AWB\t1', 'tab'],
    ['AWB\u007f', 'DEL'],
    ['AWB\u0085', 'C1 next line'],
    ['AWB\u202e321', 'right-to-left override'],
    ['AWB\u200f', 'right-to-left mark'],
    ['A\u2066WB\u2069', 'isolates'],
    ['AWB\u061c', 'Arabic letter mark'],
    ['AWB\ud800', 'a high surrogate alone'],
    ['\udc00AWB', 'a low surrogate alone'],
    ['AWB\udc00\ud800', 'surrogates in the wrong order'],
  ])('refuses %j (%s)', (id) => {
    expect(isSafeIdentifier(id)).toBe(false);
  });

  it.each([['176-12345675'], ['HAWB 0001'], ['Ñandú-Envíos'], ['箱-7'], ['MAWB-😀'], ['AWB#1/2']])('accepts %j', (id) => {
    expect(isSafeIdentifier(id)).toBe(true);
  });
});
