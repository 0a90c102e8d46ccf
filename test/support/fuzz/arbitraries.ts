import fc from 'fast-check';
import * as v from 'valibot';

/**
 * fast-check arbitraries built from valibot schemas (issue 13, item 2): values a schema calls
 * valid, the same values mutated field by field, hostile leaves, JSON text that JSON.stringify
 * cannot write (1e400, 10,000 levels), and multipart bodies, whole or broken.
 *
 * Valid values are built from the schema's own parts: objects from their entries (optional ones
 * sometimes left out, non-strict ones sometimes with an extra key), arrays within their length
 * bounds, strings from their regexes, lengths, email/url/uuid/timestamp actions and a small
 * dictionary, numbers from their bounds, picklists from their options. Checks the generator cannot
 * invert (a CUIT's check digit, a country list, cross-field rules) are met by drawing a few
 * candidates and keeping the first the schema accepts; a fallback found when the arbitrary is built
 * stands in when none does, so generation never loops. "Valid" also means the route kit's JSON
 * rules hold (`kitProblems`).
 */

// ---------------------------------------------------------------------------------------------
// The route kit's JSON rules, written again here so the fuzz does not take the kit's word for them:
// numbers within 2^53 - 1 and, but for 0, at least 1e-130 in magnitude; 32 levels; no prototype
// keys and no empty keys.

export const maxSafe = Number.MAX_SAFE_INTEGER;
/** The smallest magnitude but 0 that DynamoDB stores. */
export const minStored = 1e-130;
export const forbiddenKeys = ['__proto__', 'constructor', 'prototype'] as const;
const forbidden = new Set<string>(forbiddenKeys);

/** Paths (as the kit names them) where a parsed JSON value breaks the kit's rules; empty when none. */
export function kitProblems(value: unknown, at: string[] = [], depth = at.length + 1): string[] {
  const out: string[] = [];
  const name = (p: string[]) => p.join('.') || 'body';
  const walk = (x: unknown, path: string[], d: number) => {
    if (out.length >= 100) return;
    if (typeof x === 'number') {
      if (!(Math.abs(x) <= maxSafe) || (x !== 0 && Math.abs(x) < minStored)) out.push(name(path));
    } else if (typeof x === 'object' && x !== null) {
      if (d > 32) return void out.push(name(path));
      if (Array.isArray(x)) x.forEach((item, i) => walk(item, [...path, String(i)], d + 1));
      else
        for (const k of Object.keys(x)) {
          if (k === '') out.push(name(path));
          else if (forbidden.has(k)) out.push(name([...path, k]));
          else walk((x as Record<string, unknown>)[k], [...path, k], d + 1);
        }
    }
  };
  walk(value, at, depth);
  return out;
}

const objectTypes = new Set(['object', 'loose_object', 'strict_object', 'object_with_rest']);

export type Verdict = { valid: true } | { valid: false; malformed?: boolean; fields: string[] };

/**
 * What the service should make of a JSON body sent to a route whose body schema is `schema`:
 * malformed text (400), the kit's rules broken, a non-object where an object is expected, or the
 * schema's issues (422 naming `fields`), or valid.
 */
export function judgeJson(schema: v.GenericSchema, text: string): Verdict {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { valid: false, malformed: true, fields: [] };
  }
  return judgeValue(schema, parsed);
}

export function judgeValue(schema: v.GenericSchema, parsed: unknown): Verdict {
  const kit = kitProblems(parsed);
  if (kit.length) return { valid: false, fields: kit };
  const isObject = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed);
  if (objectTypes.has(unpipe(schema).base.type) && !isObject) return { valid: false, fields: ['body'] };
  const res = v.safeParse(schema, parsed);
  if (res.success) return { valid: true };
  return { valid: false, fields: [...new Set(res.issues.map((i) => v.getDotPath(i) ?? 'body'))] };
}

// ---------------------------------------------------------------------------------------------
// Reading a valibot schema.

/* eslint-disable @typescript-eslint/no-explicit-any */
type Node = any;

