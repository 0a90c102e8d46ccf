/**
 * `npm run bench:pipeline`: a 10,000-item manifest from submission to downloadable result on the
 * local twin (intake, the four stages, the download), against a raw BatchWriteItem of the same
 * items into another table of the same DynamoDB Local, in the same run. The manifest has 5,000
 * shipments of two items, each to a different person (so 5,000 quota reservations).
 *
 * Prints items/s per stage (from the stage's start, the close of the step before it, to its own
 * close, as pipeline-status reports them) and end to end, the offline classifier's own
 * throughput, and the ratio end-to-end / raw.
 * Targets: offline classification >= 2,000 items/s; end-to-end ratio <= 4.0. Exits 1 if missed.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { startTwin } from '../twin/twin';
import { ensureTable, startDynamoLocal } from '../twin/dynamodb-local';
import { rawWrite as writeRaw } from './raw-writes';
import { item as testItem } from '../test/support/manifests';
import { cuitCheckDigit } from '../lambdas/core/customs/tax-id';
import { createOfflineClassifier } from '../lambdas/core/tariff/classifier';
import { builtinTariff } from '../lambdas/core/tariff/builtin';
import { stageSteps, type StageName } from '../lambdas/core/pipeline/stages';
import { getBatch } from '../lambdas/infra/entities/manifests';
import { pipelineStatusView } from '../lambdas/core/manifests/views';

const itemCount = Number(process.env.BENCH_ITEMS ?? 10_000);
const targets = { offlinePerSecond: 2_000, ratio: 4.0 };

process.env.LOG_LEVEL = 'WARN';
process.env.POWERTOOLS_LOG_LEVEL = 'WARN';

/** Descriptions as couriers send them (the labeled evaluation set), cycled. */
const descriptions = readFileSync(new URL('../test/fixtures/tariff-labeled.csv', import.meta.url), 'utf8')
  .trim()
  .split('\n')
  .slice(1)
  .map((line) => (line.startsWith('"') ? line.slice(1, line.lastIndexOf('"')) : line.slice(0, line.lastIndexOf(','))));

/** A valid CUIL for person `n` (prefix 20, the DNI, its check digit). */
function cuil(n: number): string {
  const first10 = `20${String(10_000_000 + n).padStart(8, '0')}`;
  return first10 + cuitCheckDigit(first10);
}

/**
 * Item `i`: two items per shipment (items 2k-1 and 2k share an AWB and a consignee, as an order of
 * two products does), a different person per shipment, descriptions from the labeled set.
 */
const item = (i: number, run: string) => {
  const shipment = Math.ceil(i / 2);
  return testItem(i, {
    awbNumber: `${run}-${String(shipment).padStart(7, '0')}`,
    itemIdempotencyKey: `${run}-line-${i}`,
    consigneeName: `Consignee ${shipment}`,
    itemDescription: descriptions[i % descriptions.length],
    hsCode: undefined,
    consigneeIdNumber: cuil(shipment),
    fobValueUsd: 5 + (i % 150),
  });
};

const dataDir = mkdtempSync(join(tmpdir(), 'despacho-bench-'));
const adminToken = 'bench-admin-token-0123456789';
const tableName = 'bench_pipeline';
const dynamo = await startDynamoLocal();
const twin = await startTwin({ port: 0, dataDir, tableName, adminToken, jobPollMs: 20, dynamoEndpoint: dynamo.endpoint });
const raw = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint: dynamo.endpoint }));
const rawTable = 'bench_pipeline_raw';
await ensureTable(raw as unknown as DynamoDBClient, rawTable);

