import type * as v from 'valibot';
import { BadRequest, UnsupportedMediaType, ValidationFailed, emptyFieldErrors } from '#core/errors';
import { validate } from './validate';

/**
 * The one reader of JSON request bodies: `route()` uses it for every `json` route, and the routes
 * that take raw bytes (manifest submissions, document uploads) call it for their JSON. What it
 * refuses, before any schema runs, holds for every body, present and future:
 *
 * - Numbers outside -(2^53 - 1) .. 2^53 - 1, anywhere: `JSON.parse` turns `1e400` into Infinity
 *   and rounds a 30-digit number to the nearest double without a word, so beyond 2^53 the value
 *   read is not the value sent; the table's marshaller refuses such numbers too (a 500 after the
 *   fact). Fractions inside the range are kept, down to 1e-130 in magnitude: DynamoDB stores no
 *   smaller number but 0 (`5e-324` was a 500, "Number underflow", when stored).
 * - Containers nested deeper than 32 levels (the body itself is level 1): DynamoDB stores at most
 *   32, and nothing a client means to send is deeper. The walk is iterative, so 10,000 levels cost
 *   a loop, not a stack overflow.
 * - The keys `__proto__`, `constructor` and `prototype`, anywhere: no field of ours has those names,
 *   and they are the ones that reach prototypes once a body is merged or indexed into an object.
 * - An empty key, anywhere: DynamoDB stores no attribute with an empty name (document `metadata`
 *   holding `{"": 1}` was a 500, "Empty attribute name"). The object that holds it is named.
 *
 * Each problem is a 422 naming the field path as the client sent it (`items.3.fobValueUsd`), at
 * most `jsonBodyLimits.listedProblems` of them. Then the body's shape: a route whose schema is an
 * object gets an object, never an array or a scalar (valibot's object accepts arrays).
 */
export const jsonBodyLimits = {
  maxDepth: 32,
  maxMagnitude: Number.MAX_SAFE_INTEGER,
  /** The smallest magnitude DynamoDB stores, 0 aside. */
  minMagnitude: 1e-130,
  listedProblems: 100,
} as const;

const forbiddenKeys = new Set(['__proto__', 'constructor', 'prototype']);

const numberMessage = `Must be a number from -${jsonBodyLimits.maxMagnitude} to ${jsonBodyLimits.maxMagnitude}: JSON numbers beyond that are not exact.`;
const tinyMessage = `Must be 0 or at least ${jsonBodyLimits.minMagnitude} in magnitude: smaller numbers cannot be stored.`;
const depthMessage = `Must not be nested more than ${jsonBodyLimits.maxDepth} levels deep.`;
const keyMessage = 'This key is not allowed.';
const emptyKeyMessage = 'Must not have an empty key.';

/** Whether a Content-Type names JSON: application/json, or any `+json` type (application/vnd.x+json). */
export function isJsonMediaType(contentType: string | undefined): boolean {
  const mediaType = contentType?.split(';')[0].trim().toLowerCase();
  return mediaType === 'application/json' || Boolean(mediaType?.endsWith('+json'));
}

/** A JSON body (application/json or +json), checked by `checkJsonValue`; empty -> undefined; else 415 / 400. */
export function parseJson(raw: Buffer | undefined, contentType: string | undefined): unknown {
  if (!raw || raw.length === 0) return undefined;
  if (!isJsonMediaType(contentType)) throw new UnsupportedMediaType('Send the body as application/json.');
  let value: unknown;
  try {
    value = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new BadRequest('The body is not valid JSON.');
  }
  checkJsonValue(value);
  return value;
}

interface Container {
  value: object;
  /** The key or index under its parent; undefined for the value the walk started at. */
  key?: string;
  parent?: Container;
  depth: number;
}

/**
 * Refuses (422) out-of-range numbers (too large, or too small to store), too deep nesting,
 * prototype keys and empty keys anywhere in a parsed JSON value. `at` is where the value sits in the body (a multipart field holding JSON, e.g.
 * `['metadata']`): paths and depth count from the body, as if the value had come inside it.
 */
export function checkJsonValue(value: unknown, at: readonly string[] = []): void {
  const errors = emptyFieldErrors();
  let problems = 0;
  const pathOf = (parent: Container | undefined, key: string | undefined) => {
    const keys: string[] = [];
    if (key !== undefined) keys.push(key);
    for (let c = parent; c; c = c.parent) if (c.key !== undefined) keys.push(c.key);
    return [...at, ...keys.reverse()].join('.') || 'body';
  };
  const refuse = (parent: Container | undefined, key: string | undefined, message: string) => {
    if (problems >= jsonBodyLimits.listedProblems) return;
    (errors[pathOf(parent, key)] ??= []).push(message);
    problems++;
  };

  const pending: Container[] = [];
  const visit = (item: unknown, parent: Container | undefined, key: string | undefined, depth: number) => {
    if (typeof item === 'number') {
      if (!(Math.abs(item) <= jsonBodyLimits.maxMagnitude)) refuse(parent, key, numberMessage);
      else if (item !== 0 && Math.abs(item) < jsonBodyLimits.minMagnitude) refuse(parent, key, tinyMessage);
    } else if (typeof item === 'object' && item !== null) {
      if (depth > jsonBodyLimits.maxDepth) refuse(parent, key, depthMessage);
      else pending.push({ value: item, key, parent, depth });
    }
  };

  visit(value, undefined, undefined, at.length + 1);
  while (pending.length > 0 && problems < jsonBodyLimits.listedProblems) {
    const container = pending.pop()!;
    const depth = container.depth + 1;
    if (Array.isArray(container.value)) {
      const items = container.value as unknown[];
      for (let i = 0; i < items.length; i++) visit(items[i], container, String(i), depth);
      continue;
    }
    const record = container.value as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      if (key === '') refuse(container.parent, container.key, emptyKeyMessage);
      else if (forbiddenKeys.has(key)) refuse(container, key, keyMessage);
      else visit(record[key], container, key, depth);
    }
  }
  if (problems > 0) throw new ValidationFailed(errors);
}

const objectSchemaTypes = new Set(['object', 'loose_object', 'strict_object', 'object_with_rest']);

/**
 * A parsed body validated with `schema`, after its shape: an object schema takes only a JSON
 * object (`null` included among the refused). No body at all (undefined) reads as `{}`.
 */
export function validateBody<S extends v.GenericSchema>(schema: S, parsed: unknown): v.InferOutput<S> {
  const body = parsed === undefined ? {} : parsed;
  const isObject = typeof body === 'object' && body !== null && !Array.isArray(body);
  if (objectSchemaTypes.has(schema.type) && !isObject) throw new ValidationFailed({ body: ['Must be a JSON object.'] });
  return validate(schema, body);
}
