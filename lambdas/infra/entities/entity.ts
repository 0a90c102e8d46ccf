import { Entity, type Schema } from 'electrodb';
import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../dynamo';
import { config } from '#shared/config';

export const service = 'despacho';

/**
 * Builds an ElectroDB entity on first use, bound to the process's table and client, so a module
 * can declare its entity at load time while the twin and tests choose the table afterwards.
 */
export function defineEntity<A extends string, F extends string, C extends string, S extends Schema<A, F, C>>(
  schema: S,
): () => Entity<A, F, C, S> {
  let entity: Entity<A, F, C, S> | undefined;
  let boundTo: string | undefined;
  return () => {
    const table = config.tableName();
    if (!entity || boundTo !== table) {
      entity = new Entity(schema, { client: documentClient(), table });
      boundTo = table;
    }
    return entity;
  };
}

/** Key options of an entity whose keys keep their case (ElectroDB lower-cases them by default). */
export const keyless = { casing: 'none' } as const;

/** One write of a TransactWriteItems, and its parts: what an entity's `.params<TransactPut>()` (etc.) builds. */
export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];
export type TransactPut = NonNullable<TransactItem['Put']>;
export type TransactUpdate = NonNullable<TransactItem['Update']>;
export type TransactDelete = NonNullable<TransactItem['Delete']>;

/** Integer ids are zero-padded in sort keys so they sort numerically. */
export const pad = (n: number) => String(n).padStart(12, '0');

export { isConditionalFailure } from './conditional';

/** The codes of a cancelled transaction's writes, in order ('None' for a write that was fine); undefined for any other error. */
export function cancellationCodes(err: unknown): string[] | undefined {
  const e = err as { name?: string; CancellationReasons?: { Code?: string }[] };
  if (e?.name !== 'TransactionCanceledException') return undefined;
  return (e.CancellationReasons ?? []).map((r) => r.Code ?? 'None');
}

/** The `${name}` placeholders of a key template, in order: the key's composite attributes. */
type Composites<T extends string> = T extends `${string}\${${infer A}}${infer Rest}` ? [A, ...Composites<Rest>] : [];

/**
 * One key of an index, from its field and template: the composite attributes are read off the
 * template's `${name}` placeholders, so each key is written once. `casing: 'none'` keeps the
 * template's case (entities declared without it store keys lower-cased, ElectroDB's default, and
 * keep doing so).
 */
export function key<F extends string, T extends string>(field: F, template: T): { field: F; composite: Composites<T>; template: T };
export function key<F extends string, T extends string>(field: F, template: T, opts: { casing: 'none' }): { field: F; composite: Composites<T>; template: T; casing: 'none' };
export function key(field: string, template: string, opts?: { casing: 'none' }) {
  const composite = [...template.matchAll(/\$\{(\w+)\}/g)].map((m) => m[1]);
  return { field, composite, template, ...(opts ?? {}) };
}

/** What a plain attribute holds: a scalar, anything (`any`), or one of a list of strings (an enum). */
type Kind = 'string' | 'number' | 'boolean' | 'any' | readonly string[];

type Required<T extends Record<string, Kind>> = { readonly [K in keyof T]: { readonly type: T[K]; readonly required: true } };
type Optional<T extends Record<string, Kind>> = { readonly [K in keyof T]: { readonly type: T[K] } };

function attributesOf(kinds: Record<string, Kind>, required: boolean) {
  return Object.fromEntries(Object.entries(kinds).map(([name, type]) => [name, required ? { type, required: true } : { type }]));
}

/**
 * Plain attributes every record of an entity carries, several to a line:
 * `...required({ batchId: 'string', page: 'number', mode: ['create', 'update'] })`. An attribute
 * with more to it (a field name, a default, a watch) is written out beside them.
 */
export function required<const T extends Record<string, Kind>>(kinds: T): Required<T> {
  return attributesOf(kinds, true) as Required<T>;
}

/** Plain attributes a record may lack: `...optional({ chunk: 'number', failure: 'string' })`. */
export function optional<const T extends Record<string, Kind>>(kinds: T): Optional<T> {
  return attributesOf(kinds, false) as Optional<T>;
}

/**
 * Every item of these keys, by ElectroDB's batch get (`read`: it pages the keys by 100,
 * `concurrency` pages at a time), asking again for the keys DynamoDB hands back unprocessed,
 * as `batchGetAll` (infra/batch-get.ts) does for raw keys, until none is left.
 */
export async function getEvery<K, T>(keys: readonly K[], read: (keys: K[]) => Promise<{ data: T[]; unprocessed: K[] }>): Promise<T[]> {
  const found: T[] = [];
  for (let pending = [...keys], attempt = 0; pending.length; attempt++) {
    if (attempt) await new Promise((r) => setTimeout(r, Math.min(1000, 25 * 2 ** attempt)));
    const res = await read(pending);
    found.push(...res.data);
    pending = res.unprocessed;
  }
  return found;
}