/** A schema with its pipe flattened: the base schema and every action or schema after it, in order. */
export function unpipe(schema: Node): { base: Node; steps: Node[] } {
  if (!schema.pipe) return { base: schema, steps: [] };
  const inner = unpipe(schema.pipe[0]);
  return { base: inner.base, steps: [...inner.steps, ...schema.pipe.slice(1)] };
}

const wrapperTypes = new Set(['optional', 'exact_optional', 'nullable', 'nullish', 'undefinedable', 'non_optional', 'non_nullable', 'non_nullish']);

/** The schema a value at `path` (keys and indexes) must meet, or undefined where the schema names nothing. */
export function schemaAt(schema: Node, path: readonly string[]): Node | undefined {
  let s: Node = schema;
  for (const key of path) {
    s = shapeOf(s);
    if (!s) return undefined;
    if (objectTypes.has(s.type)) s = s.entries[key] ?? (s.type === 'object_with_rest' ? s.rest : undefined);
    else if (s.type === 'array') s = s.item;
    else if (s.type === 'record') s = s.value;
    else return undefined;
    if (!s) return undefined;
  }
  return s;
}

/** The schema that gives a value its shape: the last schema of a pipe, wrappers removed. */
function shapeOf(schema: Node): Node | undefined {
  let s = schema;
  for (let i = 0; i < 20 && s; i++) {
    const { base, steps } = unpipe(s);
    const later = [...steps].reverse().find((x: Node) => x.kind === 'schema');
    const next = later ?? base;
    if (wrapperTypes.has(next.type)) s = next.wrapped;
    else return next;
  }
  return undefined;
}

interface Bounds {
  minLength: number;
  maxLength: number;
  min: number;
  max: number;
  integer: boolean;
  regexes: RegExp[];
  email: boolean;
  url: boolean;
  uuid: boolean;
  isoTimestamp: boolean;
  trims: boolean;
}

function boundsOf(actions: Node[]): Bounds {
  const b: Bounds = { minLength: 0, maxLength: Infinity, min: -maxSafe, max: maxSafe, integer: false, regexes: [], email: false, url: false, uuid: false, isoTimestamp: false, trims: false };
  for (const a of actions) {
    switch (a.type) {
      case 'min_length':
        b.minLength = Math.max(b.minLength, a.requirement);
        break;
      case 'max_length':
        b.maxLength = Math.min(b.maxLength, a.requirement);
        break;
      case 'length':
        b.minLength = b.maxLength = a.requirement;
        break;
      case 'non_empty':
        b.minLength = Math.max(b.minLength, 1);
        break;
      case 'min_value':
        b.min = Math.max(b.min, Number(a.requirement));
        break;
      case 'max_value':
        b.max = Math.min(b.max, Number(a.requirement));
        break;
      case 'gt_value':
        b.min = Math.max(b.min, Number(a.requirement) + Number.EPSILON * Math.max(1, Math.abs(Number(a.requirement))));
        break;
      case 'lt_value':
        b.max = Math.min(b.max, Number(a.requirement) - Number.EPSILON * Math.max(1, Math.abs(Number(a.requirement))));
        break;
      case 'integer':
        b.integer = true;
        break;
      case 'regex':
        b.regexes.push(a.requirement);
        break;
      case 'email':
        b.email = true;
        break;
      case 'url':
        b.url = true;
        break;
      case 'uuid':
        b.uuid = true;
        break;
      case 'iso_timestamp':
        b.isoTimestamp = true;
        break;
      case 'trim':
        b.trims = true;
        break;
    }
  }
  return b;
}

// ---------------------------------------------------------------------------------------------
// Valid values.

/** Strings that meet checks a generator cannot invert: codes, tax ids, dates, addresses. */
export const dictionary = [
  'AR', 'CN', 'US', 'br', 'de', 'ARS', 'usd', 'DHL', 'fedex', 'despacho', 'standard', 'express',
  '20-12345678-6', '20123456786', '27-11111111-1', '30500010912', '12345678', '1234567',
  '2026-11-21', '2026-11-21T10:00:00Z', '2026-01-31T12:00:00.123+03:00',
  'https://shop.example/item/1', 'http://localhost:3000/x', 'a@example.com', 'maria.perez@example.com.ar',
  'sha256:' + 'ab'.repeat(32), '6109.10.00', 'MAWB-001', 'AWB0000001', 'María Pérez', '東京', '🚚 envío',
] as const;

