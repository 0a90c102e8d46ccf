import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { batchWriteAll } from '../batch-write';
import { documentClient } from '../dynamo';
import { config } from '#shared/config';
import { tableSchema } from '../table-schema';
import { mapConcurrent } from '#shared/concurrency';

/**
 * Which tax ids each recent flight held, for the `split_across_couriers` rule
 * (core/customs/risk-rules.ts), kept so that a flight of 10,000 parcels finds the few tax ids
 * other couriers also shipped to without a read per tax id: one item per completed batch and day,
 * `pk` `RISKSEEN#<YYYY-MM-DD>`, `sk` `<batch id>` (`#<part>` after the first 50,000 tax ids), with
 * the courier (`account`), the sorted 32-bit hashes of the flight's tax ids (`hashes`, binary, 4
 * bytes each: 200 KB at most) and where the flight's summaries are (`file`, in storage: per tax id
 * its AWBs, FOB, largest AWB and kinds). A flight reads the items of the window's days (one
 * Query per day), probes its own tax ids' hashes, and reads the summaries file of a batch only
 * when one of its tax ids is there (a hash matched: a false match, one in 4 billion per tax id
 * and batch, costs a file read and is then dropped by the exact key). `ttl` removes the items a
 * month on. A re-run of the batch puts its item again (the newest day's is the one read).
 */

export interface SeenBatch {
  batchId: string;
  account: number;
  day: string;
  hashes: Uint32Array;
  file: string;
}

/** Hashes per item: 50,000 (200 KB of DynamoDB's 400 KB). */
const hashesPerItem = 50_000;

const dayKey = (day: string) => `RISKSEEN#${day}`;

/** Keeps a completed flight's tax ids (their hashes, sorted) and where its summaries are. */
export async function keepSeen(batch: SeenBatch, ttl: number): Promise<void> {
  const parts = Math.max(1, Math.ceil(batch.hashes.length / hashesPerItem));
  const items = Array.from({ length: parts }, (_, p) => {
    const slice = batch.hashes.subarray(p * hashesPerItem, (p + 1) * hashesPerItem);
    return {
      pk: dayKey(batch.day),
      sk: p ? `${batch.batchId}#${p}` : batch.batchId,
      batchId: batch.batchId,
      account: batch.account,
      file: batch.file,
      hashes: Buffer.from(slice.buffer, slice.byteOffset, slice.byteLength),
      [tableSchema.ttlAttribute]: ttl,
    };
  });
  const table = config.tableName();
  await batchWriteAll(
    Array.from({ length: Math.ceil(items.length / 25) }, (_, b) => ({ RequestItems: { [table]: items.slice(b * 25, (b + 1) * 25).map((Item) => ({ PutRequest: { Item } })) } })),
  );
}

/** The flights kept on these days, one per batch (a batch kept on two days: the later), its parts joined. */
export async function seenOn(days: readonly string[]): Promise<SeenBatch[]> {
  const byBatch = new Map<string, { account: number; day: string; file: string; parts: Map<number, Uint32Array> }>();
  const perDay = await mapConcurrent(days, 4, async (day) => {
    const rows: Record<string, unknown>[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const res = await documentClient().send(
        new QueryCommand({ TableName: config.tableName(), KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': dayKey(day) }, ExclusiveStartKey: start }),
      );
      rows.push(...(res.Items ?? []));
      start = res.LastEvaluatedKey;
    } while (start);
    return rows.map((r): Record<string, unknown> => ({ ...r, day }));
  });
  for (const row of perDay.flat()) {
    const batchId = String(row.batchId);
    const part = Number(String(row.sk).split('#')[1] ?? 0);
    const bytes = row.hashes as Uint8Array;
    const hashes = new Uint32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
    const had = byBatch.get(batchId);
    const day = String(row.day);
    if (had && had.day > day) continue;
    const entry = had && had.day === day ? had : { account: Number(row.account), day, file: String(row.file), parts: new Map<number, Uint32Array>() };
    entry.parts.set(part, hashes);
    byBatch.set(batchId, entry);
  }
  return [...byBatch].map(([batchId, e]) => {
    const parts = [...e.parts].sort((a, b) => a[0] - b[0]).map(([, h]) => h);
    const hashes = parts.length === 1 ? parts[0] : Uint32Array.from(parts.flatMap((h) => [...h]));
    return { batchId, account: e.account, day: e.day, file: e.file, hashes };
  });
}
