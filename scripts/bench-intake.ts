/**
 * `npm run bench:intake`: manifest intake on the local twin, against raw BatchWriteItem.
 *
 * 1. The 202: five submissions each of 100, 1,000 and 10,000 items, timed from the first byte
 *    sent to the answer (the request validates, stores the payload, queues the write, records the
 *    acceptance); p50 and p95 per size, and the ratio to a raw BatchWriteItem of the same items.
 * 2. Written: for each 10,000-item submission, the time from sending to the batch being visible
 *    (every item written by the intake worker), against the raw write of the same items.
 * 3. 100,000 items in 20 chunks of 5,000: each chunk's 202, and the time until the batch is
 *    visible with every item.
 *
 * The raw baseline writes the same items with plain BatchWriteItem (25 per call, the same 8 calls
 * in flight the service uses) into another table of the same DynamoDB Local, in the same run.
 * Prints the peak RSS of this process (the twin: HTTP server, handlers, intake worker and the
 * bench client; DynamoDB Local is its own Java process), and checks every item was stored exactly
 * once. Targets: 202 of 10,000 items p95 < 2 s; peak RSS < 1 GB. Exits 1 if missed.
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
import { getSubmission } from '../lambdas/infra/entities/manifest-submissions';
import { getBatch, getChunkSet } from '../lambdas/infra/entities/manifests';
import { isVisible } from '../lambdas/core/manifests/model';

const sizes = (process.env.BENCH_SIZES ?? '100,1000,10000').split(',').map(Number);
const repeats = Number(process.env.BENCH_REPEATS ?? 5);
const chunkCount = Number(process.env.BENCH_CHUNKS ?? 20);
const chunkItems = Number(process.env.BENCH_CHUNK_ITEMS ?? 5_000);
const targets = { acceptP95Ms: 2_000, rssMb: 1024 };

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
const twin = await startTwin({ port: 0, dataDir, tableName, adminToken, jobPollMs: 100, dynamoEndpoint: dynamo.endpoint });
const rawClient = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint: dynamo.endpoint }));
const rawTable = 'bench_raw_writes';
await ensureTable(rawClient as unknown as DynamoDBClient, rawTable);

async function api(method: string, path: string, token: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(twin.apiUrl + path, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
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

/** Waits until the submission's batch is visible (every item written); answers its id. Read in-process: the status route's rate limit is not what is measured. */
async function written(accountId: number, key: string): Promise<string> {
  for (;;) {
    const s = await getSubmission(accountId, key);
    if (s?.status === 'failed') throw new Error(`submission ${key} failed: ${s.failure}`);
    if (s?.status === 'written') return s.batchId;
    await new Promise((r) => setTimeout(r, 20));
  }
}

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(q * xs.length) - 1)];
const secs = (ms: number) => (ms / 1000).toFixed(2);