const asciiWord = fc.stringMatching(/^[a-z][a-z0-9]{0,11}$/);
const emailArb = fc.oneof(fc.tuple(asciiWord, asciiWord).map(([a, b]) => `${a}@${b}.com`), fc.emailAddress());
const urlArb = fc.oneof(fc.webUrl(), asciiWord.map((w) => `https://${w}.example/${w}`));
const isoArb = fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString());

/** An integer in [lo, hi], also beyond 32 bits. */
function intIn(lo: number, hi: number): fc.Arbitrary<number> {
  lo = Math.ceil(lo);
  hi = Math.floor(hi);
  if (hi < lo) return fc.constant(lo);
  if (lo >= -(2 ** 31) && hi <= 2 ** 31 - 1) return fc.integer({ min: lo, max: hi });
  return fc.bigInt({ min: BigInt(lo), max: BigInt(hi) }).map(Number);
}

function stringCandidates(b: Bounds): fc.Arbitrary<string> {
  const lo = b.minLength;
  const hi = Math.min(b.maxLength, 100_000);
  const short = Math.min(hi, lo + 40);
  const alts: fc.Arbitrary<string>[] = [];
  if (b.email) alts.push(emailArb, emailArb);
  if (b.url) alts.push(urlArb, urlArb);
  if (b.uuid) alts.push(fc.uuid(), fc.uuid());
  if (b.isoTimestamp) alts.push(isoArb, isoArb);
  for (const r of b.regexes) {
    try {
      const m = fc.stringMatching(r);
      alts.push(m, m);
    } catch {
      // A regex fast-check cannot read: the other candidates stand in.
    }
  }
  alts.push(
    fc.string({ unit: 'grapheme', minLength: lo, maxLength: short }),
    fc.string({ unit: 'binary', minLength: lo, maxLength: short }),
    fc.string({ unit: 'grapheme-ascii', minLength: lo, maxLength: short }),
    fc.constantFrom(...dictionary),
    fc.stringMatching(/^\d{1,15}$/),
    fc.stringMatching(/^[A-Za-z]{2,3}$/),
  );
  if (Number.isFinite(hi) && hi <= 5000) alts.push(fc.constant('x'.repeat(hi)), fc.string({ unit: 'grapheme-ascii', minLength: hi, maxLength: hi }));
  const base = fc.oneof(...alts);
  // Leading and trailing space where the schema trims: the value kept is the same.
  return b.trims ? fc.tuple(base, fc.constantFrom('', '', '', ' ', '\t ', '  ')).map(([s, pad]) => pad + s + pad) : base;
}

function numberCandidates(b: Bounds): fc.Arbitrary<number> {
  const lo = Math.max(b.min, -maxSafe);
  const hi = Math.min(b.max, maxSafe);
  const alts: fc.Arbitrary<number>[] = [intIn(lo, Math.min(hi, lo + 100)), intIn(lo, hi), fc.constantFrom(lo, hi, 0, 1)];
  if (!b.integer) {
    alts.push(
      fc.double({ min: lo, max: hi, noNaN: true, noDefaultInfinity: true }),
      intIn(Math.max(lo, -1e9) * 100, Math.min(hi, 1e9) * 100).map((c) => c / 100),
    );
  }
  return fc.oneof(...alts).map((n) => (Object.is(n, -0) ? 0 : n));
}

/** JSON values (for `unknown`, `custom`): the kit's rules hold, a few levels deep. */
export const jsonValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.oneof(fc.string({ unit: 'grapheme', maxLength: 20 }), fc.integer(), fc.double({ min: -1e9, max: 1e9, noNaN: true }), fc.boolean(), fc.constant(null)),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.string({ minLength: 1, maxLength: 10 }).filter((k) => !forbidden.has(k)), tie('value'), { maxKeys: 4 }),
  ),
})).value;

const cache = new WeakMap<object, fc.Arbitrary<unknown>>();

