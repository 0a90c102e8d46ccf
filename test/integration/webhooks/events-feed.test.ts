import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BatchWriteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { queryFeedEvents } from '#infra/entities/events';
import { config } from '#shared/config';
import { useManualClock } from '#support/clock';
import { documentClient } from '#infra/dynamo';
import { domainEvent } from '#infra/events';
import { fanOut } from '#services/webhooks/webhooks';
import { encodeCursor } from '#core/webhooks/feed';
import { sealCursor } from '#infra/cursors';
import { useTwin } from '#support/twin';
import { useReceiver } from '#support/receiver';
import { pdf } from '#support/files';

const t = useTwin();
const receiver = useReceiver();
const clock = useManualClock('2026-11-20T10:00:00Z');
beforeEach(() => receiver.clear());

/** Uploads a document (a `document.uploaded` event) a second after the last one, so events are ordered. */
async function uploadDoc(token: string) {
  clock.advance(1000);
  const res = await t.call('POST', '/v1/transport/documents/upload', { token, body: { document_type: 'awb', file_base64: pdf(String(Math.random())).toString('base64'), filename: 'a.pdf' } });
  expect(res.status).toBe(201);
  return res.body.data as { id: number };
}

async function feed(token: string, query = '') {
  return t.call('GET', `/v1/events${query}`, { token });
}

