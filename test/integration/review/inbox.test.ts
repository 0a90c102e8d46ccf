/**
 * The broker's inbox on the twin (issue 40): two couriers' flights and documents, the counts
 * checked against the routes that list them, and the inbox following decisions and closes.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { useTwin } from '#support/twin';
import { multipart, pdf } from '#support/files';
import { freshCuil, item, manifest, submitForBatch } from '#support/manifests';
import { documentClient } from '#infra/dynamo';
import { batchKey, getBatch } from '#infra/entities/manifests';
import { config } from '#shared/config';

const t = useTwin();

let north: { accountId: number; token: string };
let south: { accountId: number; token: string };
let broker: { token: string };
const flight = `MAWB-${Date.now()}`;
const batches: string[] = [];

const vague = (i: number, over: Record<string, unknown> = {}) =>
  item(i, { itemDescription: i % 3 ? 'Regalo sorpresa' : 'Assorted sample lot misc', hsCode: undefined, fobValueUsd: 30 + i, consigneeIdNumber: freshCuil('20'), ...over });

async function upload(token: string, awb: string) {
  const form = await multipart({ document_type: 'awb', awb_number: awb, manifest_id: 'MAN-INBOX' }, { name: `${awb}.pdf`, data: pdf(awb) });
  const res = await t.call('POST', '/v1/transport/documents/upload', { token, raw: form.body, headers: { 'content-type': form.contentType } });
  expect(res.status).toBe(201);
  return res.body.data.id as number;
}

type Inbox = {
  documents: { awaiting_validation: number; awaiting_approval: number; by_account: { account_id: number; account_name: string; awaiting_validation: number; awaiting_approval: number }[] };
  review: { products_awaiting: number; batches_open: number; flights: number; at_stake: number };
  flights: { mawb_number: string; products_awaiting: number; batches: { batch_id: string; account_name: string; products_awaiting: number }[] }[];
};

async function inbox(query = ''): Promise<Inbox> {
  const res = await t.call('GET', `/v1/couriers/review/inbox${query}`, { token: broker.token });
  expect(res.status).toBe(200);
  return res.body.data;
}

/** What the review queue lists as not yet decided, page after page: what the inbox must count. */
async function awaitingInQueue(batchId: string): Promise<number> {
  let count = 0;
  let cursor: string | null = null;
  do {
    const res = await t.call('GET', `/v1/couriers/manifests/${batchId}/review?per_page=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { token: broker.token });
    count += res.body.data.filter((p: { review?: unknown }) => !p.review).length;
    cursor = res.body.meta.next_cursor;
  } while (cursor);
  return count;
}

beforeAll(async () => {
  north = await t.account('Courier Norte');
  south = await t.account('Courier Sur');
  broker = await t.account('Broker Inbox', { kind: 'broker' });
  batches.push(await submitForBatch(t, north.token, manifest(0, { mawbNumber: flight, items: [1, 2, 3, 4].map((i) => vague(i)) })));
  batches.push(await submitForBatch(t, south.token, manifest(0, { mawbNumber: flight, items: [5, 6, 7].map((i) => vague(i)) })));
  batches.push(await submitForBatch(t, south.token, manifest(0, { items: [8, 9].map((i) => vague(i)) })));
  await t.settle();
  const [a, b] = [await upload(north.token, '111-11111111'), await upload(north.token, '111-11111112')];
  await upload(south.token, '222-22222222');
  expect((await t.call('PUT', `/v1/transport/documents/${a}/validate`, { token: broker.token, body: {} })).status).toBe(200);
  expect(b).toBeGreaterThan(0);
}, 90_000);

describe('the inbox', () => {
  it("counts documents awaiting validation and approval per courier, by the courier's name", async () => {
    const { documents } = await inbox();
    expect(documents).toMatchObject({ awaiting_validation: 2, awaiting_approval: 1 });
    const byName = Object.fromEntries(documents.by_account.map((r) => [r.account_name, r]));
    expect(byName['Courier Norte']).toMatchObject({ account_id: north.accountId, awaiting_validation: 1, awaiting_approval: 1 });
    expect(byName['Courier Sur']).toMatchObject({ account_id: south.accountId, awaiting_validation: 1, awaiting_approval: 0 });
  });

  it('groups the processed batches not closed by flight, oldest first, with the counts the review queue lists', async () => {
    const data = await inbox();
    expect(data.review).toMatchObject({ batches_open: 3, flights: 2 });
    const shared = data.flights.find((f) => f.mawb_number === flight)!;
    expect(shared.batches.map((b) => b.batch_id).sort()).toEqual([batches[0], batches[1]].sort());
    expect(shared.batches.map((b) => b.account_name).sort()).toEqual(['Courier Norte', 'Courier Sur']);
    for (const b of data.flights.flatMap((f) => f.batches)) expect(b.products_awaiting).toBe(await awaitingInQueue(b.batch_id));
    expect(data.review.products_awaiting).toBe(data.flights.reduce((s, f) => s + f.products_awaiting, 0));
    expect(data.review.products_awaiting).toBeGreaterThan(0);
    expect(data.flights[0].mawb_number).toBe(flight);
  });

  it('pages the flights with a cursor and reads only the window since a date', async () => {
    const res = await t.call('GET', '/v1/couriers/review/inbox?per_page=1', { token: broker.token });
    expect(res.body.data.flights).toHaveLength(1);
    // Signed: the page's offset is in it, not readable or changeable (a made-up offset is a 422).
    expect(res.body.meta.next_cursor).toMatch(/^[A-Za-z0-9_-]{23,}$/);
    expect((await t.call('GET', '/v1/couriers/review/inbox?per_page=1&cursor=1', { token: broker.token })).body.errors).toHaveProperty('cursor');
    const next = await t.call('GET', `/v1/couriers/review/inbox?per_page=1&cursor=${res.body.meta.next_cursor}`, { token: broker.token });
    expect(next.body.meta.cursor).toBe(res.body.meta.next_cursor);
    expect(next.body.data.flights[0].mawb_number).not.toBe(res.body.data.flights[0].mawb_number);
    expect((await inbox('?since=2999-01-01')).flights).toHaveLength(0);
  });

  it('answers 422 naming since or cursor when they are not what it answers, and 403 to a partner', async () => {
    expect((await t.call('GET', '/v1/couriers/review/inbox?since=yesterday', { token: broker.token })).body.errors).toHaveProperty('since');
    expect((await t.call('GET', '/v1/couriers/review/inbox?since=2026-02-30', { token: broker.token })).body.errors).toHaveProperty('since');
    expect((await t.call('GET', '/v1/couriers/review/inbox?cursor=abc', { token: broker.token })).body.errors).toHaveProperty('cursor');
    expect((await t.call('GET', '/v1/couriers/review/inbox', { token: north.token })).status).toBe(403);
  });

  it('counts a batch processed before the summary kept its review counts from its results, once', async () => {
    await documentClient().send(new UpdateCommand({ TableName: config.tableName(), Key: batchKey(batches[2]), UpdateExpression: 'REMOVE summary.review_pending, summary.review_at_stake' }));
    const data = await inbox();
    const row = data.flights.flatMap((f) => f.batches).find((b) => b.batch_id === batches[2])!;
    expect(row.products_awaiting).toBe(await awaitingInQueue(batches[2]));
    expect((await getBatch(batches[2]))!.summary!.review_pending).toBe(row.products_awaiting);
  });

  it('follows a group decision and a close: the decided products and the closed batch leave it', async () => {
    const before = await inbox();
    const groups = await t.call('GET', `/v1/couriers/manifests/${batches[0]}/review/groups`, { token: broker.token });
    const group = groups.body.data[0];
    const decided = await t.call('PUT', `/v1/couriers/manifests/${batches[0]}/review/groups/${group.group_id}/classification`, { token: broker.token, body: { ncm_code: '9503.00.99', reason: 'Juguetes' } });
    expect(decided.status).toBe(200);
    const after = await inbox();
    expect(after.review.products_awaiting).toBe(before.review.products_awaiting - decided.body.data.left_review);
    expect(decided.body.data.left_review).toBeGreaterThanOrEqual(decided.body.data.changed);
    expect((await t.call('POST', `/v1/couriers/batches/${batches[2]}/close`, { token: broker.token })).status).toBe(200);
    const closed = await inbox();
    expect(closed.flights.flatMap((f) => f.batches).map((b) => b.batch_id)).not.toContain(batches[2]);
    expect(closed.review.batches_open).toBe(2);
  });
});