/** Values `schema` accepts (and the kit's JSON rules with them). Throws when it finds none. */
export function validArbitrary(schema: v.GenericSchema, name = 'value'): fc.Arbitrary<unknown> {
  const hit = cache.get(schema);
  if (hit) return hit;
  const accepts = (x: unknown) => v.is(schema, x) && (x === undefined || kitProblems(x).length === 0);
  const arb = firstAccepted(candidates(schema as Node, name), accepts, name);
  cache.set(schema, arb);
  return arb;
}

/**
 * Keeps candidates the schema accepts. The arbitrary is tried when it is built: where most
 * candidates pass, one is drawn per value; otherwise a few, and the first accepted is kept. A
 * fallback found now (a sampled candidate or a dictionary word) stands in when none is.
 */
function firstAccepted<T>(arb: fc.Arbitrary<T>, accepts: (x: T) => boolean, name: string): fc.Arbitrary<T> {
  const sample = fc.sample(arb, { seed: 1, numRuns: 50 });
  const passed = sample.filter(accepts).length;
  const fallback = sample.find(accepts) ?? (dictionary as readonly unknown[] as T[]).find(accepts) ?? fc.sample(arb, { seed: 2, numRuns: 500 }).find(accepts);
  if (fallback === undefined) {
    if (accepts(undefined as T)) return fc.constant(undefined as T);
    throw new Error(`The fuzz cannot make a valid ${name}: no candidate passed its schema.`);
  }
  const rate = passed / sample.length;
  const tries = rate > 0.9 ? 1 : rate > 0.5 ? 3 : 6;
  // Even where every sampled candidate passed, each value is checked: a sample proves nothing.
  if (tries === 1) return arb.map((x) => (accepts(x) ? x : fallback));
  return fc.array(arb, { minLength: tries, maxLength: tries }).map((xs) => xs.find(accepts) ?? fallback);
}

function candidates(schema: Node, name: string): fc.Arbitrary<unknown> {
  const { base, steps } = unpipe(schema);
  const later = [...steps].reverse().find((x: Node) => x.kind === 'schema');
  const actions = steps.filter((x: Node) => x.kind !== 'schema');
  const own = baseCandidates(base, actions, name);
  return later ? fc.oneof(candidates(later, name), own) : own;
}

function baseCandidates(s: Node, actions: Node[], name: string): fc.Arbitrary<unknown> {
  const b = boundsOf(actions);
  switch (s.type) {
    case 'string':
      return stringCandidates(b);
    case 'number':
      return numberCandidates(b);
    case 'boolean':
      return fc.boolean();
    case 'picklist':
      return fc.constantFrom(...(s.options as unknown[]));
    case 'literal':
      return fc.constant(s.literal);
    case 'null':
      return fc.constant(null);
    case 'undefined':
      return fc.constant(undefined);
    case 'optional':
    case 'exact_optional':
    case 'undefinedable':
      return fc.oneof(fc.constant(undefined), validArbitrary(s.wrapped, name));
    case 'nullable':
      return fc.oneof(fc.constant(null), validArbitrary(s.wrapped, name));
    case 'nullish':
      return fc.oneof(fc.constant(null), fc.constant(undefined), validArbitrary(s.wrapped, name));
    case 'union':
    case 'variant':
      return fc.oneof(...(s.options as Node[]).map((o) => validArbitrary(o, name)));
    case 'array': {
      const lo = b.minLength;
      const hi = Math.min(b.maxLength, lo + 3);
      return fc.array(validArbitrary(s.item, `${name}[]`), { minLength: lo, maxLength: hi });
    }
    case 'record': {
      const key = validArbitrary(s.key, `${name} key`).filter((k) => typeof k === 'string' && k !== '' && !forbidden.has(k));
      return fc.dictionary(key as fc.Arbitrary<string>, validArbitrary(s.value, `${name} value`), { maxKeys: 4 });
    }
    case 'object':
    case 'loose_object':
    case 'strict_object':
    case 'object_with_rest': {
      const entries = Object.fromEntries(Object.entries(s.entries as Record<string, Node>).map(([k, e]) => [k, validArbitrary(e, `${name}.${k}`)]));
      const record = fc.record(entries).map((o) => Object.fromEntries(Object.entries(o).filter(([, x]) => x !== undefined)));
      if (s.type === 'strict_object') return record;
      // A non-strict object ignores keys it does not name: sometimes send one.
      const extra = fc.option(fc.tuple(fc.constantFrom('x_extra', 'comment', 'Extra Field', 'ñandú'), jsonValue), { freq: 4 });
      return fc.tuple(record, extra).map(([o, e]) => (e && !(e[0] in s.entries) ? { ...o, [e[0]]: e[1] } : o));
    }
    case 'unknown':
    case 'any':
    case 'custom':
      return jsonValue;
    default:
      throw new Error(`The fuzz does not know valibot's ${s.type} schema (${name}).`);
  }
}

