import { describe, expect, it } from 'vitest';
import * as v from 'valibot';
import { ServiceError, ValidationFailed } from '#core/errors';
import { checkJsonValue, jsonBodyLimits, parseJson, validateBody } from '#http/kit/json-body';
import { validate } from '#http/kit/validate';

const json = 'application/json';
const parse = (text: string) => parseJson(Buffer.from(text), json);

/** The field errors of a 422, or fails the test. */
function errorsOf(run: () => unknown): Record<string, string[]> {
  let caught: unknown;
  try {
    run();
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(ValidationFailed);
  expect((caught as ValidationFailed).status).toBe(422);
  return { ...(caught as ValidationFailed).errors };
}

const statusOf = (run: () => unknown) => {
  try {
    run();
  } catch (err) {
    return (err as ServiceError).status;
  }
  return undefined;
};

/** `{"a":{"a":...{"a":1}}}` with `levels` objects, built as text (JSON.stringify would recurse). */
const nestedObjects = (levels: number) => '{"a":'.repeat(levels - 1) + '{"a":1}' + '}'.repeat(levels - 1);

describe('parseJson', () => {
  it('answers 415 for a body that is not JSON, 400 for malformed JSON, and undefined for no body', () => {
    expect(statusOf(() => parseJson(Buffer.from('a=1'), 'application/x-www-form-urlencoded'))).toBe(415);
    expect(statusOf(() => parse('{"a":'))).toBe(400);
    expect(parseJson(undefined, json)).toBeUndefined();
    expect(parseJson(Buffer.from('{"a":1}'), 'application/vnd.api+json; charset=utf-8')).toEqual({ a: 1 });
  });

  it('keeps numbers from -(2^53 - 1) to 2^53 - 1, fractions and exponents included, down to 1e-130 in magnitude', () => {
    expect(parse('{"a":9007199254740991,"b":-9007199254740991,"c":12.5,"d":1e15,"e":1e-130,"f":0,"g":-0,"h":-1e-130}')).toEqual({
      a: Number.MAX_SAFE_INTEGER,
      b: -Number.MAX_SAFE_INTEGER,
      c: 12.5,
      d: 1e15,
      e: 1e-130,
      f: 0,
      g: -0,
      h: -1e-130,
    });
  });

  it.each([
    ['1e-131', 'just below the smallest magnitude DynamoDB stores'],
    ['-1e-300', 'a tiny negative'],
    ['5e-324', 'the smallest double'],
    ['1e-400', 'a number JSON.parse turns into 0 only past the double range'],
  ])('refuses %s (%s) with a 422 naming the field path, unless it reads as 0', (n) => {
    if (Number(n) === 0) {
      expect(parse(`{"metadata":{"x":${n}}}`)).toEqual({ metadata: { x: 0 } });
      return;
    }
    expect(errorsOf(() => parse(`{"metadata":{"x":${n}}}`))).toEqual({
      'metadata.x': ['Must be 0 or at least 1e-130 in magnitude: smaller numbers cannot be stored.'],
    });
  });

  it.each([
    ['9007199254740992', '2^53'],
    ['-9007199254740992', '-2^53'],
    ['1e20', 'an exponent'],
    ['1.7976931348623157e308', 'the largest double'],
    ['123456789012345678901234567890', 'a 30-digit number, which JSON.parse rounds'],
    ['1e400', 'a number JSON.parse turns into Infinity'],
    ['-1e400', 'one it turns into -Infinity'],
  ])('refuses %s (%s) with a 422 naming the field path', (n) => {
    expect(errorsOf(() => parse(`{"items":[{"fobValueUsd":1},{"fobValueUsd":${n}}]}`))).toEqual({
      'items.1.fobValueUsd': ['Must be a number from -9007199254740991 to 9007199254740991: JSON numbers beyond that are not exact.'],
    });
  });

  it('names a number that is the whole body `body`', () => {
    expect(Object.keys(errorsOf(() => parse('1e400')))).toEqual(['body']);
  });

  it('accepts 32 levels of nesting and refuses 33, naming the container that is one too deep', () => {
    expect(parse(nestedObjects(jsonBodyLimits.maxDepth))).toBeTruthy();
    const errors = errorsOf(() => parse(nestedObjects(jsonBodyLimits.maxDepth + 1)));
    expect(errors).toEqual({ [Array(32).fill('a').join('.')]: ['Must not be nested more than 32 levels deep.'] });
  });

  it('refuses 10,000 levels of objects or of arrays with one 422, without overflowing the stack', () => {
    expect(Object.values(errorsOf(() => parse(nestedObjects(10_000))))).toEqual([['Must not be nested more than 32 levels deep.']]);
    expect(Object.keys(errorsOf(() => parse('['.repeat(10_000) + ']'.repeat(10_000))))).toEqual([Array(32).fill('0').join('.')]);
  });

  it('refuses __proto__, constructor and prototype keys anywhere, naming each, and leaves Object.prototype alone', () => {
    const errors = errorsOf(() => parse('{"__proto__":{"polluted":1},"a":{"constructor":{"prototype":{"x":1}}},"b":[{"prototype":1}]}'));
    expect(errors).toEqual({
      ['__proto__']: ['This key is not allowed.'],
      'a.constructor': ['This key is not allowed.'],
      'b.0.prototype': ['This key is not allowed.'],
    });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses an empty key anywhere, naming the object that holds it', () => {
    expect(errorsOf(() => parse('{"metadata":{"a":{"":1}},"b":[{"":null}]}'))).toEqual({
      'metadata.a': ['Must not have an empty key.'],
      'b.0': ['Must not have an empty key.'],
    });
    expect(errorsOf(() => parse('{"":1}'))).toEqual({ body: ['Must not have an empty key.'] });
    expect(parse('{" ":1,"a":""}')).toEqual({ ' ': 1, a: '' });
  });

  it('accepts those words as values and as parts of longer keys', () => {
    expect(parse('{"note":"__proto__","constructorName":"x","prototypes":["constructor"]}')).toEqual({
      note: '__proto__',
      constructorName: 'x',
      prototypes: ['constructor'],
    });
  });

  it('lists at most 100 problems', () => {
    const body = JSON.stringify({ items: Array.from({ length: 500 }, () => ({ n: 0 })) }).replaceAll('"n":0', '"n":1e30');
    expect(Object.keys(errorsOf(() => parse(body)))).toHaveLength(jsonBodyLimits.listedProblems);
  });
});

describe('checkJsonValue', () => {
  it('counts a value found inside a field (a multipart `metadata`) from the body: path and depth', () => {
    const errors = errorsOf(() => checkJsonValue(JSON.parse(nestedObjects(32)), ['metadata']));
    expect(errors).toEqual({ [['metadata', ...Array(31).fill('a')].join('.')]: ['Must not be nested more than 32 levels deep.'] });
    expect(errorsOf(() => checkJsonValue({ size: 1e21 }, ['metadata']))).toHaveProperty(['metadata.size']);
  });

  it('passes strings, booleans and null untouched', () => {
    expect(() => checkJsonValue({ a: 'x', b: true, c: null, d: [] })).not.toThrow();
  });
});

describe('validateBody', () => {
  const Body = v.object({ reason: v.optional(v.string()) });
  const Piped = v.pipe(v.strictObject({ a: v.optional(v.number()) }), v.check(() => true));

  it.each([[[1, 2, 3]], [['x']], [[]], ['text'], [42], [true], [null]])('answers %j to an object schema with a 422 naming body', (input) => {
    expect(errorsOf(() => validateBody(Body, input))).toEqual({ body: ['Must be a JSON object.'] });
    expect(errorsOf(() => validateBody(Piped, input))).toEqual({ body: ['Must be a JSON object.'] });
  });

  it('validates an object as usual, and no body at all as {}', () => {
    expect(validateBody(Body, { reason: 'late' })).toEqual({ reason: 'late' });
    expect(validateBody(Body, undefined)).toEqual({});
  });

  it('lets an array through to a schema that expects one', () => {
    expect(validateBody(v.array(v.number()), [1, 2])).toEqual([1, 2]);
  });
});

describe('the validation error map', () => {
  it('holds fields named __proto__, constructor and toString like any other', () => {
    expect(errorsOf(() => validate(v.strictObject({}), JSON.parse('{"__proto__":1}')))).toEqual({ ['__proto__']: ['Invalid key: Expected never but received "__proto__"'] });
    const errors = errorsOf(() => validate(v.object({ constructor: v.string('Required.'), toString: v.string('Required.') }), {}));
    expect(errors).toEqual({ ['constructor']: ['Required.'], ['toString']: ['Required.'] });
  });
});