async function api(method: string, path: string, token: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(twin.apiUrl + path, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

const rawWrite = (items: object[], tag: string) => writeRaw(raw, rawTable, items, tag);

/** Submits, follows pipeline-status until 100%, downloads; answers the timings. */
async function runManifest(token: string, n: number, run: string) {
  const items = Array.from({ length: n }, (_, i) => item(i + 1, run));
  const key = randomUUID();
  const t0 = performance.now();
  const accepted = await api('POST', '/v1/couriers/default/manifests/webhook', token, JSON.stringify({ mawbNumber: `MAWB-${run}`, items }), { 'idempotency-key': key });
  if (accepted.status !== 202) throw new Error(`submission: ${accepted.status} ${JSON.stringify(accepted.body).slice(0, 300)}`);
  const tAccepted = performance.now();
  const batchId = (await api('GET', `/v1/couriers/default/webhook/${key}/status`, token)).body.batch_id;
  const stageDone: Partial<Record<StageName, number>> = {};
  let started: number | undefined;
  // Progress is read from the batch record in process (the twin runs here), every 100 ms: polling
  // pipeline-status that often would pass its 120-a-minute rate limit.
  for (;;) {
    const s = pipelineStatusView((await getBatch(batchId))!);
    const now = performance.now();
    if (s.status === 'processing' && started === undefined) started = now;
    for (const step of s.pipeline_steps) if (step.status === 'completed' && stageDone[step.key as StageName] === undefined) stageDone[step.key as StageName] = now;
    if (s.status === 'completed') break;
    if (s.status === 'failed') throw new Error(`pipeline failed: ${s.error}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const tDone = performance.now();
  const download = await fetch(`${twin.apiUrl}/v1/couriers/manifests/${batchId}/download`, { headers: { authorization: `Bearer ${token}` } });
  const result = (await download.json()) as { data: { total_products: number; products: { ncm_code: string | null }[] } };
  const tEnd = performance.now();
  return { items, batchId, t0, tAccepted, started: started ?? tAccepted, stageDone, tDone, tEnd, result };
}

try {
  const account = (await api('POST', '/v1/admin/accounts', adminToken, { name: 'Bench Courier', kind: 'partner' })).body.data;
  const token = (await api('POST', '/v1/admin/tokens', adminToken, { account_id: account.id, name: 'bench', role: 'partner' })).body.data.token;

  // Warm-up (not measured): JIT, the JVM of DynamoDB Local, the classifier's index.
  await runManifest(token, 500, 'W' + randomUUID().slice(0, 6));
  await rawWrite(Array.from({ length: 500 }, (_, i) => item(i, 'WR')), 'WR');

  const run = 'P' + randomUUID().slice(0, 6);
  const m = await runManifest(token, itemCount, run);
  const rawMs = await rawWrite(m.items, run);

  // The offline classifier alone, over the same descriptions.
  const offline = createOfflineClassifier(builtinTariff);
  const c0 = performance.now();
  for (const it of m.items) offline.classify({ description: it.itemDescription });
  const offlinePerSecond = (m.items.length / (performance.now() - c0)) * 1000;

  const e2e = m.tEnd - m.t0;
  const ratio = e2e / rawMs;
  const per = (ms: number) => ((itemCount / ms) * 1000).toFixed(0).padStart(8);
  console.log('\n');
  console.log(`items                                ${itemCount} (${m.result.data.total_products} in the download, ${m.result.data.products.filter((p) => p.ncm_code).length} with an ncm_code)`);
  console.log(`intake (submission -> 202)           ${((m.tAccepted - m.t0) / 1000).toFixed(1).padStart(6)} s ${per(m.tAccepted - m.t0)} items/s`);
  console.log(`queued -> processing                 ${((m.started - m.tAccepted) / 1000).toFixed(1).padStart(6)} s   (prepare: pages planned and stored)`);
  // Each stage from the start of its step (the close of the step before) to its own close; the
  // stages of one step run side by side.
  let prev = m.started;
  for (const step of stageSteps) {
    let stepEnd = prev;
    for (const stage of step) {
      const done = m.stageDone[stage] ?? m.tDone;
      const label = step.length > 1 ? `${stage} (alongside ${step.filter((s) => s !== stage).join(', ')})` : stage;
      console.log(`stage ${label.padEnd(31)}${((done - prev) / 1000).toFixed(1).padStart(6)} s ${per(done - prev)} items/s`);
      stepEnd = Math.max(stepEnd, done);
    }
    prev = stepEnd;
  }
  console.log(`finish (results stored, 100%)        ${((m.tDone - prev) / 1000).toFixed(1).padStart(6)} s`);
  console.log(`download (json)                      ${((m.tEnd - m.tDone) / 1000).toFixed(1).padStart(6)} s`);
  console.log(`end to end                           ${(e2e / 1000).toFixed(1).padStart(6)} s ${per(e2e)} items/s`);
  console.log(`raw BatchWriteItem, same items       ${(rawMs / 1000).toFixed(1).padStart(6)} s ${per(rawMs)} items/s`);
  console.log(`ratio end to end / raw               ${ratio.toFixed(2)}  (target <= ${targets.ratio})`);
  console.log(`offline classification               ${offlinePerSecond.toFixed(0)} items/s  (target >= ${targets.offlinePerSecond})`);
  const ok = ratio <= targets.ratio && offlinePerSecond >= targets.offlinePerSecond && m.result.data.total_products === itemCount;
  console.log(`targets                              ${ok ? 'met' : 'NOT met'}`);
  process.exitCode = ok ? 0 : 1;
} finally {
  await twin.stop();
  await dynamo.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
