/**
 * `npm run bench:intake`: manifest intake on the local twin, against raw BatchWriteItem.
 *
 * 1. one submission of 10,000 items (one request, under the 6 MB limit);
 * 2. a chunked upload of 100,000 items in 50 chunks of 2,000 (each well under 5 MB).
 *
 * Each intake is timed from the first byte sent to the last answer (items are stored when the
 * service answers), then the same items are written with plain BatchWriteItem (25 per call, the
 * same 8 calls in flight the service uses) into another table of the same DynamoDB Local, in the
 * same run. Prints items/s, the ratio intake / raw, and the peak RSS of this process (the twin:
 * HTTP server, handlers and the bench client; DynamoDB Local is its own Java process). Checks
 * every item was stored exactly once. Targets: ratio <= 2.0, peak RSS < 512 MB; exits 1 if missed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { startTwin } from '../twin/twin';
import { ensureTable, startDynamoLocal } from '../twin/dynamodb-local';
import { rawWrite as writeRaw } from './raw-writes';
import { item as testItem } from '../test/support/manifests';

const singleItems = Number(process.env.BENCH_SINGLE_ITEMS ?? 10_000);
const chunkCount = Number(process.env.BENCH_CHUNKS ?? 50);
const chunkItems = Number(process.env.BENCH_CHUNK_ITEMS ?? 2_000);
const targets = { ratio: 2.0, rssMb: 512 };

process.env.LOG_LEVEL = 'WARN';
process.env.POWERTOOLS_LOG_LEVEL = 'WARN';

let peakRss = 0;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 50);

/** The test suite's item (spec 2.5), with this run's AWB and key so runs never collide. */
const item = (i: number, run: string) =>
  testItem(i, { awbNumber: `${run}-${String(i).padStart(7, '0')}`, itemIdempotencyKey: `${run}-line-${i}`, itemDescription: 'Cotton t-shirt, crew neck, size M' });

const dataDir = mkdtempSync(join(tmpdir(), 'despacho-bench-'));
const adminToken = 'bench-admin-token-0123456789';
// In memory: the bench compares intake with raw writes, not the disk's fsync.
const dynamo = await startDynamoLocal();
const tableName = 'bench_intake';
const twin = await startTwin({ port: 0, dataDir, tableName, adminToken, jobPollMs: 1000, dynamoEndpoint: dynamo.endpoint });
const rawClient = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint: dynamo.endpoint }));
const rawTable = 'bench_raw_writes';
await ensureTable(rawClient as unknown as DynamoDBClient, rawTable);