const checks: { batchId: string; run: string; items: number }[] = [];
try {
  const account = (await api('POST', '/v1/admin/accounts', adminToken, { name: 'Bench Courier', kind: 'partner' })).body.data;
  const token = (await api('POST', '/v1/admin/tokens', adminToken, { account_id: account.id, name: 'bench', role: 'partner' })).body.data.token;

  // Warm-up (not measured): the JVM of DynamoDB Local and Node's JIT start cold, and whichever
  // side ran first would pay for it.
  {
    const run = 'W' + randomUUID().slice(0, 6);
    const items = Array.from({ length: 1000 }, (_, i) => item(i + 1, run));
    const key = randomUUID();
    const warm = await api('POST', '/v1/couriers/default/manifests/webhook', token, { mawbNumber: `MAWB-${run}`, items }, { 'idempotency-key': key });
    if (warm.status !== 202) throw new Error(`warm-up: ${warm.status}`);
    await written(account.id, key);
    await rawWrite(items, run);
  }

  console.log('\n202 (accepted)          items   p50 s   p95 s   raw write s   p95 / raw');
  let acceptOk = true;
  const writtenRows: { ms: number; rawMs: number }[] = [];
  for (const size of sizes) {
    const latencies: number[] = [];
    let rawMs = 0;
    for (let r = 0; r < repeats; r++) {
      const run = `A${size}-${r}-` + randomUUID().slice(0, 4);
      const items = Array.from({ length: size }, (_, i) => item(i + 1, run));
      const body = JSON.stringify({ mawbNumber: `MAWB-${run}`, items });
      const key = randomUUID();
      const started = performance.now();
      const res = await api('POST', '/v1/couriers/default/manifests/webhook', token, body, { 'idempotency-key': key });
      latencies.push(performance.now() - started);
      if (res.status !== 202) throw new Error(`submission of ${size}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
      const batchId = await written(account.id, key);
      const writtenMs = performance.now() - started;
      const raw = await rawWrite(items, run);
      rawMs += raw;
      if (size === Math.max(...sizes)) writtenRows.push({ ms: writtenMs, rawMs: raw });
      checks.push({ batchId, run, items: size });
    }
    rawMs /= repeats;
    const p95 = quantile(latencies, 0.95);
    if (size === 10_000) acceptOk = p95 < targets.acceptP95Ms;
    console.log(`${'submission'.padEnd(22)} ${String(size).padStart(6)} ${secs(quantile(latencies, 0.5)).padStart(7)} ${secs(p95).padStart(7)} ${secs(rawMs).padStart(13)} ${(p95 / rawMs).toFixed(2).padStart(11)}`);
  }
  const w = writtenRows.reduce((a, r) => ({ ms: a.ms + r.ms / writtenRows.length, rawMs: a.rawMs + r.rawMs / writtenRows.length }), { ms: 0, rawMs: 0 });
  console.log(`\nwritten (visible) of ${Math.max(...sizes)} items, mean of ${writtenRows.length}: ${secs(w.ms)} s; raw write ${secs(w.rawMs)} s; ratio ${(w.ms / w.rawMs).toFixed(2)}`);

  // 100,000 items in 20 chunks, sent one after another; each chunk is built just before it is sent.
  {
    const run = 'C' + randomUUID().slice(0, 6);
    const base = randomUUID();
    const total = chunkCount * chunkItems;
    let largest = 0;
    const latencies: number[] = [];
    let rawMs = 0;
    const started = performance.now();
    let batchId = '';
    for (let n = 1; n <= chunkCount; n++) {
      const items = Array.from({ length: chunkItems }, (_, i) => item((n - 1) * chunkItems + i + 1, run));
      const body = JSON.stringify({ mawbNumber: `MAWB-${run}`, items, _chunk_metadata: { chunk_number: n, total_chunks: chunkCount, base_idempotency_key: base, total_items: total } });
      largest = Math.max(largest, Buffer.byteLength(body));
      const t0 = performance.now();
      const res = await api('POST', '/v1/couriers/default/manifests/webhook', token, body);
      latencies.push(performance.now() - t0);
      if (res.status !== 202) throw new Error(`chunk ${n}: ${res.status} ${JSON.stringify(res.body).slice(0, 500)}`);
      if (n === chunkCount) batchId = res.body.batch_id;
      if (process.stdout.isTTY) process.stdout.write(`\r  chunk ${n}/${chunkCount}`);
    }
    const sentMs = performance.now() - started;
    for (;;) {
      const set = await getChunkSet(account.id, base);
      if (set && set.written.length === chunkCount && isVisible((await getBatch(set.batchId))!)) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const visibleMs = performance.now() - started;
    for (let n = 1; n <= chunkCount; n++) rawMs += await rawWrite(Array.from({ length: chunkItems }, (_, i) => item((n - 1) * chunkItems + i + 1, run)), `${run}-${n}`);
    console.log(`\n${chunkCount} chunks of ${chunkItems} (largest ${(largest / 1e6).toFixed(2)} MB): chunk 202 p50 ${secs(quantile(latencies, 0.5))} s, p95 ${secs(quantile(latencies, 0.95))} s; all sent ${secs(sentMs)} s; visible ${secs(visibleMs)} s; raw write ${secs(rawMs)} s; ratio ${(visibleMs / rawMs).toFixed(2)}`);
    checks.push({ batchId, run, items: total });
  }

  clearInterval(sampler);
  const rssMb = Math.max(peakRss, process.resourceUsage().maxRSS * 1024) / 2 ** 20;
  console.log(`peak RSS (twin + bench client)     ${rssMb.toFixed(0)} MB`);
  let stored = true;
  for (const c of checks) {
    const n = await storedItems(c.batchId, c.run);
    if (n !== c.items) {
      stored = false;
      console.log(`stored, read back: batch ${c.batchId}: ${n} of ${c.items}`);
    }
  }
  console.log(`stored, read back: ${checks.length} batches, ${stored ? 'every item once' : 'NOT every item once'}`);
  const ok = acceptOk && rssMb < targets.rssMb && stored;
  console.log(`targets: 202 of 10,000 items p95 < ${secs(targets.acceptP95Ms)} s, peak RSS < ${targets.rssMb} MB, every item stored once: ${ok ? 'met' : 'NOT met'}`);
  process.exitCode = ok ? 0 : 1;
} finally {
  clearInterval(sampler);
  await twin.stop();
  await dynamo.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