// ---------------------------------------------------------------------------------------------
// Hostile values and mutations.

/** Text put into a JSON body as it is: numbers JSON.stringify cannot write, nesting it would overflow on. */
export class RawJson {
  constructor(readonly text: string) {}
}

/** JSON text of `value`, with each RawJson written verbatim. */
export function toJsonText(value: unknown): string {
  const raws: string[] = [];
  const tag = `@@raw${Math.random().toString(36).slice(2)}@@`;
  const text = JSON.stringify(value, (_k, x) => {
    if (x instanceof RawJson) {
      raws.push(x.text);
      return `${tag}${raws.length - 1}`;
    }
    return x;
  });
  if (text === undefined) return '';
  return raws.length === 0 ? text : text.replace(new RegExp(`"${tag}(\\d+)"`, 'g'), (_m, i) => raws[Number(i)]);
}

const deep = (n: number, open = '[', close = ']') => new RawJson(open.repeat(n) + '1' + close.repeat(n));
const deepObject = (n: number) => new RawJson('{"a":'.repeat(n) + '1' + '}'.repeat(n));

/** Strings that are odd as text: lone surrogates, controls, bidi, zero-width, BOM, huge. */
export const oddString = fc.oneof(
  fc.constantFrom(
    '', ' ', '   ', '\t\n', '\uD800', '\uDC00', 'a\uD83D', '\uDE00b', '\u0000', 'a\u0000b', '\u0007\u001b[31m', '\u007f', '\u0085',
    '\u202Eabc', '\u2066x\u2069', '\u200B', '\uFEFF', '\u2028\u2029', 'e\u0301\u0301\u0301', '🚚'.repeat(50), 'null', 'undefined', 'NaN',
    '<script>alert(1)</script>', "'; DROP TABLE x; --", '${jndi:ldap://x}', '../../etc/passwd', '%00', '\\', '"', '{"a":1}', 'x'.repeat(300),
    'x'.repeat(5001), 'ñ'.repeat(70_000), '0x10', '1e400', '-0', '  padded  ',
  ),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', minLength: 200, maxLength: 400 }),
);

/** Numbers at and past every edge: the kit's 2^53 - 1, doubles' extremes, text JSON cannot hold. */
export const oddNumber: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(
    -1, 0, -0.5, 0.1, 1.5, 2 ** 31, 2 ** 32, maxSafe, maxSafe + 1, -maxSafe - 1, 2 ** 53 + 2, Number.MAX_VALUE, -Number.MAX_VALUE, 5e-324, 1e-7, 1e21,
    new RawJson('1e400'), new RawJson('-1e400'), new RawJson('9007199254740993'), new RawJson('123456789012345678901234567890'), new RawJson('1e-400'),
    new RawJson('-0'), new RawJson('1E5'), new RawJson('0.30000000000000004'),
  ),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
);

/** A value of any type, chosen to be wrong somewhere. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  oddString,
  oddNumber,
  fc.constantFrom<unknown>(null, true, false, [], {}, [null], [[]], { '': null }, deep(33), deep(40), deepObject(33), deep(10_000), deepObject(10_000)),
  jsonValue,
);

/** Keys a body should not carry: prototype keys, empty, huge, odd text. */
export const oddKey = fc.constantFrom(
  '__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '', ' ', 'x', '$where', 'items.0', 'a'.repeat(300), '\u0000', '\uD800', '\u202E', '🚚',
);

export type Mutation = { value: unknown; path: string[]; op: string };

