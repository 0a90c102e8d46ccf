/**
 * `npm run bench:intake`: manifest intake of the service in its own process (scripts/bench-service.ts:
 * `node --import tsx bin/local.ts` against an in-memory DynamoDB Local), against raw BatchWriteItem.
 *
 * 1. The 202: five submissions each of 100, 1,000 and 10,000 items, timed from the first byte
 *    sent to the answer (the request validates, stores the payload, queues the write, records the
 *    acceptance); p50 and p95 per size, and the ratio to a raw BatchWriteItem of the same items.
 * 2. Written: for each 10,000-item submission, the time from sending to the batch being visible
 *    (every item written by the intake worker; the status route gives its batch_id), against the
 *    raw write of the same items.
 * 3. 100,000 items in 20 chunks of 5,000: each chunk's 202, and the time until the batch is
 *    visible with every item, against the raw write of the same items (20 writes of 5,000).
 *
 * The raw baseline writes the same items with plain BatchWriteItem (25 per call, the same 8 calls
 * in flight the service uses) into another table of the same DynamoDB Local, just before the
 * submission, on a quiet engine. Each batch is left to finish processing before the next
 * measurement, so no measurement shares the machine with the pipeline of the one before.
 * Prints the peak RSS of the service process (DynamoDB Local is its own Java process, the bench
 * client another node process): per size, and its VmHWM through intake (read when the chunked
 * batch is visible; the pipeline's processing of the 100,000 items after it is bench:pipeline's
 * to judge, and printed apart). Checks every item was stored exactly once, read back from
 * DynamoDB directly. Targets: 202 of 10,000 items p95 < 2 s; peak RSS of the service through
 * intake < 1 GB. Exits 1 if a target is missed.
 */
import { randomUUID } from 'node:crypto';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { startBenchService } from './bench-service';
import { rawWrite as writeRaw } from './raw-writes';
import { item as testItem } from '#support/manifests';

const sizes = (process.env.BENCH_SIZES ?? '100,1000,10000').split(',').map(Number);
const repeats = Number(process.env.BENCH_REPEATS ?? 5);
const chunkCount = Number(process.env.BENCH_CHUNKS ?? 20);
const chunkItems = Number(process.env.BENCH_CHUNK_ITEMS ?? 5_000);
const targets = { acceptP95Ms: 2_000, rssMb: 1024 };

/** The test suite's item (spec 2.5), with this run's AWB and key so runs never collide. */
const item = (i: number, run: string) =>
  testItem(i, { awbNumber: `${run}-${String(i).padStart(7, '0')}`, itemIdempotencyKey: `${run}-line-${i}`, itemDescription: 'Cotton t-shirt, crew neck, size M' });
const items = (n: number, run: string, from = 1) => Array.from({ length: n }, (_, k) => item(from + k, run));

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(q * xs.length) - 1)];
const secs = (ms: number) => (ms / 1000).toFixed(2);

