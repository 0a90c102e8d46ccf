import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../dynamo';
import { config } from '#shared/config';
import { batchWriteAll } from '../batch-write';
import { headOf, type IndexRead, type SearchPack } from '#core/search/index-terms';
import { searchPacks, type SearchPackItem } from './search/entry';

export type { SearchPackItem };

/**
 * The search index (docs/brokers/search.md): packs of values under `SEARCH#<kind>#<head>`, sorted
 * by `<key>#<scope>#<part>`. Written by puts (the same pack, the same key), read by prefix.
 */

/** The BatchWriteItem requests (25 puts each) of these packs, built as they are pulled. */
export function* searchPackRequests(packs: readonly SearchPack[]) {
  for (let i = 0; i < packs.length; i += 25) {
    const slice = packs.slice(i, i + 25).map((p) => ({ ...p, head: headOf(p.kind, p.key) }));
    yield* searchPacks().put(slice).params<{ RequestItems: never }[]>();
  }
}

/** Writes packs on their own (a batch's or a document's few). */
export async function putSearchPacks(packs: readonly SearchPack[]): Promise<void> {
  if (packs.length) await batchWriteAll(searchPackRequests(packs));
}

/**
 * One page of the packs a read asks for, in sort-key order, from `start` (a sort key already read:
 * the page begins after it). A raw Query, because the prefix is any start of the sort key, not a
 * whole composite attribute; each item is parsed by the entity.
 */
export async function readSearchPacks(read: IndexRead, opts: { limit: number; start?: string }): Promise<{ packs: SearchPackItem[]; last: string | null }> {
  const pk = `SEARCH#${read.kind}#${read.head}`;
  const res = await documentClient().send(
    new QueryCommand({
      TableName: config.tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': pk, ':prefix': read.prefix },
      Limit: opts.limit,
      ...(opts.start ? { ExclusiveStartKey: { pk, sk: opts.start } } : {}),
    }),
  );
  const packs = (res.Items ?? []).flatMap((Item) => searchPacks().parse({ Item }).data ?? []);
  const last = res.LastEvaluatedKey?.sk;
  return { packs, last: typeof last === 'string' ? last : null };
}
