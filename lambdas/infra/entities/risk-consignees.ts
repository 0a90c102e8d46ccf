import { batchGetAll } from '../batch-get';
import { transactUpdates } from '../transact-chunks';
import { config } from '#shared/config';
import { tableSchema } from '../table-schema';
import { mapConcurrent } from '#shared/concurrency';
import type { ConsigneeSeen } from '#core/customs/risk-rules';

/**
 * What recent flights hold of each tax id, for the `split_across_couriers` rule
 * (core/customs/risk-rules.ts): one item per tax id, `pk` `RISKCONS#<tax key>`, `sk` `RECENT`,
 * with one attribute per batch that held it, `b_<batch id>`: its summary (ConsigneeSeen: account,
 * day, AWBs, FOB, largest AWB, up to 5 kinds; a few hundred bytes). A run of the batch sets its
 * own attribute again (a re-run replaces, never adds) and removes those older than the longest
 * window (31 days), so the item holds the batches of a month; a tax id already seen in
 * `maxBatchesKept` batches of the month is not written more (the rule flags it on those).
 * `ttl`: the item goes a month after its last write.
 */

const key = (taxKey: string) => ({ pk: `RISKCONS#${taxKey}`, sk: 'RECENT' });
const attribute = (batchId: string) => `b_${batchId}`;

/** Batches a tax id's item keeps at most: 50 summaries, some 20 KB. */
export const maxBatchesKept = 50;

/** BatchGetItem calls in flight at once (100 tax ids each). */
const readsAtOnce = 8;

/** What other flights hold of these tax keys, by key and batch id. One BatchGetItem per 100 keys, 8 at once. */
export async function consigneesSeen(taxKeys: readonly string[]): Promise<Map<string, Map<string, ConsigneeSeen>>> {
  const out = new Map<string, Map<string, ConsigneeSeen>>();
  if (!taxKeys.length) return out;
  const chunks = Array.from({ length: Math.ceil(taxKeys.length / 100) }, (_, k) => taxKeys.slice(k * 100, (k + 1) * 100).map(key));
  const items = (await mapConcurrent(chunks, readsAtOnce, (keys) => batchGetAll(keys))).flat();
  for (const item of items) {
    const batches = new Map<string, ConsigneeSeen>();
    for (const [name, value] of Object.entries(item)) if (name.startsWith('b_') && value && typeof value === 'object') batches.set(name.slice(2), value as ConsigneeSeen);
    out.set(String(item.pk).slice('RISKCONS#'.length), batches);
  }
  return out;
}

/**
 * Keeps this batch's summary of each of its tax ids: SET its attribute, REMOVE those of batches
 * older than the month (`known`: what `consigneesSeen` read, by key), 100 tax ids to a transaction.
 */
export async function keepConsignees(
  batchId: string,
  summaries: ReadonlyMap<string, ConsigneeSeen>,
  known: ReadonlyMap<string, ReadonlyMap<string, ConsigneeSeen>>,
  oldestKept: string,
  ttl: number,
): Promise<void> {
  const updates = [];
  for (const taxKey of [...summaries.keys()].sort()) {
    const others = [...(known.get(taxKey) ?? [])].filter(([b]) => b !== batchId);
    const stale = others.filter(([, s]) => !(s.day >= oldestKept)).map(([b]) => b);
    if (others.length - stale.length >= maxBatchesKept) continue;
    const names: Record<string, string> = { '#mine': attribute(batchId), '#ttl': tableSchema.ttlAttribute };
    stale.forEach((b, i) => (names[`#s${i}`] = attribute(b)));
    updates.push({
      TableName: config.tableName(),
      Key: key(taxKey),
      UpdateExpression: `SET #mine = :mine, #ttl = :ttl${stale.length ? ` REMOVE ${stale.map((_, i) => `#s${i}`).join(', ')}` : ''}`,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: { ':mine': summaries.get(taxKey)!, ':ttl': ttl },
    });
  }
  await transactUpdates(updates);
}
