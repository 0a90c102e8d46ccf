/**
 * `npm run bench:order-reads`: what one GET /v1/orders reads of the table, at `BENCH_ORDERS`
 * orders of one merchant (40,000 by default) on the local twin, counted by DynamoDB Local
 * (`ReturnConsumedCapacity`, twin/read-meter.ts): the order-views worker's snapshot of the account
 * (what the seeding's writes asked for: off the request path), the account's first list, a list
 * with nothing changed, a list after one order changed, the first list of a new function, and, for
 * comparison, a first list that cannot use the snapshot (the whole index: what every first list
 * read before the worker, and every list after a change before issue 41). Target: every list but
 * the last reads at most 1% of the whole index's read units. Exits 1 if missed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTwin } from '#twin/twin';
import { startDynamoLocal } from '#twin/dynamodb-local';
import { meterReads, type Reads } from '#twin/read-meter';
import { seedOrders } from '#twin/seed-orders';
import { forgetCachedRows } from '#services/orders/list';
import { snapshotKey } from '#services/orders/list-rows';
import { blobs } from '#infra/blobs';
import { clients, must } from './api-client';

const orderCount = Number(process.env.BENCH_ORDERS ?? 40_000);
const dataDir = mkdtempSync(join(tmpdir(), 'despacho-bench-order-reads-'));
const adminToken = 'bench-admin-token-0123456789';
const dynamo = await startDynamoLocal();
const twin = await startTwin({ port: 0, dataDir, tableName: 'bench_order_reads', adminToken, jobPollMs: 0, dynamoEndpoint: dynamo.endpoint });
const api = clients(twin.apiUrl);

try {
  const account = (await must('account', api(adminToken).POST('/api/v1/admin/accounts', { body: { name: 'Bench Merchant', kind: 'partner' } }))).data;
  const body = { account_id: account.id, name: 'bench', role: 'partner' as const, scopes: ['orders:read' as const, 'orders:write' as const] };
  const token = (await must('token', api(adminToken).POST('/api/v1/admin/tokens', { body }))).data.token;
  const seeded = performance.now();
  await seedOrders(account.id, orderCount);
  console.log(`seeded ${orderCount} orders in ${((performance.now() - seeded) / 1000).toFixed(1)} s`);

  const meter = meterReads();
  const made = performance.now();
  const ran = await twin.jobs.runDue(['orderViews']);
  const worker = meter.take();
  const workerUnits = [...worker.values()].reduce((s, r) => s + r.units, 0);
  console.log(`the worker's snapshot (${ran} messages, from the seeding's writes): ${((performance.now() - made) / 1000).toFixed(1)} s, ${workerUnits.toFixed(1)} read units, ${((await blobs().get(snapshotKey(account.id)))?.length ?? 0) / 1000} KB gzip`);
  const sum = (reads: Map<string, Reads>) => [...reads.values()].reduce((s, r) => ({ items: s.items + r.items, units: s.units + r.units }), { items: 0, units: 0 });
  async function measure(name: string, query: string): Promise<Reads> {
    meter.take();
    const res = await fetch(`${twin.apiUrl}/v1/orders${query}`, { headers: { authorization: `Bearer ${token}` } });
    if (res.status !== 200) throw new Error(`${name}: ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
    const reads = meter.take();
    const list = sum(new Map([...reads].filter(([k]) => k === 'ORDERIDX' || k === 'ORDERCHG' || k === 'ORDERMETA')));
    const page = reads.get('ORDER') ?? { items: 0, units: 0 };
    console.log(`${name.padEnd(44)} list ${String(list.items).padStart(6)} items ${list.units.toFixed(1).padStart(8)} units   page ${String(page.items).padStart(4)} orders ${page.units.toFixed(1).padStart(6)} units`);
    return list;
  }
  const first = await measure("the account's first list", '?per_page=100');
  const same = await measure('nothing changed since', '?per_page=100');
  const pending = (await (await fetch(`${twin.apiUrl}/v1/orders?status=pending&per_page=1`, { headers: { authorization: `Bearer ${token}` } })).json()) as { data: { orders: { id: number }[] } };
  const cancel = await fetch(`${twin.apiUrl}/v1/orders/${pending.data.orders[0].id}/cancel`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{}' });
  if (cancel.status !== 200) throw new Error(`cancel: ${cancel.status}`);
  const changed = await measure('after one order changed', '?per_page=100&status=cancelled');
  forgetCachedRows();
  const fresh = await measure("a new function's first list", '?per_page=100');
  await blobs().put(snapshotKey(account.id), Buffer.from('unreadable'), 'application/gzip');
  forgetCachedRows();
  const whole = await measure('a first list without a snapshot (whole index)', '?per_page=100');
  meter.stop();
  for (const [name, r] of [["the account's first list", first], ['nothing changed since', same], ['after a change', changed], ["a new function's first list", fresh]] as const) {
    const ratio = r.units / whole.units;
    console.log(`${name}: ${r.units.toFixed(1)} read units, ${(ratio * 100).toFixed(2)}% of a whole read (${whole.units.toFixed(1)}); target <= 1%`);
    if (ratio > 0.01) process.exitCode = 1;
  }
} finally {
  await twin.stop();
  await dynamo.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