/** Every path into a value (object keys, array indexes), the value itself first; at most `max`. */
export function pathsOf(value: unknown, max = 200): string[][] {
  const out: string[][] = [];
  const walk = (x: unknown, path: string[]) => {
    if (out.length >= max || path.length > 8) return;
    out.push(path);
    if (Array.isArray(x)) x.forEach((item, i) => walk(item, [...path, String(i)]));
    else if (x && typeof x === 'object' && !(x instanceof RawJson)) for (const k of Object.keys(x)) walk((x as Record<string, unknown>)[k], [...path, k]);
  };
  walk(value, []);
  return out;
}

function getAt(value: unknown, path: string[]): unknown {
  let x = value;
  for (const k of path) x = (x as Record<string, unknown>)?.[k];
  return x;
}

/** A copy of `value` with `path` replaced by `replace(old)`; REMOVE deletes it. */
const REMOVE = Symbol('remove');
function setAt(value: unknown, path: string[], replace: (old: unknown) => unknown): unknown {
  if (path.length === 0) return replace(value);
  const [head, ...rest] = path;
  if (Array.isArray(value)) {
    const copy = value.slice();
    const next = setAt(copy[Number(head)], rest, replace);
    if (next === REMOVE) copy.splice(Number(head), 1);
    else copy[Number(head)] = next;
    return copy;
  }
  const copy: Record<string, unknown> = {};
  for (const k of Object.keys(value as object)) defineKey(copy, k, (value as Record<string, unknown>)[k]);
  const next = setAt(copy[head], rest, replace);
  if (next === REMOVE) delete copy[head];
  else defineKey(copy, head, next);
  return copy;
}

/** An own, enumerable key, `__proto__` included (an assignment would set the prototype instead). */
export function defineKey(o: Record<string, unknown>, key: string, value: unknown) {
  Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Values at and just past the bounds the schema at this spot declares. */
function boundaryValues(s: Node | undefined): unknown[] {
  if (!s) return [];
  const shape = shapeOf(s);
  if (!shape) return [];
  const actions = unpipe(s).steps.filter((x: Node) => x.kind !== 'schema');
  const { steps } = unpipe(shape);
  const b = boundsOf([...actions, ...steps]);
  switch (shape.type) {
    case 'string': {
      const out: unknown[] = [12, true, ['x'], { x: 'y' }, '', '   '];
      if (Number.isFinite(b.maxLength)) out.push('x'.repeat(b.maxLength + 1), 'ñ'.repeat(b.maxLength + 1), ` ${'x'.repeat(b.maxLength)} `);
      if (b.minLength > 1) out.push('x'.repeat(b.minLength - 1));
      return out;
    }
    case 'number': {
      const out: unknown[] = ['12', '', true, [1], { n: 1 }];
      if (b.min > -maxSafe) out.push(b.min - 1, b.min - 0.5, b.min);
      if (b.max < maxSafe) out.push(b.max + 1, b.max + 0.01, b.max);
      if (b.integer) out.push(1.5, 1e-9 + 1);
      return out;
    }
    case 'picklist':
      return [...(shape.options as string[]).map((o) => String(o).toUpperCase()), ...(shape.options as string[]).map((o) => ` ${o}`), 'unknown', '', 0];
    case 'boolean':
      return ['true', 'false', 0, 1, 'yes'];
    case 'array':
      return [{}, 'x', [null], Array.from({ length: Math.min(Number.isFinite(b.maxLength) ? b.maxLength + 1 : 1001, 100_001) }, () => null)];
    default:
      return objectTypes.has(shape.type) ? [[], 'x', 1, [{}]] : [];
  }
}

/**
 * A valid value of `schema` with one thing wrong, anywhere in it: a type, a null, a missing field,
 * an extra or prototype key, an array for an object (or an object for an array), a number past an
 * edge, odd text, nesting past the kit's 32 levels, or a value just past the field's own bounds.
 * The result may still be valid (a removed optional field): judge it with `judgeValue`.
 */
export function mutatedArbitrary(schema: v.GenericSchema, valid: fc.Arbitrary<unknown> = validArbitrary(schema)): fc.Arbitrary<Mutation> {
  const ops = fc.constantFrom('replace', 'null', 'delete', 'extra-key', 'wrap-array', 'to-object', 'boundary', 'boundary', 'odd-string', 'odd-number', 'deep');
  return fc.tuple(valid, fc.nat(), ops, hostileValue, oddKey, oddString, oddNumber, fc.nat()).map(([value, pick, op, hostile, key, str, num, k]) => {
    const paths = pathsOf(value);
    const path = paths[pick % paths.length];
    switch (op) {
      case 'null':
        return { value: setAt(value, path, () => null), path, op };
      case 'delete':
        if (path.length === 0) return { value: undefined, path, op: 'empty body' };
        return { value: setAt(value, path, () => REMOVE), path, op };
      case 'extra-key': {
        // On the nearest object at or above the chosen spot.
        let objectPath = path;
        while (objectPath.length > 0 && !isPlainObject(getAt(value, objectPath))) objectPath = objectPath.slice(0, -1);
        if (isPlainObject(getAt(value, objectPath))) {
          const withKey = (o: unknown) => {
            const copy = cloneKeys(o as object);
            defineKey(copy, key, hostile);
            return copy;
          };
          return { value: setAt(value, objectPath, withKey), path: [...objectPath, key], op: `extra key ${JSON.stringify(key)}` };
        }
        return { value: setAt(value, path, () => hostile), path, op: 'replace' };
      }
      case 'wrap-array':
        return { value: setAt(value, path, (o) => [o]), path, op };
      case 'to-object':
        return { value: setAt(value, path, (o) => (Array.isArray(o) ? { ...o } : { value: o })), path, op };
      case 'boundary': {
        const options = boundaryValues(schemaAt(schema, path));
        if (options.length === 0) return { value: setAt(value, path, () => hostile), path, op: 'replace' };
        return { value: setAt(value, path, () => options[k % options.length]), path, op };
      }
      case 'odd-string':
        return { value: setAt(value, path, () => str), path, op };
      case 'odd-number':
        return { value: setAt(value, path, () => num), path, op };
      case 'deep':
        return { value: setAt(value, path, () => [deep(31), deepObject(33), deep(10_000)][k % 3]), path, op };
      default:
        return { value: setAt(value, path, () => hostile), path, op: 'replace' };
    }
  });
}

function isPlainObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x) && !(x instanceof RawJson);
}