async function api(method: string, path: string, token: string, body?: unknown) {
  const res = await fetch(twin.apiUrl + path, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

const rawWrite = (items: object[], tag: string) => writeRaw(rawClient, rawTable, items, tag);

/**
 * Counts a batch's stored items by reading them back. The item keys end in a line number, so the
 * partition is read as nine key ranges at once (DynamoDB Local pages one long range slowly).
 */
async function storedItems(batchId: string, run: string): Promise<number> {
  const counts = await Promise.all(
    ['1', '2', '3', '4', '5', '6', '7', '8', '9'].map(async (d) => {
      let count = 0;
      let start: Record<string, unknown> | undefined;
      do {
        const res = await rawClient.send(
          new QueryCommand({
            TableName: tableName,
            KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sk)',
            ExpressionAttributeValues: { ':pk': `BATCH#${batchId}`, ':sk': `ITEM#${run}-line-${d}` },
            Select: 'COUNT',
            ExclusiveStartKey: start,
          }),
        );
        count += res.Count ?? 0;
        start = res.LastEvaluatedKey;
      } while (start);
      return count;
    }),
  );
  return counts.reduce((a, b) => a + b, 0);
}

const rows: { name: string; items: number; intakeMs: number; rawMs: number; batchId: string; run: string; stored?: number }[] = [];
try {
  const account = (await api('POST', '/v1/admin/accounts', adminToken, { name: 'Bench Courier', kind: 'partner' })).body.data;
  const token = (await api('POST', '/v1/admin/tokens', adminToken, { account_id: account.id, name: 'bench', role: 'partner' })).body.data.token;

  // Warm-up (not measured): the JVM of DynamoDB Local and Node's JIT start cold, and whichever
  // side ran first would pay for it.
  {
    const run = 'W' + randomUUID().slice(0, 6);
    const items = Array.from({ length: 1000 }, (_, i) => item(i + 1, run));
    const warm = await api('POST', '/v1/couriers/default/manifests/webhook', token, { mawbNumber: `MAWB-${run}`, items });
    if (warm.status !== 202) throw new Error(`warm-up: ${warm.status}`);
    await rawWrite(items, run);
  }

  // 1. One submission of 10,000 items.
  {
    const run = 'S' + randomUUID().slice(0, 6);
    const items = Array.from({ length: singleItems }, (_, i) => item(i + 1, run));
    const body = JSON.stringify({ mawbNumber: `MAWB-${run}`, items });
    const key = randomUUID();
    const started = performance.now();
    const res = await fetch(twin.apiUrl + '/v1/couriers/default/manifests/webhook', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': key },
      body,
    });
    const answer = (await res.json()) as any;
    const intakeMs = performance.now() - started;
    if (res.status !== 202) throw new Error(`single submission: ${res.status} ${JSON.stringify(answer).slice(0, 500)}`);
    const batchId = (await api('GET', `/v1/couriers/default/webhook/${key}/status`, token)).body.batch_id;
    const rawMs = await rawWrite(items, run);
    rows.push({ name: `single submission (${(Buffer.byteLength(body) / 1e6).toFixed(1)} MB)`, items: singleItems, intakeMs, rawMs, batchId, run });
  }

  // 2. 100,000 items in 50 chunks, sent one after another; each chunk is built just before it is
  //    sent, and its raw baseline is written right after it, so both see the same machine load.
  {
    const run = 'C' + randomUUID().slice(0, 6);
    const base = randomUUID();
    const total = chunkCount * chunkItems;
    let largest = 0;
    let batchId = '';
    let intakeMs = 0;
    let rawMs = 0;
    for (let n = 1; n <= chunkCount; n++) {
      const items = Array.from({ length: chunkItems }, (_, i) => item((n - 1) * chunkItems + i + 1, run));
      const body = JSON.stringify({ mawbNumber: `MAWB-${run}`, items, _chunk_metadata: { chunk_number: n, total_chunks: chunkCount, base_idempotency_key: base, total_items: total } });
      largest = Math.max(largest, Buffer.byteLength(body));
      const started = performance.now();
      const res = await api('POST', '/v1/couriers/default/manifests/webhook', token, body);
      intakeMs += performance.now() - started;
      if (res.status !== 202) throw new Error(`chunk ${n}: ${res.status} ${JSON.stringify(res.body).slice(0, 500)}`);
      if (n === chunkCount) {
        if (res.body.status !== 'complete') throw new Error(`last chunk answered ${res.body.status}`);
        batchId = res.body.batch_id;
      }
      rawMs += await rawWrite(items, `${run}-${n}`);
      if (process.stdout.isTTY) process.stdout.write(`\r  chunk ${n}/${chunkCount}`);
    }
    rows.push({ name: `${chunkCount} chunks (largest ${(largest / 1e6).toFixed(2)} MB)`, items: total, intakeMs, rawMs, batchId, run });
  }

  clearInterval(sampler);
  const rssMb = Math.max(peakRss, process.resourceUsage().maxRSS * 1024) / 2 ** 20;
  console.log('\n');
  console.log('intake                              items   intake s   items/s    raw s  raw items/s   ratio');
  let ok = rssMb < targets.rssMb;
  for (const r of rows) {
    const ratio = r.intakeMs / r.rawMs;
    ok &&= ratio <= targets.ratio;
    console.log(
      `${r.name.padEnd(34)} ${String(r.items).padStart(7)} ${(r.intakeMs / 1000).toFixed(1).padStart(10)} ${((r.items / r.intakeMs) * 1000).toFixed(0).padStart(9)} ${(r.rawMs / 1000).toFixed(1).padStart(8)} ${((r.items / r.rawMs) * 1000).toFixed(0).padStart(12)} ${ratio.toFixed(2).padStart(7)}`,
    );
  }
  console.log(`peak RSS (twin + bench client)     ${rssMb.toFixed(0)} MB`);
  for (const r of rows) {
    r.stored = await storedItems(r.batchId, r.run);
    ok &&= r.stored === r.items;
    console.log(`stored, read back                  ${r.name}: ${r.stored} of ${r.items}`);
  }
  console.log(`targets                            ratio <= ${targets.ratio}, peak RSS < ${targets.rssMb} MB, every item stored once: ${ok ? 'met' : 'NOT met'}`);
  process.exitCode = ok ? 0 : 1;
} finally {
  clearInterval(sampler);
  await twin.stop();
  await dynamo.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
