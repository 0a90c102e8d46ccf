/**
 * `npm run bench:pipeline`: manifests from sending to the download answering 200 with every
 * product, through the service in its own process (scripts/bench-service.ts: `node --import tsx
 * bin/local.ts` against an in-memory DynamoDB Local): intake, the four stages, the JSON download
 * (following the 303 to storage a large one answers). In one run:
 *
 *   (a) 10,000 items, all to one consignee: one person's CUIL, each item its own AWB (5 personal
 *       shipments, the rest commercial once the year's quota is used up);
 *   (b) 10,000 items to distinct consignees: 5,000 shipments of two items, a person each;
 *   (c) 100,000 items in 20 chunks of 5,000, shaped as (b) (50,000 people); also its CSV and
 *       XLSX downloads once each (time and size; the bodies are counted, not kept).
 *
 * Each against a raw BatchWriteItem of the same items into another table of the same DynamoDB
 * Local (scripts/raw-writes.ts), just before, on a quiet engine; for (b) and (c) also as many bare
 * conditional puts as the run makes quota reservations (the floor the table's work sets). Prints per run the time to the
 * 202 and to visible, each stage from the start of its step to its close (as pipeline-status,
 * polled every 500 ms, first shows it), the finish, the download, end to end and the ratio; the
 * offline classifier's own throughput; the service's peak RSS (VmHWM of its process). Checks
 * (a) exactly 5 products P, and every product once in each.
 * Targets: each ratio end to end / raw <= 3.0; peak RSS of the service < 1 GB; offline
 * classification >= 2,000 items/s. Exits 1 if a target or a check is missed.
 */
import { randomUUID } from 'node:crypto';
import { startBenchService, type StageTimes } from './bench-service';
import { rawConditionalPuts, rawWrite as writeRaw } from './raw-writes';
import { descriptions, items, type Shape } from './bench-manifests';
import { createOfflineClassifier } from '#core/tariff/classifier';
import { builtinTariff } from '#core/tariff/builtin';
import { stageSteps } from '#core/pipeline/stages';

const itemCount = Number(process.env.BENCH_ITEMS ?? 10_000);
const chunkCount = Number(process.env.BENCH_CHUNKS ?? 20);
const chunkItems = Number(process.env.BENCH_CHUNK_ITEMS ?? 5_000);
const targets = { ratio: 3.0, rssMb: 1024, offlinePerSecond: 2_000 };

const service = await startBenchService({ tableName: 'bench_pipeline' });
const rawTable = 'bench_pipeline_raw';
await service.ensureTable(rawTable);
const rawWrite = (its: object[], tag: string) => writeRaw(service.dynamo, rawTable, its, tag);

const s = (ms: number) => (ms / 1000).toFixed(1).padStart(6);
const perSecond = (n: number, ms: number) => (ms >= 1 ? ((n / ms) * 1000).toFixed(0) : '-').padStart(8);
const megabytes = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(q * xs.length) - 1)];

/** Reads a download to its end, counting bytes; answers the status, bytes and whether it was redirected. */
async function drain(res: Response) {
  let bytes = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.length;
  return { status: res.status, bytes, redirected: res.redirected };
}

interface Product {
  item_key: string;
  regime: string | null;
  ncm_code: string | null;
}

/**
 * Sends the manifest (whole, or in `chunks`), waits until it is visible, then until processing
 * completes, then downloads the JSON; answers the timings and the products.
 */
