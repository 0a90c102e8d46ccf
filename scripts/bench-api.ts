/**
 * `npm run bench:api`: the order list under load. 10,000 orders of one merchant (web and three
 * marketplaces, every status) on the local twin; then, under 50 concurrent connections
 * (autocannon) for `BENCH_SECONDS` each:
 *
 * 1. GET /v1/orders?per_page=100 (the newest page), and
 * 2. a filtered search: GET /v1/orders?per_page=100&status=...&channel=...&search=...
 *
 * and, in the same run with the same concurrency, the yardstick: a bare DynamoDB Query (the
 * account's orders index, newest first, Limit 100, nothing else). Prints req/s, p50 and p99 of
 * each and the ratio of each p50 to the bare Query's p50. Target: ratio <= 3.0. Exits 1 if missed.
 *
 * The HTTP figures include everything a client pays on the twin: the HTTP server, the authorizer
 * (token lookup, rate window), validation, the list and the JSON answer.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { startTwin } from '#twin/twin';
import { startDynamoLocal } from '#twin/dynamodb-local';
import { bareOrdersQuery } from '#infra/entities/orders';
import { seedOrders } from '#twin/seed-orders';
import { clients, must } from './api-client';

const orderCount = Number(process.env.BENCH_ORDERS ?? 10_000);
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = 50;
const target = 3.0;


const dataDir = mkdtempSync(join(tmpdir(), 'despacho-bench-api-'));
const adminToken = 'bench-admin-token-0123456789';
const dynamo = await startDynamoLocal();
const twin = await startTwin({ port: 0, dataDir, tableName: 'bench_api', adminToken, jobPollMs: 0, dynamoEndpoint: dynamo.endpoint });

const api = clients(twin.apiUrl);
/** Requests of each one-at-a-time latency measurement. */
const oneAtATimeRequests = 300;

