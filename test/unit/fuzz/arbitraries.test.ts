import fc from 'fast-check';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { routes } from '#catalog';
import { ManifestSubmission } from '#core/manifests/submission';
import { checkJsonValue } from '#http/kit/json-body';
import { parseMultipart } from '#http/kit/multipart';
import { ValidationFailed } from '#core/errors';
import {
  RawJson,
  defineKey,
  judgeJson,
  kitProblems,
  multipartArbitrary,
  multipartBytes,
  mutatedArbitrary,
  toJsonText,
  validArbitrary,
} from '#support/fuzz/arbitraries';

const schemas = routes.flatMap((r) => Object.entries(r.schemas ?? {}).map(([part, s]) => [`${r.id} ${part}`, s!] as const));

describe('valid values from valibot schemas', () => {
  it.each(schemas)('makes %s values the schema and the kit accept, and not all the same', (_name, schema) => {
    const values = fc.sample(validArbitrary(schema), { seed: 42, numRuns: 40 });
    for (const x of values) {
      expect(v.safeParse(schema, x).success, toJsonText(x)).toBe(true);
      expect(kitProblems(x)).toEqual([]);
    }
    expect(new Set(values.map((x) => toJsonText(x))).size).toBeGreaterThanOrEqual(3);
  });

  it('leaves optional fields out, keeps bounds, draws from picklists and regexes', () => {
    const schema = v.object({
      code: v.pipe(v.string(), v.regex(/^[A-Z]{3}-\d{2}$/)),
      kind: v.picklist(['a', 'b']),
      n: v.pipe(v.number(), v.integer(), v.minValue(5), v.maxValue(9)),
      list: v.pipe(v.array(v.string()), v.minLength(1), v.maxLength(2)),
      note: v.optional(v.pipe(v.string(), v.maxLength(4))),
    });
    const values = fc.sample(validArbitrary(schema), { seed: 7, numRuns: 200 }) as Record<string, unknown>[];
    expect(values.every((x) => /^[A-Z]{3}-\d{2}$/.test(x.code as string) && (x.n as number) >= 5 && (x.n as number) <= 9)).toBe(true);
    expect(new Set(values.map((x) => x.kind))).toEqual(new Set(['a', 'b']));
    expect(values.some((x) => !('note' in x))).toBe(true);
    expect(values.some((x) => 'note' in x)).toBe(true);
  });

  it('meets checks it cannot invert (a CUIT check digit, cross-field rules) by drawing candidates', () => {
    const values = fc.sample(validArbitrary(ManifestSubmission), { seed: 3, numRuns: 30 });
    expect(values.every((x) => v.is(ManifestSubmission, x))).toBe(true);
  });

  it('says so when no value it can make passes a schema', () => {
    expect(() => validArbitrary(v.pipe(v.string(), v.check(() => false)), 'impossible')).toThrow(/cannot make a valid impossible/);
  });
});

describe('mutations', () => {
  it('change one thing of a valid value, and the judge names where it went wrong', () => {
    const mutations = fc.sample(mutatedArbitrary(ManifestSubmission), { seed: 11, numRuns: 300 });
    const judged = mutations.map((m) => ({ m, verdict: judgeJson(ManifestSubmission, toJsonText(m.value) || '{}') }));
    const invalid = judged.filter((j) => !j.verdict.valid);
    expect(invalid.length).toBeGreaterThan(judged.length * 0.6);
    const ops = new Set(mutations.map((m) => m.op.split(' ')[0]));
    for (const op of ['replace', 'null', 'delete', 'extra', 'wrap-array', 'to-object', 'boundary', 'odd-string', 'odd-number', 'deep']) expect(ops).toContain(op);
    // The field named is the one mutated, one of its parents, or one inside it.
    const related = (a: string, b: string) => a === b || a.startsWith(b + '.') || b.startsWith(a + '.') || a === 'body' || b === 'body';
    const named = invalid.filter(({ m, verdict }) => !verdict.valid && !verdict.malformed && verdict.fields.some((f) => related(f, m.path.join('.') || 'body')));
    expect(named.length).toBeGreaterThan(invalid.length * 0.8);
  });
});

describe('JSON text', () => {
  it('writes what JSON.stringify cannot: 1e400, 10,000 levels, and __proto__ as an own key', () => {
    const o: Record<string, unknown> = { a: new RawJson('1e400'), b: [new RawJson('[[1]]')] };
    defineKey(o, '__proto__', { x: 1 });
    expect(toJsonText(o)).toBe('{"a":1e400,"b":[[[1]]],"__proto__":{"x":1}}');
    expect(toJsonText(undefined)).toBe('');
  });

  it.each([
    ['{"a":9007199254740991,"b":1e-130,"c":0}', []],
    ['{"a":9007199254740992}', ['a']],
    ['{"a":[1e-131]}', ['a.0']],
    ['{"__proto__":1,"x":{"constructor":{}}}', ['__proto__', 'x.constructor']],
    ['{"m":{"":1}}', ['m']],
    ['{"a":' + '['.repeat(32) + ']'.repeat(32) + '}', ['a.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0']],
  ])("judges %s as the route kit does (%j)", (text, paths) => {
    const value = JSON.parse(text);
    expect(kitProblems(value)).toEqual(paths);
    let kit: string[] = [];
    try {
      checkJsonValue(value);
    } catch (err) {
      kit = Object.keys((err as ValidationFailed).errors);
    }
    expect(kit.sort()).toEqual([...paths].sort());
  });
});

describe('multipart bodies', () => {
  const parts = [
    { name: 'courier_code', value: 'DHL' },
    { name: 'file', value: Buffer.from('{"a":1}'), fileName: 'm.json', type: 'application/json' },
  ];

  it('writes a form busboy reads whole', async () => {
    const form = await parseMultipart(multipartBytes(parts, 'b0undary'), 'multipart/form-data; boundary=b0undary', { fileBytes: 1024 });
    expect(form.fields).toEqual({ courier_code: 'DHL' });
    expect(form.files.map((f) => [f.field, f.fileName, f.data.toString()])).toEqual([['file', 'm.json', '{"a":1}']]);
  });

  it('damages forms in every way it lists, and leaves some whole', () => {
    const bodies = fc.sample(multipartArbitrary(fc.constant(parts)), { seed: 5, numRuns: 300 });
    const kinds = new Set(bodies.map((b) => b.damage.split(' ')[0]));
    for (const k of ['intact', 'truncated', 'no-close', 'lf', 'other-boundary', 'empty-boundary', 'no-boundary', 'quoted-boundary', 'long-boundary', 'odd-boundary', 'second-file', 'nameless-part', 'odd-filename', 'garbage', 'not-multipart', 'header-only', 'preamble']) {
      expect(kinds).toContain(k);
    }
    // Every content type can be sent as an HTTP header (bytes, no controls).
    expect(bodies.every((b) => /^[\u0020-\u007e\u0080-\u00ff]*$/.test(b.contentType))).toBe(true);
  });

  it('quotes a boundary that is not a token, so an intact form stays readable', async () => {
    const bodies = fc.sample(multipartArbitrary(fc.constant(parts)), { seed: 9, numRuns: 400 }).filter((b) => b.damage === 'intact');
    for (const b of bodies) {
      const form = await parseMultipart(b.body, b.contentType, { fileBytes: 1024 });
      expect(form.fields.courier_code, b.contentType).toBe('DHL');
    }
  });
});