async function endToEnd(n: number, run: string, shape: Shape, chunks = 1) {
  const per = n / chunks;
  const base = randomUUID();
  const accepts: number[] = [];
  const t0 = performance.now();
  for (let c = 1; c <= chunks; c++) {
    const its = items(per, run, shape, (c - 1) * per + 1);
    const meta = chunks > 1 ? { _chunk_metadata: { chunk_number: c, total_chunks: chunks, base_idempotency_key: base, total_items: n } } : {};
    const res = await service.submit(JSON.stringify({ mawbNumber: `MAWB-${run}`, items: its, ...meta }), chunks > 1 ? {} : { 'idempotency-key': base });
    if (res.status !== 202) throw new Error(`submission ${c}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
    accepts.push(res.ms);
  }
  const tSent = performance.now();
  const batchId = await service.waitVisible(base);
  const tVisible = performance.now();
  const times: StageTimes = await service.waitCompleted(batchId);
  const res = await service.download(batchId, 'json');
  const text = await res.text();
  const tEnd = performance.now();
  if (res.status !== 200) throw new Error(`download: ${res.status} ${text.slice(0, 300)}`);
  const data = (JSON.parse(text) as { data: { total_products: number; products: Product[] } }).data;
  return { batchId, accepts, t0, tSent, tVisible, times, tEnd, data, downloadBytes: Buffer.byteLength(text), redirected: res.redirected };
}

/** Every item of the run exactly once among the products. */
function everyProductOnce(products: Product[], run: string, n: number): boolean {
  const seen = new Set<number>();
  for (const p of products) {
    const m = new RegExp(`^${run}-line-(\\d+)$`).exec(p.item_key);
    const line = m ? Number(m[1]) : 0;
    if (line < 1 || line > n || seen.has(line)) return false;
    seen.add(line);
  }
  return seen.size === n;
}

interface Outcome {
  label: string;
  ratio: number;
  checked: boolean;
}

/** One measured run: the raw write of the same items, then the manifest end to end; prints its lines. */
async function measure(label: string, n: number, shape: Shape, chunks: number, extra?: (batchId: string) => Promise<void>): Promise<Outcome> {
  const run = 'P' + randomUUID().slice(0, 6);
  let rawMs = 0;
  const rawCpu0 = service.cpu().dynamo;
  for (let c = 1; c <= chunks; c++) rawMs += await rawWrite(items(n / chunks, run, shape, (c - 1) * (n / chunks) + 1), `${run}-${c}`);
  const rawCpu = service.cpu().dynamo - rawCpu0;
  // Distinct consignees: one quota reservation per shipment (n / 2). The same number of bare
  // conditional puts, to show what the reservations alone cost this DynamoDB Local.
  const reservations = shape.kind === 'distinct' ? n / 2 : 0;
  const reserveMs = reservations ? await rawConditionalPuts(service.dynamo, rawTable, reservations, `${run}-quota`) : 0;
  const rssPeak = service.rssWindow();
  const cpu0 = service.cpu();
  const m = await endToEnd(n, run, shape, chunks);
  const cpu1 = service.cpu();
  const e2e = m.tEnd - m.t0;
  const ratio = e2e / rawMs;
  const products = m.data.products;
  const regimes = { P: 0, C: 0, X: 0 } as Record<string, number>;
  for (const p of products) regimes[p.regime ?? 'none'] = (regimes[p.regime ?? 'none'] ?? 0) + 1;
  const once = m.data.total_products === n && everyProductOnce(products, run, n);
  const checked = once && (shape.kind !== 'one-consignee' || regimes.P === 5);

  console.log(`\n${label}`);
  if (chunks > 1) console.log(`  ${chunks} chunks sent                        ${s(m.tSent - m.t0)} s   (chunk 202 p50 ${(quantile(m.accepts, 0.5) / 1000).toFixed(2)} s, p95 ${(quantile(m.accepts, 0.95) / 1000).toFixed(2)} s)`);
  else console.log(`  submission -> 202                     ${s(m.accepts[0])} s`);
  console.log(`  -> visible (every item written)       ${s(m.tVisible - m.t0)} s ${perSecond(n, m.tVisible - m.t0)} items/s`);
  const started = m.times.processing ?? m.tVisible;
  console.log(`  -> processing (prepare: pages stored) ${s(started - m.tVisible)} s`);
  // Each stage from the start of its step (the close of the step before) to its own close.
  let prev = started;
  for (const step of stageSteps) {
    let stepEnd = prev;
    for (const stage of step) {
      const done = m.times.stages[stage] ?? m.times.completed;
      const name = step.length > 1 ? `${stage} (alongside ${step.filter((x) => x !== stage).join(', ')})` : stage;
      console.log(`  stage ${name.padEnd(32)}${s(done - prev)} s ${perSecond(n, done - prev)} items/s`);
      stepEnd = Math.max(stepEnd, done);
    }
    prev = stepEnd;
  }
  console.log(`  finish (results stored, 100%)         ${s(m.times.completed - prev)} s`);
  console.log(`  download json${m.redirected ? ' (303 followed)' : '               '}         ${s(m.tEnd - m.times.completed)} s   ${megabytes(m.downloadBytes)}`);
  console.log(`  end to end                            ${s(e2e)} s ${perSecond(n, e2e)} items/s`);
  console.log(`  CPU used end to end: service ${(cpu1.service - cpu0.service).toFixed(1)} s, DynamoDB Local ${(cpu1.dynamo - cpu0.dynamo).toFixed(1)} s`);
  console.log(`  raw BatchWriteItem, same items        ${s(rawMs)} s ${perSecond(n, rawMs)} items/s   (DynamoDB Local CPU ${rawCpu.toFixed(1)} s)`);
  console.log(`  ratio end to end / raw                ${ratio.toFixed(2).padStart(6)}    (target <= ${targets.ratio.toFixed(1)})`);
  if (reservations) {
    console.log(`  raw conditional puts, ${reservations} (100 to a TransactWriteItems, as the quota's)  ${s(reserveMs)} s   (${((reserveMs / reservations) * 1000).toFixed(0)} us each; batched puts: ${((rawMs / n) * 1000).toFixed(0)} us each)`);
    console.log(`  floor: (raw write + those puts) / raw  ${((rawMs + reserveMs) / rawMs).toFixed(2).padStart(6)}    (the table's work alone, nothing of the service)`);
    console.log(`  end to end / (raw write + those puts)  ${(e2e / (rawMs + reserveMs)).toFixed(2).padStart(6)}    (the service over the table's own work)`);
  }
  console.log(`  products ${m.data.total_products}: P ${regimes.P}, C ${regimes.C}, X ${regimes.X}; ${products.filter((p) => p.ncm_code).length} with an ncm_code; ${once ? 'every item once' : 'NOT every item once'}${shape.kind === 'one-consignee' ? (regimes.P === 5 ? ', exactly 5 P' : ', NOT exactly 5 P') : ''}`);
  if (extra) await extra(m.batchId);
  console.log(`  peak RSS of the service in this run   ${rssPeak().toFixed(0).padStart(6)} MB (50 ms samples)`);
  return { label: label.split(' ')[0], ratio, checked };
}

try {
  // Warm-up (not measured): JIT, the JVM of DynamoDB Local, the classifier's index.
  await endToEnd(500, 'W' + randomUUID().slice(0, 6), { kind: 'distinct', firstPerson: 900_000 });
  await rawWrite(items(500, 'WR', { kind: 'distinct', firstPerson: 900_000 }), 'WR');

  const outcomes: Outcome[] = [];
  // BENCH_RUNS: which runs, in which order (default `a,b,c`; e.g. `b,a` to see whether a run's figures depend on the one before).
  const runs = (process.env.BENCH_RUNS ?? 'a,b,c').split(',');
  const total = chunkCount * chunkItems;
  let exportsOk = true;
  for (const [k, run] of runs.entries()) {
    const person = 5_000_000 + k;
    const firstPerson = k * 1_000_000;
    if (run === 'a') outcomes.push(await measure(`(a) ${itemCount} items, one consignee (one CUIL, an AWB each)`, itemCount, { kind: 'one-consignee', person }, 1));
    if (run === 'b') outcomes.push(await measure(`(b) ${itemCount} items, distinct consignees (${itemCount / 2} people, two items each)`, itemCount, { kind: 'distinct', firstPerson }, 1));
    if (run !== 'c') continue;
    outcomes.push(
    await measure(`(c) ${total} items in ${chunkCount} chunks of ${chunkItems}, distinct consignees`, total, { kind: 'distinct', firstPerson }, chunkCount, async (batchId) => {
      for (const format of ['csv', 'xlsx'] as const) {
        const t = performance.now();
        const d = await drain(await service.download(batchId, format));
        exportsOk &&= d.status === 200;
        console.log(`  download ${format.padEnd(4)}${d.redirected ? ' (303 followed)' : '               '}         ${s(performance.now() - t)} s   ${megabytes(d.bytes)}${d.status === 200 ? '' : `  status ${d.status}`}`);
      }
    }),
    );
  }

  // The offline classifier alone, over the same descriptions.
  const offline = createOfflineClassifier(builtinTariff);
  const c0 = performance.now();
  for (let i = 1; i <= itemCount; i++) offline.classify({ description: descriptions[i % descriptions.length] });
  const offlinePerSecond = (itemCount / (performance.now() - c0)) * 1000;

  const { sampledMb, hwmMb } = service.memory();
  console.log(`\noffline classification                ${offlinePerSecond.toFixed(0)} items/s  (target >= ${targets.offlinePerSecond})`);
  console.log(`peak RSS of the service process       ${hwmMb.toFixed(0)} MB (VmHWM; 50 ms samples: ${sampledMb.toFixed(0)} MB)  (target < ${targets.rssMb})`);
  console.log(`ratios                                ${outcomes.map((o) => `${o.label} ${o.ratio.toFixed(2)}`).join(', ')}  (target <= ${targets.ratio.toFixed(1)} each)`);
  if (service.rateLimited()) console.log(`(${service.rateLimited()} answers of 429 waited out and asked again)`);
  const ok =
    outcomes.every((o) => o.ratio <= targets.ratio && o.checked) && exportsOk && hwmMb < targets.rssMb && offlinePerSecond >= targets.offlinePerSecond;
  console.log(`targets and checks                    ${ok ? 'met' : 'NOT met'}`);
  process.exitCode = ok ? 0 : 1;
} finally {
  await service.stop();
}
