/**
 * `npm run bench:events`: what one request of the events feed reads (issue 41, item 4), before and
 * after its bound, on an account of 40,000 events (BENCH_EVENTS), in DynamoDB Local (the real
 * engine, which counts read units as DynamoDB does). "Before" is the read the feed made until
 * issue 41, played here as it ran: Query pages of 1 MB without a Limit until the page had one more
 * event than asked or the account's events ran out (ElectroDB's `pages: 'all'` with `count`).
 * "After" is the feed's own read (lambdas/infra/entities/events.ts `queryFeedEvents`). Cases: a page
 * without a filter, and a page of a type the account has none of (the worst case: the issue's
 * `types=order.created` on an account of document events). Prints items read, read units and time
 * per request; exits 1 if a request of the feed reads more than 1,000 items.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ensureTable, startDynamoLocal } from '#twin/dynamodb-local';

const total = Number(process.env.BENCH_EVENTS ?? 40_000);
const dynamo = await startDynamoLocal();
Object.assign(process.env, {
  AWS_REGION: 'local',
  AWS_ACCESS_KEY_ID: 'local',
  AWS_SECRET_ACCESS_KEY: 'local',
  AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
  TABLE_NAME: 'bench_events',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
});
const { documentClient } = await import('#infra/dynamo');
const { queryFeedEvents, feedReadBound } = await import('#infra/entities/events');

try {
  await ensureTable(new DynamoDBClient({ endpoint: dynamo.endpoint }), 'bench_events');
  const accountId = 7;
  const pk = `ACCOUNT#${accountId}#EVENTS`;
  const base = Date.parse('2026-12-01T00:00:00Z');
  const ttl = Math.floor(base / 1000) + 30 * 86_400;
  const t0 = performance.now();
  const writes = Array.from({ length: Math.ceil(total / 25) }, (_, c) => c);
  const write = async (c: number) => {
    const items = Array.from({ length: Math.min(25, total - c * 25) }, (_, k) => {
      const n = c * 25 + k;
      const createdAt = new Date(base + n * 1000).toISOString();
      const eventId = `evt_bench_${String(n).padStart(7, '0')}`;
      const body = JSON.stringify({ id: eventId, type: 'document.uploaded', created_at: createdAt, data: { document_id: n, filename: `awb-${n}.pdf`, document_type: 'awb', status: 'uploaded' } });
      return { pk, sk: `EVT#${createdAt}#${eventId}`, accountId, eventId, eventType: 'document.uploaded', createdAt, body, ttl };
    });
    await documentClient().send(new BatchWriteCommand({ RequestItems: { bench_events: items.map((Item) => ({ PutRequest: { Item } })) } }));
  };
  for (let i = 0; i < writes.length; i += 8) await Promise.all(writes.slice(i, i + 8).map(write));
  console.log(`${total} document.uploaded events written in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
  const nowSeconds = Math.floor(base / 1000) + 86_400;

  /** The read before issue 41: 1 MB pages, no Limit, until limit + 1 matched or the events ran out. */
  async function before(limit: number, types?: string[]) {
    let items = 0;
    let units = 0;
    let found = 0;
    let start: Record<string, unknown> | undefined;
    do {
      const res = await documentClient().send(
        new QueryCommand({
          TableName: 'bench_events',
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :evt)',
          FilterExpression: types ? '#ttl > :now AND eventType IN (:t0)' : '#ttl > :now',
          ExpressionAttributeNames: { '#ttl': 'ttl' },
          ExpressionAttributeValues: { ':pk': pk, ':evt': 'EVT#', ':now': nowSeconds, ...(types ? { ':t0': types[0] } : {}) },
          ScanIndexForward: false,
          ExclusiveStartKey: start,
          ReturnConsumedCapacity: 'TOTAL',
        }),
      );
      items += res.ScannedCount ?? 0;
      units += res.ConsumedCapacity?.CapacityUnits ?? 0;
      found += res.Count ?? 0;
      start = res.LastEvaluatedKey;
    } while (start && found <= limit);
    return { items, units };
  }

  async function after(limit: number, types?: string[]) {
    const page = await queryFeedEvents({ accountId, order: 'desc', limit, types, nowSeconds });
    return { items: page.scanned, units: page.readUnits };
  }

  const cases: [string, number, string[] | undefined][] = [
    ['limit=1', 1, undefined],
    ['limit=20', 20, undefined],
    ['limit=1&types=order.created (none)', 1, ['order.created']],
    ['limit=20&types=document.uploaded', 20, ['document.uploaded']],
  ];
  let over = false;
  console.log('request                              before: items  read units      ms   after: items  read units      ms');
  for (const [name, limit, types] of cases) {
    let t = performance.now();
    const b = await before(limit, types);
    const tb = performance.now() - t;
    t = performance.now();
    const a = await after(limit, types);
    const ta = performance.now() - t;
    if (a.items > feedReadBound) over = true;
    console.log(
      `${name.padEnd(36)} ${String(b.items).padStart(13)} ${b.units.toFixed(1).padStart(11)} ${tb.toFixed(0).padStart(7)}  ${String(a.items).padStart(13)} ${a.units.toFixed(1).padStart(11)} ${ta.toFixed(0).padStart(7)}`,
    );
  }
  console.log(`\nbound: ${feedReadBound} items a request  ${over ? 'NOT met' : 'met'}`);
  process.exitCode = over ? 1 : 0;
} finally {
  await dynamo.stop();
}