const service = await startBenchService({ tableName: 'bench_intake' });
const rawTable = 'bench_raw_writes';
await service.ensureTable(rawTable);
const rawWrite = (its: object[], tag: string) => writeRaw(service.dynamo, rawTable, its, tag);

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
        const res = await service.dynamo.send(
          new QueryCommand({
            TableName: service.tableName,
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

/** Submits one manifest; answers the 202's time, the time until visible, and the batch. */
async function submitWhole(its: object[], run: string) {
  const body = JSON.stringify({ mawbNumber: `MAWB-${run}`, items: its });
  const key = randomUUID();
  const started = performance.now();
  const res = await service.submit(body, { 'idempotency-key': key });
  if (res.status !== 202) throw new Error(`submission of ${its.length}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
  const batchId = await service.waitVisible(key);
  return { acceptMs: res.ms, writtenMs: performance.now() - started, batchId };
}

const checks: { batchId: string; run: string; items: number }[] = [];
let intakeHwm = 0;
try {
  // Warm-up (not measured): the JVM of DynamoDB Local and Node's JIT start cold, and whichever
  // side ran first would pay for it.
  {
    const run = 'W' + randomUUID().slice(0, 6);
    const its = items(1000, run);
    await rawWrite(its, run);
    await service.waitCompleted((await submitWhole(its, run)).batchId);
  }

  console.log('\n202 (accepted)          items   p50 s   p95 s   raw write s   p95 / raw   peak RSS MB');
  let acceptP95 = 0;
  const writtenRows: { ms: number; rawMs: number }[] = [];
  for (const size of sizes) {
    const rssPeak = service.rssWindow();
    const latencies: number[] = [];
    let rawMs = 0;
    for (let r = 0; r < repeats; r++) {
      const run = `A${size}-${r}-` + randomUUID().slice(0, 4);
      const its = items(size, run);
      const raw = await rawWrite(its, run);
      rawMs += raw / repeats;
      const s = await submitWhole(its, run);
      latencies.push(s.acceptMs);
      if (size === Math.max(...sizes)) writtenRows.push({ ms: s.writtenMs, rawMs: raw });
      checks.push({ batchId: s.batchId, run, items: size });
      await service.waitCompleted(s.batchId); // quiet before the next measurement
    }
    const p95 = quantile(latencies, 0.95);
    if (size === Math.max(...sizes)) acceptP95 = p95;
    console.log(`${'submission'.padEnd(22)} ${String(size).padStart(6)} ${secs(quantile(latencies, 0.5)).padStart(7)} ${secs(p95).padStart(7)} ${secs(rawMs).padStart(13)} ${(p95 / rawMs).toFixed(2).padStart(11)} ${rssPeak().toFixed(0).padStart(13)}`);
  }
  const w = writtenRows.reduce((a, r) => ({ ms: a.ms + r.ms / writtenRows.length, rawMs: a.rawMs + r.rawMs / writtenRows.length }), { ms: 0, rawMs: 0 });
  console.log(`\nwritten (visible) of ${Math.max(...sizes)} items, mean of ${writtenRows.length}: ${secs(w.ms)} s; raw write ${secs(w.rawMs)} s; ratio ${(w.ms / w.rawMs).toFixed(2)}`);

  // 100,000 items in 20 chunks, sent one after another; each chunk is built just before it is sent.
  {
    const run = 'C' + randomUUID().slice(0, 6);
    const base = randomUUID();
    const total = chunkCount * chunkItems;
    let rawMs = 0;
    for (let n = 1; n <= chunkCount; n++) rawMs += await rawWrite(items(chunkItems, run, (n - 1) * chunkItems + 1), `${run}-${n}`);
    let largest = 0;
    const latencies: number[] = [];
    const rssPeak = service.rssWindow();
    const started = performance.now();
    for (let n = 1; n <= chunkCount; n++) {
      const body = JSON.stringify({ mawbNumber: `MAWB-${run}`, items: items(chunkItems, run, (n - 1) * chunkItems + 1), _chunk_metadata: { chunk_number: n, total_chunks: chunkCount, base_idempotency_key: base, total_items: total } });
      largest = Math.max(largest, Buffer.byteLength(body));
      const res = await service.submit(body);
      latencies.push(res.ms);
      if (res.status !== 202) throw new Error(`chunk ${n}: ${res.status} ${JSON.stringify(res.body).slice(0, 500)}`);
      if (process.stdout.isTTY) process.stdout.write(`\r  chunk ${n}/${chunkCount}`);
    }
    const sentMs = performance.now() - started;
    const batchId = await service.waitVisible(base);
    const visibleMs = performance.now() - started;
    intakeHwm = service.memory().hwmMb;
    const intakeRss = rssPeak();
    console.log(`\n${chunkCount} chunks of ${chunkItems} (largest ${(largest / 1e6).toFixed(2)} MB): chunk 202 p50 ${secs(quantile(latencies, 0.5))} s, p95 ${secs(quantile(latencies, 0.95))} s; all sent ${secs(sentMs)} s; visible ${secs(visibleMs)} s; raw write ${secs(rawMs)} s; ratio ${(visibleMs / rawMs).toFixed(2)}; peak RSS ${intakeRss.toFixed(0)} MB`);
    checks.push({ batchId, run, items: total });
    const processed = performance.now();
    const processingRss = service.rssWindow();
    await service.waitCompleted(batchId);
    console.log(`  then processed by the pipeline (bench:pipeline's part, not intake's) in ${secs(performance.now() - processed)} s; peak RSS ${processingRss().toFixed(0)} MB`);
  }

  const { hwmMb } = service.memory();
  console.log(`peak RSS of the service process through intake (VmHWM when the chunked batch was visible): ${intakeHwm.toFixed(0)} MB; after its processing: ${hwmMb.toFixed(0)} MB`);
  let stored = true;
  for (const c of checks) {
    const n = await storedItems(c.batchId, c.run);
    if (n !== c.items) {
      stored = false;
      console.log(`stored, read back: batch ${c.batchId}: ${n} of ${c.items}`);
    }
  }
  console.log(`stored, read back: ${checks.length} batches, ${stored ? 'every item once' : 'NOT every item once'}`);
  if (service.rateLimited()) console.log(`(${service.rateLimited()} answers of 429 waited out and asked again)`);
  const ok = acceptP95 < targets.acceptP95Ms && intakeHwm < targets.rssMb && stored;
  console.log(`targets: 202 of ${Math.max(...sizes)} items p95 ${secs(acceptP95)} s < ${secs(targets.acceptP95Ms)} s, peak RSS through intake ${intakeHwm.toFixed(0)} MB < ${targets.rssMb} MB, every item stored once: ${ok ? 'met' : 'NOT met'}`);
  process.exitCode = ok ? 0 : 1;
} finally {
  await service.stop();
}