/** The feed's stored items of an account, read straight from the table. */
async function storedItems(accountId: number) {
  const res = await documentClient().send(
    new QueryCommand({ TableName: t.tableName, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': `ACCOUNT#${accountId}#EVENTS` } }),
  );
  return res.Items ?? [];
}

describe('GET /v1/events', () => {
  it('lists the account\'s events newest first, each exactly the envelope its deliveries send', async () => {
    const partner = await t.account('Feed Partner');
    const sub = await t.call('POST', '/webhook-subscriptions', { token: partner.token, body: { endpoint_url: receiver.url, events: ['document.uploaded'] } });
    expect(sub.status).toBe(201);
    const docs = [await uploadDoc(partner.token), await uploadDoc(partner.token), await uploadDoc(partner.token)];
    await t.settle();
    const res = await feed(partner.token);
    expect(res.status).toBe(200);
    expect(res.body.data.map((e: { data: { id: number } }) => e.data.id)).toEqual(docs.map((d) => d.id).reverse());
    expect(res.body.meta).toMatchObject({ has_more: false, limit: 20, order: 'desc', next_cursor: expect.any(String) });
    // Byte for byte what was delivered.
    const delivered = receiver.received.map((r) => r.body).sort((a, b) => JSON.parse(b).created_at.localeCompare(JSON.parse(a).created_at));
    expect(res.body.data.map((e: unknown) => JSON.stringify(e))).toEqual(delivered);
    const oldest = await feed(partner.token, '?order=asc');
    expect(oldest.body.data.map((e: { data: { id: number } }) => e.data.id)).toEqual(docs.map((d) => d.id));
  });

  it('pages by cursor in both orders, and an empty page keeps the cursor for the next poll', async () => {
    const partner = await t.account('Feed Pager');
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) ids.push((await uploadDoc(partner.token)).id);
    await t.settle();
    for (const order of ['asc', 'desc'] as const) {
      const seen: number[] = [];
      let after: string | undefined;
      for (let page = 0; page < 3; page++) {
        const res = await feed(partner.token, `?order=${order}&limit=2${after ? `&after=${after}` : ''}`);
        expect(res.status).toBe(200);
        seen.push(...res.body.data.map((e: { data: { id: number } }) => e.data.id));
        expect(res.body.meta.has_more).toBe(page < 2);
        after = res.body.meta.next_cursor;
      }
      expect(seen).toEqual(order === 'asc' ? ids : [...ids].reverse());
      const empty = await feed(partner.token, `?order=${order}&limit=2&after=${after}`);
      expect(empty.body).toMatchObject({ data: [], meta: { has_more: false, next_cursor: after } });
    }
    // Oldest first from the end: a later event comes after the cursor.
    const tail = (await feed(partner.token, '?order=asc&limit=100')).body.meta.next_cursor;
    const later = await uploadDoc(partner.token);
    await t.settle();
    const next = await feed(partner.token, `?order=asc&after=${tail}`);
    expect(next.body.data.map((e: { data: { id: number } }) => e.data.id)).toEqual([later.id]);
  });

  it('starts oldest first at an instant with since (its events included), never with a cursor made by hand', async () => {
    const partner = await t.account('Feed Since');
    await uploadDoc(partner.token);
    await uploadDoc(partner.token);
    await uploadDoc(partner.token);
    await t.settle();
    const all = (await feed(partner.token, '?order=asc')).body.data as { id: string; created_at: string }[];
    expect(all).toHaveLength(3);
    const from = await feed(partner.token, `?order=asc&since=${all[1].created_at}`);
    expect(from.status).toBe(200);
    expect(from.body.data.map((e: { id: string }) => e.id)).toEqual([all[1].id, all[2].id]);
    expect((await feed(partner.token, `?since=${all[1].created_at}`)).body.errors).toHaveProperty('since');
    expect((await feed(partner.token, `?order=asc&since=${all[1].created_at}&after=${from.body.meta.next_cursor}`)).body.errors).toHaveProperty('since');
    expect((await feed(partner.token, '?order=asc&since=yesterday')).body.errors).toHaveProperty('since');
  });

  it('filters by types', async () => {
    const partner = await t.account('Feed Types');
    const doc = await uploadDoc(partner.token);
    clock.advance(1000);
    expect((await t.call('GET', `/v1/transport/documents/${doc.id}/download`, { token: partner.token })).status).toBeLessThan(400);
    await uploadDoc(partner.token);
    await t.settle();
    expect((await feed(partner.token, '?order=asc')).body.data.map((e: { type: string }) => e.type)).toEqual(['document.uploaded', 'document.downloaded', 'document.uploaded']);
    const uploaded = await feed(partner.token, '?types=document.uploaded&order=asc');
    expect(uploaded.body.data.map((e: { type: string }) => e.type)).toEqual(['document.uploaded', 'document.uploaded']);
    const paged = await feed(partner.token, '?types=document.uploaded&limit=1');
    expect(paged.body.data.map((e: { type: string }) => e.type)).toEqual(['document.uploaded']);
    expect(paged.body.meta.has_more).toBe(true);
    const downloaded = await feed(partner.token, `?types=document.downloaded,document.uploaded&after=${paged.body.meta.next_cursor}`);
    expect(downloaded.body.data.map((e: { type: string }) => e.type)).toEqual(['document.downloaded', 'document.uploaded']);
    expect((await feed(partner.token, '?types=order.created,shipment.created')).body.data).toEqual([]);
  });

  it("never shows another account's events, whatever the cursor", async () => {
    const mine = await t.account('Feed Mine');
    const theirs = await t.account('Feed Theirs');
    await uploadDoc(theirs.token);
    await t.settle();
    const theirCursor = (await feed(theirs.token)).body.meta.next_cursor;
    const res = await feed(mine.token);
    expect(res.body.data).toEqual([]);
    for (const order of ['asc', 'desc']) expect((await feed(mine.token, `?order=${order}&after=${theirCursor}`)).body.data).toEqual([]);
    expect((await feed(mine.token, `?after=${await sealCursor(encodeCursor({ createdAt: '2999-01-01T00:00:00.000Z', eventId: 'evt_x' }))}`)).body.data).toEqual([]);
  });

  it('stores an event once whatever the number of subscriptions, and once when the bus delivers it again', async () => {
    const partner = await t.account('Feed Once');
    for (let i = 0; i < 3; i++) {
      const sub = await t.call('POST', '/webhook-subscriptions', { token: partner.token, body: { endpoint_url: receiver.url, events: ['document.uploaded'] } });
      expect(sub.status).toBe(201);
    }
    await uploadDoc(partner.token);
    await t.settle();
    expect(receiver.received).toHaveLength(3);
    const items = await storedItems(partner.accountId);
    expect(items).toHaveLength(1);
    const [item] = items;
    expect(item.ttl).toBe(Math.floor(Date.parse(item.createdAt) / 1000) + 30 * 86_400);
    // The same bus event again (SQS delivers at least once): no second item, no second delivery.
    const event = { ...domainEvent('document.uploaded', partner.accountId, JSON.parse(item.body).data), id: item.eventId, created_at: item.createdAt };
    expect(await fanOut(event)).toBe(0);
    expect(await storedItems(partner.accountId)).toHaveLength(1);
    expect((await feed(partner.token)).body.data).toHaveLength(1);
  });

  it('lets an event go after 30 days', async () => {
    const partner = await t.account('Feed Expiry');
    await uploadDoc(partner.token);
    await t.settle();
    expect((await feed(partner.token)).body.data).toHaveLength(1);
    clock.advance(30 * 86_400_000 + 1000);
    expect((await feed(partner.token)).body.data).toHaveLength(0);
    clock.advance(-(30 * 86_400_000 + 1000));
  });

  it('answers 422 naming the field for bad cursors, limits, types and orders', async () => {
    const partner = await t.account('Feed Bad Input');
    const bad: [string, string][] = [
      ['?after=nonsense', 'after'],
      ['?after=' + Buffer.from('2026-11-20T10:00:00.000Z|evt_a|x').toString('base64url'), 'after'],
      ['?after=' + Buffer.from('yesterday|evt_a').toString('base64url'), 'after'],
      ['?after=' + Buffer.from('2026-11-20T10:00:00.000Z|not-an-event').toString('base64url'), 'after'],
      ['?after=' + encodeURIComponent('abc$%^'), 'after'],
      ['?after=' + 'A'.repeat(301), 'after'],
      ['?limit=101', 'limit'],
      ['?limit=0', 'limit'],
      ['?limit=ten', 'limit'],
      ['?types=order.exploded', 'types'],
      ['?types=,', 'types'],
      ['?order=sideways', 'order'],
    ];
    // Cursors are signed: a position the feed did not sign, or a signed one changed by a character, is refused.
    await uploadDoc(partner.token);
    await t.settle();
    const signed = (await feed(partner.token)).body.meta.next_cursor as string;
    expect((await feed(partner.token, `?after=${signed}`)).status).toBe(200);
    const flip = (c: string, at: number) => c.slice(0, at) + (c[at] === 'A' ? 'B' : 'A') + c.slice(at + 1);
    bad.push(['?after=' + encodeCursor({ createdAt: '2026-11-20T10:00:00.000Z', eventId: 'evt_a' }), 'after'], ['?after=' + flip(signed, 3), 'after'], ['?after=' + flip(signed, signed.length - 1), 'after']);
    for (const [query, field] of bad) {
      const res = await feed(partner.token, query);
      expect(res.status, query).toBe(422);
      expect(res.body.errors, query).toHaveProperty(field);
    }
    expect((await feed(partner.token, '?limit=100')).status).toBe(200);
  });

  it('needs a token', async () => {
    expect((await t.call('GET', '/v1/events', { token: null })).status).toBe(401);
  });
});

describe('the feed’s reads', () => {
  const total = 3_000;
  let partner: { accountId: number; token: string };

  /** `total` `order.created` events written straight to the table, an hour before the test's clock. */
  async function seed(accountId: number) {
    const base = Date.parse('2026-11-20T09:00:00Z');
    const items = Array.from({ length: total }, (_, k) => {
      const createdAt = new Date(base + k * 10).toISOString();
      const eventId = `evt_seed_${String(k).padStart(6, '0')}`;
      const type = 'order.created';
      return {
        pk: `ACCOUNT#${accountId}#EVENTS`,
        sk: `EVT#${createdAt}#${eventId}`,
        accountId,
        eventId,
        eventType: type,
        createdAt,
        body: JSON.stringify({ id: eventId, type, created_at: createdAt, data: { n: k } }),
        ttl: Math.floor(base / 1000) + 30 * 86_400,
      };
    });
    for (let i = 0; i < items.length; i += 25) {
      await documentClient().send(new BatchWriteCommand({ RequestItems: { [config.tableName()]: items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) } }));
    }
  }

  beforeAll(async () => {
    partner = await t.account('Feed Reads SA');
    await seed(partner.accountId);
    // Then one document: the feed's one `document.uploaded`, newer than every order.
    await uploadDoc(partner.token);
    await t.settle();
  }, 120_000);

  it('reads one more item than a page asks, not the account’s every event', async () => {
    const page = await queryFeedEvents({ accountId: partner.accountId, order: 'desc', limit: 1, nowSeconds: Math.floor(clock.now().getTime() / 1000) });
    expect(page.events).toHaveLength(1);
    expect(page.more).toBe(true);
    expect(page.scanned).toBe(2);
  });

  it('reads at most 1,000 items for a rare type, and its cursor resumes past them until the event is found', async () => {
    let cursor: string | null = null;
    const pages: number[] = [];
    let found: { type: string }[] = [];
    for (let n = 0; n < 10 && !found.length; n++) {
      const res = await feed(partner.token, `?limit=1&order=asc&types=document.uploaded${cursor ? `&after=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      found = res.body.data;
      pages.push(found.length);
      if (!found.length) {
        expect(res.body.meta.has_more).toBe(true);
        expect(res.body.meta.next_cursor).not.toBe(cursor);
      }
      cursor = res.body.meta.next_cursor;
    }
    expect(found.map((e) => e.type)).toEqual(['document.uploaded']);
    // 3,000 orders before it, 1,000 read a request, oldest first: the fourth request finds it.
    expect(pages).toEqual([0, 0, 0, 1]);
    const direct = await queryFeedEvents({ accountId: partner.accountId, order: 'asc', limit: 1, types: ['document.uploaded'], nowSeconds: Math.floor(clock.now().getTime() / 1000) });
    expect(direct.scanned).toBe(1000);
    expect(direct.resumeAt).toBeDefined();
  });
});

describe('the feed’s answers', () => {
  it('end a page at 4 MB of events (an answer stops at 6 MB) and go on from its last event, losing none', { timeout: 120_000 }, async () => {
    const heavy = await t.account('Feed Heavy SA');
    // 60 invalid-tax-id reports in parts of 500 AWBs (about 120 KB each), as a 30,000-AWB manifest makes them.
    const base = Date.parse('2026-11-20T09:00:00Z');
    const items = Array.from({ length: 60 }, (_, k) => {
      const createdAt = new Date(base + k * 10).toISOString();
      const eventId = `evt_heavy_${String(k).padStart(4, '0')}`;
      const awbs = Array.from({ length: 500 }, (_, a) => ({ awb_number: `AWB${k}-${String(a).padStart(5, '0')}`, tax_id: '20123456780', reason: 'The tax id 20123456780 fails its check digit: it should end in 6.' + ' '.repeat(120) }));
      const body = JSON.stringify({ id: eventId, type: 'manifest.invalid_cuit_detected', created_at: createdAt, data: { manifest_number: 'MAN-HEAVY', batch_id: 'BT-HEAVY', mawb_number: 'MAWB-HEAVY', awbs, part: k + 1, parts: 60, total_awbs: 30_000 } });
      return { pk: `ACCOUNT#${heavy.accountId}#EVENTS`, sk: `EVT#${createdAt}#${eventId}`, accountId: heavy.accountId, eventId, eventType: 'manifest.invalid_cuit_detected', createdAt, body, ttl: Math.floor(base / 1000) + 30 * 86_400 };
    });
    expect(Buffer.byteLength(items[0].body)).toBeGreaterThan(100_000);
    for (let i = 0; i < items.length; i += 10) {
      await documentClient().send(new BatchWriteCommand({ RequestItems: { [config.tableName()]: items.slice(i, i + 10).map((Item) => ({ PutRequest: { Item } })) } }));
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let n = 0; n < 10; n++) {
      const res = await feed(heavy.token, `?limit=100&order=asc${cursor ? `&after=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      expect(Buffer.byteLength(res.text)).toBeLessThan(4.2 * 1000 * 1000);
      seen.push(...res.body.data.map((e: { id: string }) => e.id));
      cursor = res.body.meta.next_cursor;
      if (!res.body.meta.has_more) break;
    }
    expect(seen).toEqual(items.map((i) => i.eventId));
  });
});
