/**
 * `npm run bench:webhooks`: 10,000 events to 5 subscriptions on a local receiver, through the
 * twin's whole path (bus rule -> fan-out queue -> delivery queue -> signed HTTP POST). Prints
 * deliveries per second, p99 time from event to delivery, lost deliveries (must be 0) and
 * duplicate envelope ids the receiver saw. Exits 1 if anything was lost.
 */
import { createServer } from 'node:http';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { startTwin } from '#twin/twin';
import { startDynamoLocal } from '#twin/dynamodb-local';
import { domainEvent, events } from '#infra/events';
import { clients, must } from './api-client';

const eventCount = Number(process.env.BENCH_EVENTS ?? 10_000);
const subscriptionCount = 5;
const timeoutMs = Number(process.env.BENCH_TIMEOUT_MS ?? 20 * 60_000);

process.env.LOG_LEVEL = 'WARN';
// The receiver is on this machine: the twin's local receivers (docs/operators/configuration.md).
process.env.WEBHOOK_LOCAL_RECEIVERS = '1';
process.env.POWERTOOLS_LOG_LEVEL = 'WARN';

const sent = new Map<string, number>();
const seen = new Map<string, number>();
let duplicates = 0;
const latencies: number[] = [];

const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const id = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string }).id;
    const key = `${req.url}|${id}`;
    if (seen.has(key)) duplicates++;
    else {
      seen.set(key, Date.now());
      latencies.push(Date.now() - sent.get(id)!);
    }
    res.writeHead(200).end();
  });
});
receiver.listen(0, '127.0.0.1');
await once(receiver, 'listening');
const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

const dataDir = mkdtempSync(join(tmpdir(), 'despacho-bench-'));
const adminToken = 'bench-admin-token-0123456789';
// The engine keeps this run in memory: the bench measures the delivery path, not the disk's fsync.
const dynamo = await startDynamoLocal();
const twin = await startTwin({ port: 0, dataDir, adminToken, jobPollMs: 20, dynamoEndpoint: dynamo.endpoint });
const api = clients(twin.apiUrl);

try {
  const account = (await must('account', api(adminToken).POST('/api/v1/admin/accounts', { body: { name: 'Bench Partner', kind: 'partner' } }))).data;
  const token = (await must('token', api(adminToken).POST('/api/v1/admin/tokens', { body: { account_id: account.id, name: 'bench', role: 'partner' } }))).data.token;
  for (let i = 1; i <= subscriptionCount; i++) {
    await must('subscription', api(token).POST('/api/webhook-subscriptions', { body: { endpoint_url: `${receiverUrl}/s${i}`, events: ['order.created'] } }));
  }

  const expected = eventCount * subscriptionCount;
  const started = Date.now();
  for (let i = 0; i < eventCount; i += 100) {
    const batch = Array.from({ length: Math.min(100, eventCount - i) }, (_, k) => domainEvent('order.created', account.id, { id: i + k + 1 }));
    for (const e of batch) sent.set(e.id, Date.now());
    await events().publish(batch);
  }
  const publishedMs = Date.now() - started;

  let last = -1;
  while (seen.size < expected && Date.now() - started < timeoutMs) {
    await new Promise((r) => setTimeout(r, 1000));
    if (seen.size !== last && process.stdout.isTTY) process.stdout.write(`\r  delivered ${seen.size} / ${expected}`);
    last = seen.size;
  }
  const elapsed = (Date.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const p = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
  const lost = expected - seen.size;
  console.log('\n');
  console.log(`events                 ${eventCount} (published in ${(publishedMs / 1000).toFixed(1)} s)`);
  console.log(`subscriptions          ${subscriptionCount}`);
  console.log(`deliveries expected    ${expected}`);
  console.log(`deliveries received    ${seen.size}`);
  console.log(`deliveries/s           ${(seen.size / elapsed).toFixed(1)}`);
  console.log(`p50 event->delivery    ${(p(0.5) / 1000).toFixed(2)} s`);
  console.log(`p99 event->delivery    ${(p(0.99) / 1000).toFixed(2)} s`);
  console.log(`lost                   ${lost}`);
  console.log(`duplicate envelope ids ${duplicates}`);
  console.log(`elapsed                ${elapsed.toFixed(1)} s`);
  process.exitCode = lost === 0 ? 0 : 1;
} finally {
  await twin.stop();
  await dynamo.stop();
  receiver.closeAllConnections();
  receiver.close();
  rmSync(dataDir, { recursive: true, force: true });
}