function cloneKeys(o: object): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const k of Object.keys(o)) defineKey(copy, k, (o as Record<string, unknown>)[k]);
  return copy;
}


// ---------------------------------------------------------------------------------------------
// Multipart bodies.

export interface Part {
  name: string;
  value: string | Buffer;
  fileName?: string;
  type?: string;
}

/** multipart/form-data bytes written by hand, so they can be written wrong. */
export function multipartBytes(parts: Part[], boundary: string, opts: { lf?: boolean; noClose?: boolean } = {}): Buffer {
  const nl = opts.lf ? '\n' : '\r\n';
  const chunks: Buffer[] = [];
  for (const p of parts) {
    let head = `--${boundary}${nl}Content-Disposition: form-data; name="${p.name}"`;
    if (p.fileName !== undefined) head += `; filename="${p.fileName}"`;
    head += nl;
    if (p.type) head += `Content-Type: ${p.type}${nl}`;
    chunks.push(Buffer.from(head + nl), Buffer.isBuffer(p.value) ? p.value : Buffer.from(p.value), Buffer.from(nl));
  }
  if (!opts.noClose) chunks.push(Buffer.from(`--${boundary}--${nl}`));
  return Buffer.concat(chunks);
}

export interface MultipartBody {
  body: Buffer;
  contentType: string;
  /** What was done to it; `intact` for a well-formed body. */
  damage: string;
}

const boundaryArb = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9'()+_,\-./:=?]{1,69}[A-Za-z0-9]$/),
  fc.constant('----WebKitFormBoundary7MA4YWxkTrZu0gW'),
);

/**
 * A multipart body from `parts`, then damaged (or not): cut short anywhere, no closing boundary,
 * LF line ends, a boundary the header does not declare or declares empty, quoted, over 70
 * characters or with odd bytes, a second file, a part without a name, a file name with a path,
 * NUL or bidi characters, binary garbage, or a content type that is not multipart.
 */