try {
  // A merchant and one token per connection (each token has its own rate window).
  const account = (await must('account', api(adminToken).POST('/api/v1/admin/accounts', { body: { name: 'Bench Merchant', kind: 'partner' } }))).data;
  const tokens: string[] = [];
  for (let i = 0; i < connections; i++) {
    const body = { account_id: account.id, name: `bench ${i}`, role: 'partner' as const, scopes: ['orders:read' as const] };
    tokens.push((await must('token', api(adminToken).POST('/api/v1/admin/tokens', { body }))).data.token);
  }

  // Seed in bulk (what is measured is reading): the records the sync and the web store would
  // make, with ids allocated as they allocate them, written with BatchWriteItem.
  const seedStarted = performance.now();
  await seedOrders(account.id, orderCount);
  const seedSeconds = (performance.now() - seedStarted) / 1000;
  console.log(`seeded ${orderCount} orders in ${seedSeconds.toFixed(1)} s`);

  const listPath = '/api/v1/orders?per_page=100';
  const searchPath = `/api/v1/orders?per_page=100&status=processing&channel=meli&search=${encodeURIComponent('gonzalez')}`;
  // Warm: the first list loads the index rows; check both answer.
  const queries = [{ per_page: '100' }, { per_page: '100', status: 'processing', channel: 'meli', search: 'gonzalez' }] as const;
  for (const [n, query] of queries.entries()) {
    const body = await must(`orders ${JSON.stringify(query)}`, api(tokens[0]).GET('/api/v1/orders', { params: { query } }));
    console.log(`${[listPath, searchPath][n].replace('/api', '')}: ${body.data.orders.length} orders on the page of ${body.data.pagination.total}`);
  }

  // One transport document (a small PDF) for the detail's latency.
  const form = new FormData();
  for (const [k, v] of Object.entries({ document_type: 'awb', awb_number: '123-45678901', manifest_id: 'MAN-BENCH' })) form.append(k, v);
  form.append('file', new Blob([Buffer.from('%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n')], { type: 'application/pdf' }), 'awb.pdf');
  const uploaded = await fetch(`${twin.apiUrl}/v1/transport/documents/upload`, { method: 'POST', headers: { authorization: `Bearer ${tokens[0]}` }, body: form });
  if (uploaded.status !== 201) throw new Error(`document upload answered ${uploaded.status}: ${await uploaded.text()}`);
  const documentPath = `/api/v1/transport/documents/${((await uploaded.json()) as { data: { id: number } }).data.id}`;

  // Latency of one request at a time (issue 20, item 4): the service's own time per request, not
  // the engine's under load. Tokens rotate, so no token meets its rate limit.
  const latencyList = await oneAtATime(listPath, tokens);
  const latencyDocument = await oneAtATime(documentPath, tokens);

  const bare = await bareLoad(account.id);
  const list = await httpLoad(listPath, tokens);
  const search = await httpLoad(searchPath, tokens);
  const bare2 = await bareLoad(account.id);
  const bareP50 = (bare.p50 + bare2.p50) / 2;

  const row = (name: string, r: Load) => `${name.padEnd(34)} ${r.rps.toFixed(0).padStart(7)} req/s   p50 ${r.p50.toFixed(1).padStart(6)} ms   p99 ${r.p99.toFixed(1).padStart(6)} ms${r.errors ? `   ${r.errors} errors` : ''}`;
  console.log(`\n${connections} connections, ${seconds} s each, ${orderCount} orders`);
  console.log(row('bare DynamoDB Query (before)', bare));
  console.log(row('GET /v1/orders?per_page=100', list));
  console.log(row('GET /v1/orders filtered search', search));
  console.log(row('bare DynamoDB Query (after)', bare2));
  const seq = (name: string, r: { p50: number; p95: number }) => `${name.padEnd(34)} one at a time, ${oneAtATimeRequests} requests   p50 ${r.p50.toFixed(1).padStart(6)} ms   p95 ${r.p95.toFixed(1).padStart(6)} ms`;
  console.log(seq('GET /v1/orders?per_page=100', latencyList));
  console.log(seq('GET /v1/transport/documents/{id}', latencyDocument));
  const listRatio = list.p50 / bareP50;
  const searchRatio = search.p50 / bareP50;
  console.log(`\nratio p50 list / bare Query:   ${listRatio.toFixed(2)} (target <= ${target})`);
  console.log(`ratio p50 search / bare Query: ${searchRatio.toFixed(2)} (target <= ${target})`);
  const met = listRatio <= target && searchRatio <= target && !list.errors && !search.errors;
  console.log(met ? 'target met' : 'TARGET MISSED');
  process.exitCode = met ? 0 : 1;
} finally {
  // Requests autocannon left in flight finish before the engine stops under them.
  await new Promise((r) => setTimeout(r, 3000));
  await twin.stop();
  await dynamo.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

interface Load {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

async function httpLoad(path: string, tokens: string[]): Promise<Load> {
  let n = 0;
  const result = await autocannon({
    url: twin.url,
    connections,
    duration: seconds,
    requests: [
      {
        method: 'GET',
        path,
        setupRequest: (req: any) => ({ ...req, headers: { ...req.headers, authorization: `Bearer ${tokens[n++ % tokens.length]}` } }),
      },
    ],
  });
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors: result.errors + result.non2xx };
}

/** `oneAtATimeRequests` GETs of `path`, each after the last answered (after 20 to warm up), tokens in turn. */
async function oneAtATime(path: string, tokens: string[]): Promise<{ p50: number; p95: number }> {
  const ms: number[] = [];
  for (let i = -20; i < oneAtATimeRequests; i++) {
    const started = performance.now();
    const res = await fetch(`${twin.url}${path}`, { headers: { authorization: `Bearer ${tokens[(i + 20) % tokens.length]}` } });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}`);
    if (i >= 0) ms.push(performance.now() - started);
  }
  ms.sort((a, b) => a - b);
  return { p50: ms[Math.floor(ms.length * 0.5)], p95: ms[Math.floor(ms.length * 0.95)] };
}

/** The same concurrency against DynamoDB Local directly: `connections` loops of one Query each. */
async function bareLoad(accountId: number): Promise<Load> {
  const latencies: number[] = [];
  let errors = 0;
  const end = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < end) {
        const t0 = performance.now();
        try {
          const items = await bareOrdersQuery(accountId, 100);
          if (items.length !== Math.min(100, orderCount)) errors++;
        } catch {
          errors++;
        }
        latencies.push(performance.now() - t0);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
  return { rps: latencies.length / seconds, p50: at(0.5), p99: at(0.99), errors };
}