export function multipartArbitrary(parts: fc.Arbitrary<Part[]>): fc.Arbitrary<MultipartBody> {
  const damage = fc.constantFrom(
    'intact', 'intact', 'intact', 'truncated', 'truncated', 'no-close', 'lf', 'other-boundary', 'empty-boundary', 'no-boundary', 'quoted-boundary',
    'long-boundary', 'odd-boundary', 'second-file', 'nameless-part', 'odd-filename', 'garbage', 'not-multipart', 'header-only', 'preamble',
  );
  return fc.tuple(parts, boundaryArb, damage, fc.nat(), oddString).map(([ps, boundary, d, cut, odd]) => {
    // A boundary with characters a token may not hold (RFC 2045 tspecials) is sent quoted.
    const ct = (b: string) => `multipart/form-data; boundary=${/[()<>@,;:\\"/[\]?=\s]/.test(b) ? `"${b}"` : b}`;
    switch (d) {
      case 'truncated': {
        const whole = multipartBytes(ps, boundary);
        return { body: whole.subarray(0, cut % Math.max(1, whole.length)), contentType: ct(boundary), damage: `truncated at ${cut % Math.max(1, whole.length)}` };
      }
      case 'no-close':
        return { body: multipartBytes(ps, boundary, { noClose: true }), contentType: ct(boundary), damage: d };
      case 'lf':
        return { body: multipartBytes(ps, boundary, { lf: true }), contentType: ct(boundary), damage: d };
      case 'other-boundary':
        return { body: multipartBytes(ps, boundary), contentType: ct(boundary + 'X'), damage: d };
      case 'empty-boundary':
        return { body: multipartBytes(ps, boundary), contentType: 'multipart/form-data; boundary=', damage: d };
      case 'no-boundary':
        return { body: multipartBytes(ps, boundary), contentType: 'multipart/form-data', damage: d };
      case 'quoted-boundary':
        return { body: multipartBytes(ps, boundary), contentType: `multipart/form-data; boundary="${boundary}"`, damage: d };
      case 'long-boundary': {
        const b = 'b'.repeat(71 + (cut % 2000));
        return { body: multipartBytes(ps, b), contentType: ct(b), damage: d };
      }
      case 'odd-boundary': {
        // Header values carry bytes, not text: controls and characters past U+00FF become '?'.
        const b = `${boundary}${odd.replace(/[^\u0020-\u007e\u0080-\u00ff]/g, '?')}`;
        return { body: multipartBytes(ps, b), contentType: ct(b), damage: d };
      }
      case 'second-file':
        return { body: multipartBytes([...ps, { name: 'file', value: Buffer.from('second'), fileName: 'two.pdf', type: 'application/pdf' }], boundary), contentType: ct(boundary), damage: d };
      case 'nameless-part':
        return { body: Buffer.concat([Buffer.from(`--${boundary}\r\nContent-Disposition: form-data\r\n\r\nx\r\n`), multipartBytes(ps, boundary)]), contentType: ct(boundary), damage: d };
      case 'odd-filename':
        return { body: multipartBytes(ps.map((p) => (p.fileName !== undefined ? { ...p, fileName: ['../../etc/passwd', 'a\u0000.pdf', '\u202Efdp.exe', odd, '', '.pdf', 'x'.repeat(300) + '.pdf'][cut % 7] } : p)), boundary), contentType: ct(boundary), damage: d };
      case 'garbage':
        return { body: Buffer.from(Array.from({ length: 1 + (cut % 512) }, (_, i) => (i * 131 + cut) % 256)), contentType: ct(boundary), damage: d };
      case 'not-multipart':
        return { body: multipartBytes(ps, boundary), contentType: ['multipart/mixed; boundary=' + boundary, 'application/octet-stream', 'text/plain', 'application/json'][cut % 4], damage: d };
      case 'header-only':
        return { body: Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\n`), contentType: ct(boundary), damage: d };
      case 'preamble':
        return { body: Buffer.concat([Buffer.from('preamble text\r\n'), multipartBytes(ps, boundary), Buffer.from('epilogue')]), contentType: ct(boundary), damage: d };
      default:
        return { body: multipartBytes(ps, boundary), contentType: ct(boundary), damage: 'intact' };
    }
  });
}
